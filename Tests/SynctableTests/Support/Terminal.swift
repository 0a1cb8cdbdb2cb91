// Running the built `synctable` in a real terminal (TestSupport's TmuxSession), and what the
// tests ask of its screen.
import Foundation
import Synchronization
import Testing
import TestSupport

/// The first-page caches of the viewers the tests run (not the user's).
let cacheFolder = packageRoot + "/.build/synctable-tests/cache"

/// The viewer in tmux: the driver is TestSupport's; these are the viewer tests' questions.
extension TmuxSession {
    /// Starts `command` with the tests' own first-page cache (not the user's).
    convenience init(viewer command: String, width: Int = 100, height: Int = 30) throws {
        try self.init("XDG_CACHE_HOME=\(shellQuoted(cacheFolder)) \(command)", name: "synctable", width: width, height: height)
    }

    /// Polls the screen until `condition` holds for it as a `Screen` (see `waitForScreen`).
    @discardableResult
    func waitFor(_ what: String, seconds: Double = 15, history: Bool = false,
                 sourceLocation: SourceLocation = #_sourceLocation, _ condition: (Screen) -> Bool) throws -> Screen {
        Screen(lines: try waitForScreen(what, seconds: seconds, history: history, sourceLocation: sourceLocation) {
            condition(Screen(lines: $0))
        })
    }

    /// A tmux command's output (the viewer tests' name for `run`).
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String { try run(arguments) }
}

/// A captured screen, with questions a test asks of the viewer's table.
struct Screen {
    let lines: [String]

    var text: String { lines.joined(separator: "\n") }

    func contains(_ needle: String) -> Bool { lines.contains { $0.contains(needle) } }

    /// Line `n` (empty past the end).
    func line(_ n: Int) -> String { n < lines.count ? lines[n] : "" }

    /// The line of the row whose key is `key`: the key column is the first after the 3-cell
    /// gutter (right-aligned when every key is an integer).
    func line(ofKey key: String) -> Int? {
        lines.firstIndex { $0.dropFirst(3).drop { $0 == " " }.hasPrefix(key + " ") }
    }

    /// Whether every key is on screen, in this order top to bottom.
    func hasRows(inOrder keys: [String]) -> Bool {
        let found = keys.map { line(ofKey: $0) }
        guard found.allSatisfy({ $0 != nil }) else { return false }
        let at = found.map { $0! }
        return at == at.sorted()
    }

    /// The key of the selected row (the line that starts with the selection glyph).
    var selectedKey: String? {
        guard let line = lines.first(where: { $0.hasPrefix("▶") }) else { return nil }
        return line.dropFirst(3).split(separator: " ").first.map(String.init)  // split skips leading spaces
    }
}
