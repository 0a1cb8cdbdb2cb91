// Running the built `tabledemo` in real terminals, with TestSupport's tmux driver.
import Foundation
import Testing
import TestSupport

extension TmuxSession {
    /// Starts `command` (a shell command line) with core dumps off and without the test
    /// runner's `NO_COLOR`; when it ends, the shell prints `exit=STATUS` and stays (a pane that
    /// dies at once can lose its first output, even with remain-on-exit).
    convenience init(_ name: String, width: Int, height: Int, command: String) throws {
        let script = "ulimit -c 0; env -u NO_COLOR \(command); echo exit=$?; sleep 600"
        try self.init("sh -c '" + script.replacingOccurrences(of: "'", with: #"'\''"#) + "'",
                      name: "tableui-\(name)", width: width, height: height)
    }

    /// Waits until the tmux format `format` (a mode of the pane) reads `value`.
    func waitForMode(_ what: String, _ format: String, _ value: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let deadline = Date().addingTimeInterval(15)
        var last = ""
        repeat {
            last = try self.format(format)
            if last == value { return }
            usleep(30_000)
        } while Date() < deadline
        Issue.record("never saw \(what): \(format) is \(last)", sourceLocation: sourceLocation)
    }

    /// Waits for the program to end; its exit status as the shell reports it.
    func waitForExit(sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        let screen = try waitForScreen("the program's exit", sourceLocation: sourceLocation) {
            $0.contains { $0.hasPrefix("exit=") }
        }
        return screen.first { $0.hasPrefix("exit=") }.map { String($0.dropFirst(5)) }
    }
}
