// The viewer on a pipe, in a real terminal (tmux): keys from /dev/tty while standard input is
// the data. Following a log file (FOLLOWING, paused, G) is tested in-process (ViewerCoreTests).
import Foundation
import Testing
import TestSupport

@Suite("The viewer reads a pipe")
struct ViewerPipeTests {
    @Test("printf … | synctable view - shows the values as they arrive, keys from the terminal, and the input's end")
    func showsAPipe() throws {
        let folder = ScratchFolder()
        let fifo = folder.file("more")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The pipe: two lines at once, then whatever the test writes into the fifo.
        let command = "(printf '{\"a\":1}\\n{\"a\":2}\\n'; cat " + shellQuoted(fifo) + ") | " + (try viewerCommand(["view", "-"]))
        let session = try TmuxSession(viewer: "sh -c " + shellQuoted(command), height: 12)
        var screen = try session.waitFor("the first values") { $0.hasRows(inOrder: ["0", "1"]) && $0.selectedKey == "1" && $0.contains("FOLLOWING") }
        #expect(!screen.contains("INPUT ENDED"))
        // Close-on-exec: a process another test starts meanwhile (a tmux server lives on) must
        // not inherit the write end, or the input would never end.
        let fd = open(fifo, O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        let writer = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        writer.write(Data("{\"a\":3}\n".utf8))
        screen = try session.waitFor("the third value") { $0.selectedKey == "2" }
        // Keys work although standard input is the pipe: k moves up.
        try session.send("k")
        try session.waitFor("paused at row 1") { $0.contains("paused at row 1") }
        try writer.close()
        screen = try session.waitFor("the input's end, every row") { $0.contains("INPUT ENDED") && $0.hasRows(inOrder: ["0", "1", "2"]) }
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
