// The one tmux driver of the terminal tests: a tmux server of its own per session, keys sent
// with send-keys, the screen read back with capture-pane.
import Foundation
import Synchronization
import Testing

private let sessionCounter = Atomic<Int>(0)

/// A tmux server on a private socket running one shell command line in a detached session;
/// the server is killed (and its socket removed) when the value goes away. The pane stays
/// when the command ends (remain-on-exit), so the screen it leaves can still be read.
public final class TmuxSession {
    public let socket: String

    /// - Parameters:
    ///   - command: a shell command line, run in a UTF-8 locale.
    ///   - name: names the socket after the test.
    public init(_ command: String, name: String = "session", width: Int = 100, height: Int = 30) throws {
        let n = sessionCounter.add(1, ordering: .relaxed).newValue
        socket = "test-\(name)-\(getpid())-\(n)"
        try run(capture: false, ["-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)",
                                 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 \(command)",
                                 ";", "set-option", "-g", "remain-on-exit", "on",
                                 ";", "set-option", "-s", "set-clipboard", "on"])
    }

    deinit {
        let socketPath = (try? format("#{socket_path}"))
        _ = try? run(["kill-server"])
        // The server leaves its socket behind when killed.
        if let socketPath, socketPath.hasSuffix("/" + socket) { unlink(socketPath) }
    }

    /// Runs a tmux command on this server; its output.
    @discardableResult
    public func run(capture: Bool = true, _ arguments: [String]) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        environment["LANG"] = "C.UTF-8"
        environment.removeValue(forKey: "TMUX")
        return try runProgram("/usr/bin/env", ["tmux", "-L", socket] + arguments, environment: environment,
                              capture: capture).output
    }

    /// The screen, one string per line; with `history`, the lines scrolled off above it first.
    public func screen(history: Bool = false) throws -> [String] {
        try run(["capture-pane", "-p"] + (history ? ["-S", "-"] : []))
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Sends keys (tmux names: `Enter`, `BSpace`, `Tab`, `C-c`, or literal text).
    public func send(_ keys: String...) throws { try run(["send-keys"] + keys) }

    /// Sends text literally, character by character.
    public func type(_ text: String) throws { try run(["send-keys", "-l", text]) }

    public func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-x", "\(width)", "-y", "\(height)"])
    }

    /// A tmux format (`#{pane_dead}`, `#{alternate_on}`…) for the pane.
    public func format(_ format: String) throws -> String {
        try run(["display-message", "-p", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pid of the program the pane's shell runs (its first child).
    public func programPID() throws -> pid_t {
        let shell = try format("#{pane_pid}")
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        return try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "no program under the shell")
    }

    /// Polls the screen (with `history`, also what scrolled off) until `condition` holds (up to
    /// `seconds`); records an issue showing the last screen when it never does.
    @discardableResult
    public func waitForScreen(_ what: String, seconds: Double = 15, history: Bool = false,
                              sourceLocation: SourceLocation = #_sourceLocation,
                              _ condition: ([String]) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String] = []
        repeat {
            last = try screen(history: history)
            if condition(last) { return last }
            usleep(30_000)
        } while Date() < deadline
        Issue.record("never saw \(what); the screen was:\n\(last.joined(separator: "\n"))", sourceLocation: sourceLocation)
        return last
    }
}
