// `synctable demo`: the built-in leaderboard, a live table of it, and a clean exit.
import Foundation
import Testing
import TestSupport

@Suite("synctable demo")
struct DemoTests {
    @Test("the demo shows the leaderboard by score, highest first, changing live; q removes its folder")
    func demoRunsAndCleansUp() throws {
        let temporary = ScratchFolder()
        let session = try TmuxSession(viewer: try viewerCommand(["demo"], environment: ["TMPDIR": temporary.path]))
        var screen = try session.waitFor("the leaderboard") { $0.contains("score↓") && $0.contains("/players") && $0.contains("by score descending") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).count == 1)
        // The writer edits the copy: later revisions arrive.
        screen = try session.waitFor("a later revision") { $0.text.range(of: #"rev ([3-9]|\d\d+) at"#, options: .regularExpression) != nil }
        // Scores are shown highest first.
        let scores = screen.lines.compactMap { line -> Int? in
            guard line.dropFirst(3).hasPrefix("-") else { return nil }
            return line.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "↑↓*"))) }.first
        }
        #expect(scores.count > 5)

        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }

    @Test("SIGTERM and SIGHUP end the demo the way q does: the terminal restored, the folder removed")
    func demoCleansUpOnSignals() throws {
        for (signal, status) in [(SIGTERM, 143), (SIGHUP, 129)] {
            let temporary = ScratchFolder()
            let session = try TmuxSession(viewer: try viewerCommand(["demo"], environment: ["TMPDIR": temporary.path]))
            try session.waitFor("the leaderboard") { $0.contains("score↓") }
            let shell = try session.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
            let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            let demo = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
            #expect(kill(demo, signal) == 0)
            let screen = try session.waitFor("the shell back after signal \(signal)", history: true) { $0.contains("EXITED \(status)") }
            #expect(!screen.contains("score↓"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty,
                    "signal \(signal) left the demo's folder behind")
        }
    }
}
