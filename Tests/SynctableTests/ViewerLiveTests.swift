// The viewer in a real terminal (tmux) following a file that another process saves.
import Foundation
import Testing

@Suite("The viewer follows the file")
struct ViewerLiveTests {
    @Test("rows appear, move and vanish in every save style; the selection stays on its key; an invalid save shows its error while the table stays")
    func followsEverySaveStyle() throws {
        let folder = try ScratchFolder()  // under .build, not /tmp
        let file = folder.file("scores.json")
        try save(leaderboard([("a", 10), ("b", 20), ("c", 30)]), to: file, style: .inPlace)
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players", "--order-by-child", "score"]))
        try session.waitFor("the first rows") { $0.hasRows(inOrder: ["a", "b", "c"]) }
        try session.send("j", "j")
        try session.waitFor("c selected") { $0.selectedKey == "c" }

        // In place: a new row appears at its place in the score order, above the selection.
        try save(leaderboard([("a", 10), ("b", 20), ("c", 30), ("d", 25)]), to: file, style: .inPlace)
        var screen = try session.waitFor("d between b and c") { $0.hasRows(inOrder: ["a", "b", "d", "c"]) }
        #expect(screen.selectedKey == "c")
        #expect(screen.contains("4 rows"))

        // Temporary file and rename: a changed score moves its row.
        try save(leaderboard([("a", 40), ("b", 20), ("c", 30), ("d", 25)]), to: file, style: .rename)
        screen = try session.waitFor("a moved to the end") { $0.hasRows(inOrder: ["b", "d", "c", "a"]) }
        #expect(screen.selectedKey == "c")
        #expect(screen.contains("40"))

        // Delete and re-create: a deleted row disappears.
        try save(leaderboard([("a", 40), ("c", 30), ("d", 25)]), to: file, style: .recreate)
        screen = try session.waitFor("b gone") { $0.line(ofKey: "b") == nil && $0.hasRows(inOrder: ["d", "c", "a"]) }
        #expect(screen.selectedKey == "c")

        // An invalid save: the error with its line and column, and the last good table.
        try save("{\"players\": {\n  \"a\": {\"score\": 40},\n  \"c\": {\"score\": }\n}}\n", to: file, style: .inPlace)
        screen = try session.waitFor("the parse error") { $0.contains("invalid JSON at line 3, column 18") }
        #expect(screen.hasRows(inOrder: ["d", "c", "a"]))
        #expect(screen.contains("INVALID JSON"))
        #expect(screen.selectedKey == "c")

        // Valid again: the error goes, the new state shows.
        try save(leaderboard([("c", 30), ("d", 25), ("e", 5)]), to: file, style: .rename)
        screen = try session.waitFor("the repaired file") {
            $0.hasRows(inOrder: ["e", "d", "c"]) && $0.line(ofKey: "a") == nil && !$0.contains("invalid JSON")
        }
        #expect(screen.selectedKey == "c")
    }

    @Test("a resize keeps the selection; q leaves the alternate screen and restores the shell")
    func resizeAndQuit() throws {
        let folder = try ScratchFolder()
        let file = folder.file("many.json")
        try save(leaderboard((0..<60).map { (String(format: "k%02d", $0), $0) }), to: file, style: .inPlace)
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players", "--order-by-child", "score"]))
        try session.waitFor("the first rows") { $0.hasRows(inOrder: ["k00", "k01"]) }
        try session.tmux(["send-keys"] + Array(repeating: "j", count: 40))
        try session.waitFor("k40 selected") { $0.selectedKey == "k40" }

        try session.resize(width: 70, height: 12)
        // The status bar is the second line from the bottom.
        var screen = try session.waitFor("the smaller screen") { $0.line(10).contains("many.json") && $0.selectedKey == "k40" }
        #expect(screen.contains("[key]"))
        try session.resize(width: 120, height: 40)
        screen = try session.waitFor("the larger screen") { $0.line(38).contains("many.json") && $0.selectedKey == "k40" }

        try session.send("q")
        screen = try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
        #expect(!screen.contains("[key]"), "the table is still on screen:\n\(screen.text)")
        #expect(try session.tmux(["display-message", "-p", "#{alternate_on}"]).hasPrefix("0"))
    }

    @Test("Ctrl-C (SIGINT), SIGTERM and a crash signal end the viewer with the terminal restored")
    func signalsRestoreTheTerminal() throws {
        let folder = try ScratchFolder(underTmp: true)
        let file = folder.file("scores.json")
        try save(leaderboard([("a", 1)]), to: file, style: .inPlace)

        let interrupted = try TerminalSession(try viewerCommand([file, "--path", "/players"]))
        try interrupted.waitFor("the table") { $0.line(ofKey: "a") != nil }
        try interrupted.send("C-c")
        let screen = try interrupted.waitFor("the shell back after SIGINT", history: true) { $0.contains("EXITED 130") }
        #expect(!screen.contains("[key]"))
        #expect(try interrupted.tmux(["display-message", "-p", "#{alternate_on}"]).hasPrefix("0"))

        for (signal, status) in [(SIGTERM, 143), (SIGSEGV, 139)] {
            let session = try TerminalSession(try viewerCommand([file, "--path", "/players"]))
            try session.waitFor("the table") { $0.line(ofKey: "a") != nil }
            // The pane runs sh, whose one child is synctable.
            let shell = try session.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
            let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            let viewer = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
            #expect(kill(viewer, signal) == 0)
            let screen = try session.waitFor("the shell back after signal \(signal)", history: true) { $0.contains("EXITED \(status)") }
            #expect(!screen.contains("[key]"), "signal \(signal) left the table on screen:\n\(screen.text)")
            #expect(try session.tmux(["display-message", "-p", "#{alternate_on}"]).hasPrefix("0"))
        }
    }

    // Issue 13 item 7: these signals left the terminal raw (exit 141, 138, …).
    @Test("SIGPIPE, SIGUSR1/2, SIGALRM and a real-time signal restore the terminal too")
    func everyEndingSignalRestoresTheTerminal() throws {
        let folder = try ScratchFolder(underTmp: true)
        let file = folder.file("scores.json")
        try save(leaderboard([("a", 1)]), to: file, style: .inPlace)
        for signal in [SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, __libc_current_sigrtmin() + 1] {
            let session = try TerminalSession(try viewerCommand([file, "--path", "/players"]))
            try session.waitFor("the table") { $0.line(ofKey: "a") != nil }
            let shell = try session.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
            let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            let viewer = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
            #expect(kill(viewer, signal) == 0)
            let screen = try session.waitFor("the shell back after signal \(signal)", history: true) { $0.contains("EXITED \(128 + signal)") }
            #expect(!screen.contains("[key]"), "signal \(signal) left the table on screen:\n\(screen.text)")
            #expect(try session.tmux(["display-message", "-p", "#{alternate_on}"]).hasPrefix("0"))
        }
    }

    @Test("a missing file is waited for")
    func waitsForAMissingFile() throws {
        let folder = try ScratchFolder(underTmp: true)
        let file = folder.file("later.json")
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players"]))
        let screen = try session.waitFor("the missing file") { $0.contains("does not exist yet") }
        #expect(screen.contains("FILE MISSING"))
        try save(leaderboard([("x", 1), ("y", 2)]), to: file, style: .rename)
        try session.waitFor("the rows") { $0.hasRows(inOrder: ["x", "y"]) && !$0.contains("FILE MISSING") }
    }
}
