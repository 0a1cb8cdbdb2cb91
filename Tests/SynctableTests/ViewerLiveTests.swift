// What the viewer does that needs a real terminal (tmux): resizes, quitting, and signals that
// must leave the terminal restored. Following the file is tested in-process (ViewerCoreTests).
import Foundation
import Testing
import TestSupport

@Suite("The viewer follows the file")
struct ViewerLiveTests {
    @Test("a resize keeps the selection; q leaves the alternate screen and restores the shell")
    func resizeAndQuit() throws {
        let folder = ScratchFolder()
        let file = folder.file("many.json")
        try save(leaderboard((0..<60).map { (String(format: "k%02d", $0), $0) }), to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players", "--order-by-child", "score"]))
        try session.waitFor("the first rows") { $0.hasRows(inOrder: ["k00", "k01"]) }
        try session.tmux(["send-keys"] + Array(repeating: "j", count: 40))
        try session.waitFor("k40 selected") { $0.selectedKey == "k40" }

        try session.resize(width: 70, height: 12)
        // The status bar is the second line from the bottom.
        var screen = try session.waitFor("the smaller screen") { $0.line(10).contains("many.json") && $0.selectedKey == "k40" && $0.line(0).contains("key")
        }
        try session.resize(width: 120, height: 40)
        screen = try session.waitFor("the larger screen") { $0.line(38).contains("many.json") && $0.selectedKey == "k40" }

        try session.send("q")
        screen = try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
        #expect(!screen.contains("/players · "), "the table is still on screen:\n\(screen.text)")
        #expect(try session.tmux(["display-message", "-p", "#{alternate_on}"]).hasPrefix("0"))
    }

    @Test("Ctrl-C (SIGINT), SIGTERM and a crash signal end the viewer with the terminal restored")
    func signalsRestoreTheTerminal() throws {
        let folder = ScratchFolder(underTmp: true)
        let file = folder.file("scores.json")
        try save(leaderboard([("a", 1)]), to: file, style: .inPlace)

        let interrupted = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]))
        try interrupted.waitFor("the table") { $0.line(ofKey: "a") != nil }
        try interrupted.send("C-c")
        let screen = try interrupted.waitFor("the shell back after SIGINT", history: true) { $0.contains("EXITED 130") }
        #expect(!screen.contains("/players · "))
        #expect(try interrupted.tmux(["display-message", "-p", "#{alternate_on}"]).hasPrefix("0"))

        for (signal, status) in [(SIGTERM, 143), (SIGSEGV, 139)] {
            let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]))
            try session.waitFor("the table") { $0.line(ofKey: "a") != nil }
            try signalViewer(in: session, signal)
            let screen = try session.waitFor("the shell back after signal \(signal)", history: true) { $0.contains("EXITED \(status)") }
            #expect(!screen.contains("/players · "), "signal \(signal) left the table on screen:\n\(screen.text)")
            #expect(try session.tmux(["display-message", "-p", "#{alternate_on}"]).hasPrefix("0"))
        }
    }

    // Issue 13 item 7: these signals left the terminal raw (exit 141, 138, …).
    @Test("SIGPIPE, SIGUSR1/2, SIGALRM and a real-time signal restore the terminal too")
    func everyEndingSignalRestoresTheTerminal() throws {
        let folder = ScratchFolder(underTmp: true)
        let file = folder.file("scores.json")
        try save(leaderboard([("a", 1)]), to: file, style: .inPlace)
        for signal in [SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, __libc_current_sigrtmin() + 1] {
            let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]))
            try session.waitFor("the table") { $0.line(ofKey: "a") != nil }
            try signalViewer(in: session, signal)
            let screen = try session.waitFor("the shell back after signal \(signal)", history: true) { $0.contains("EXITED \(128 + signal)") }
            #expect(!screen.contains("[key]"), "signal \(signal) left the table on screen:\n\(screen.text)")
            #expect(try session.tmux(["display-message", "-p", "#{alternate_on}"]).hasPrefix("0"))
        }
    }

    /// Sends `signal` to the synctable of `session`: the pane runs sh, whose one child it is.
    private func signalViewer(in session: TmuxSession, _ signal: Int32) throws {
        let shell = try session.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        let viewer = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
        #expect(kill(viewer, signal) == 0)
    }
}
