// The viewer on a growing JSON Lines file and on a pipe, in a real terminal (tmux).
import Foundation
import Testing
import TestSupport

private func appendLine(_ text: String, to path: String) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    handle.seekToEndOfFile()
    handle.write(Data((text + "\n").utf8))
    try handle.close()
}

@Suite("The viewer follows a log")
struct ViewerFollowTests {
    @Test("a JSON Lines file opens at its newest line and follows appends; moving up pauses, G follows again")
    func followsAppendsLikeTailF() throws {
        let folder = try ScratchFolder()
        let file = folder.file("app.jsonl")
        try Data((0..<40).map { "{\"n\":\($0),\"level\":\"info\"}\n" }.joined().utf8).write(to: URL(fileURLWithPath: file))
        let session = try TerminalSession(try viewerCommand([file]), height: 12)
        var screen = try session.waitFor("the newest line selected") { $0.selectedKey == "39" && $0.contains("FOLLOWING") }
        #expect(screen.line(ofKey: "0") == nil)  // the start of the log is above the screen

        // An append (from a shell, as a logger's `>>`) is selected as it arrives.
        #expect(try runProgram("/bin/sh", ["-c", "echo '{\"n\":40,\"level\":\"error\"}' >> \"$1\"", "sh", file]).status == 0)
        screen = try session.waitFor("line 40 followed") { $0.selectedKey == "40" && $0.contains("FOLLOWING") }
        #expect(screen.hasRows(inOrder: ["38", "39", "40"]))

        // Moving up pauses: new lines come in below, the selection stays.
        try session.send("k", "k")
        try session.waitFor("paused at row 38") { $0.contains("paused at row 38") && $0.selectedKey == "38" }
        try appendLine("{oops", to: file)
        try appendLine("{\"n\":42}", to: file)
        screen = try session.waitFor("the bad line counted") { $0.contains("1 INVALID LINE") }
        #expect(screen.selectedKey == "38")
        #expect(screen.contains("paused at row 38"))

        // G follows again, and the bad line shows its error.
        try session.send("G")
        screen = try session.waitFor("following again") { $0.selectedKey == "42" && $0.contains("FOLLOWING") }
        #expect(screen.contains("invalid JSON at line 42, column 2"))
        try appendLine("{\"n\":43}", to: file)
        try session.waitFor("line 43 followed") { $0.selectedKey == "43" }

        // Truncated in place (copytruncate): the list starts over, and says so.
        #expect(try runProgram("/bin/sh", ["-c", ": > \"$1\" && echo '{\"n\":0,\"level\":\"new\"}' >> \"$1\"", "sh", file]).status == 0)
        screen = try session.waitFor("started over") { $0.contains("STARTED OVER: truncated") && $0.contains("1 row") }
        #expect(screen.selectedKey == "0")
        #expect(screen.contains("new"))
    }

    @Test("printf … | synctable view - shows the values as they arrive, keys from the terminal, and the input's end")
    func showsAPipe() throws {
        let folder = try ScratchFolder()
        let fifo = folder.file("more")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The pipe: two lines at once, then whatever the test writes into the fifo.
        let command = "(printf '{\"a\":1}\\n{\"a\":2}\\n'; cat " + shellQuoted(fifo) + ") | " + (try viewerCommand(["view", "-"]))
        let session = try TerminalSession("sh -c " + shellQuoted(command), height: 12)
        var screen = try session.waitFor("the first values") { $0.hasRows(inOrder: ["0", "1"]) && $0.selectedKey == "1" }
        #expect(screen.contains("FOLLOWING"))
        #expect(!screen.contains("INPUT ENDED"))
        let writer = try #require(FileHandle(forWritingAtPath: fifo))
        writer.write(Data("{\"a\":3}\n".utf8))
        screen = try session.waitFor("the third value") { $0.selectedKey == "2" }
        // Keys work although standard input is the pipe: k moves up.
        try session.send("k")
        try session.waitFor("paused at row 1") { $0.contains("paused at row 1") }
        try writer.close()
        screen = try session.waitFor("the input's end") { $0.contains("INPUT ENDED") }
        #expect(screen.hasRows(inOrder: ["0", "1", "2"]))
        try session.send("q")
        try session.waitFor("the exit status", history: true) { $0.contains("EXITED 0") }
    }

    @Test("view - with no terminal to read keys from exits 2 and says why")
    func noTerminalForKeys() throws {
        // setsid: a new session without a controlling terminal, so /dev/tty cannot be opened.
        let result = try runProgram("/usr/bin/setsid", [try synctableBinary(), "view", "-"])
        #expect(result.status == 2)
        #expect(result.errors.contains("no terminal (/dev/tty) to read keys from"), "\(result.errors)")
    }
}
