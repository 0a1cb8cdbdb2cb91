// Files for the viewer to watch, saved by a separate process in the ways programs save.
import Foundation
import JSONTree
import Synchronization
import Testing
import TestSupport

/// How a separate process saves a file.
enum SaveStyle: CaseIterable {
    /// Truncate and write the same file.
    case inPlace
    /// Write a temporary file beside it and rename it over the file.
    case rename
    /// Delete the file, then create it again.
    case recreate
}

/// Saves `text` to `path` from a separate process (/bin/sh), in `style`.
func save(_ text: String, to path: String, style: SaveStyle, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let script = switch style {
    case .inPlace: #"printf '%s' "$1" > "$2""#
    case .rename: #"printf '%s' "$1" > "$2.saving" && mv -f "$2.saving" "$2""#
    case .recreate: #"rm -f "$2" && printf '%s' "$1" > "$2""#
    }
    let result = try runProgram("/bin/sh", ["-c", script, "sh", text, path])
    #expect(result.status == 0, "saving \(path) failed: \(result.errors)", sourceLocation: sourceLocation)
}

/// `{"players": {KEY: {"name": NAME, "score": SCORE}, …}}` in the given order.
func leaderboard(_ players: [(key: String, score: Int)]) -> String {
    let members = players.map { #""\#($0.key)": {"name": "Player \#($0.key)", "score": \#($0.score)}"# }
    return "{\"players\": {\n  " + members.joined(separator: ",\n  ") + "\n}}\n"
}

/// The shell command that runs synctable with `arguments` (and `environment` added to its
/// environment), then prints `EXITED <status>`.
func viewerCommand(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
    let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    let words = (assignments.isEmpty ? [] : ["env"] + assignments) + [try synctableBinary()] + arguments
    let line = words.map(shellQuoted).joined(separator: " ")
    // The shell traps SIGINT (a handler, which synctable does not inherit) so that Ctrl-C
    // ends only synctable and the shell still says how it ended; a crash leaves no core file.
    // It stays after its last line (as TableUITests' shells do): tmux can drop what a pane
    // printed just before it died, remain-on-exit or not.
    return "sh -c " + shellQuoted("ulimit -c 0; trap true INT; " + line + "; echo EXITED $?; sleep 600")
}

/// Polls `path` until its JSON satisfies `condition` (up to `seconds`); records an issue with
/// the last content when it never does.
@discardableResult
func waitForFile(_ path: String, _ what: String, seconds: Double = 15, sourceLocation: SourceLocation = #_sourceLocation,
                 _ condition: (JSONNode) -> Bool) -> String {
    let deadline = Date().addingTimeInterval(seconds)
    var text = ""
    repeat {
        if let data = FileManager.default.contents(atPath: path) {
            text = String(decoding: data, as: UTF8.self)
            if let document = try? JSONDocument(parsing: Array(data)), condition(document.root) { return text }
        }
        usleep(40_000)
    } while Date() < deadline
    Issue.record("the file never had \(what); it holds:\n\(text)", sourceLocation: sourceLocation)
    return text
}

/// The number at `path` in a JSON value.
func number(_ root: JSONNode, _ path: String) -> Double? {
    (try? Path(path)).flatMap { root.node(at: $0) }?.doubleValue
}

/// The string at `path` in a JSON value.
func string(_ root: JSONNode, _ path: String) -> String? {
    (try? Path(path)).flatMap { root.node(at: $0) }?.stringValue
}
