// A write from the viewer waits for another writer's lock off the loop thread: this needs a real
// terminal and a real second process. The edit keys themselves are tested in-process (ViewerCoreTests).
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite("The viewer's writes")
struct ViewerEditTests {
    // Issue 13 item 1: a write waits for another writer's lock off the loop thread, so the keys
    // keep working meanwhile.
    @Test("keys keep working while a write waits for another writer's lock")
    func keysWorkWhileAWriteWaits() throws {
        let folder = ScratchFolder()
        let file = folder.file("edits.json")
        try save(#"{"players": {"a": {"name": "Ann", "score": 10}}}"#, to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players", "--edit"]))
        try session.waitFor("the rows") { $0.hasRows(inOrder: ["a"]) && $0.selectedKey == "a" }
        // Another process holds the file's lock (and its folder's, which older writers took)
        // until `go` exists.
        let holder = try spawnProgram(["/usr/bin/flock", folder.path, "/usr/bin/flock", file, "/bin/sh", "-c",
                                       #"touch "$1.held"; while [ ! -e "$1.go" ]; do sleep 0.01; done"#, "sh", file])
        defer { waitForExit(holder.pid) }
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: file + ".held") && Date() < deadline { usleep(10_000) }

        try session.send("Tab", "Tab", "+")
        try session.send("?")
        try session.waitFor("the help screen, while the write waits") { $0.contains("next row") && $0.contains("previous row") }
        #expect(number(try JSONDocument(parsing: Array(try String(contentsOfFile: file, encoding: .utf8).utf8)).root, "/players/a/score") == 10)
        // j scrolls the help while the write waits; ? closes it, and the table shows the message.
        try session.send("j", "?")
        try session.waitFor("the table, while the write waits") { !$0.contains("next row") && $0.hasRows(inOrder: ["a"]) }

        FileManager.default.createFile(atPath: file + ".go", contents: Data())
        waitForFile(file, "a's score 11") { number($0, "/players/a/score") == 11 }
        // No key after this: any key in the table clears the message (as one sent here did,
        // when the write finished first).
        try session.waitFor("the message") { $0.contains("/players/a/score +1: 10 → 11") }
    }

    // Issue 49 item 1: a viewer is a guest: keys write only when the user allowed it.
    @Test("without --edit, + says in one line how to allow writes and the file keeps its bytes; \"edit\": true in the configuration allows them")
    func readOnlyUnlessAllowed() throws {
        let folder = ScratchFolder()
        let file = folder.file("edits.json")
        let content = #"{"players": {"a": {"name": "Ann", "score": 10}}}"#
        try save(content, to: file, style: .inPlace)
        let guest = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]))
        try guest.waitFor("the rows") { $0.hasRows(inOrder: ["a"]) && $0.selectedKey == "a" }
        try guest.send("Tab", "Tab", "+")
        try guest.waitFor("the refusal, on one line") { $0.contains("read-only: + does not write — start with --edit to change the file") }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == content)
        try guest.send("q")
        try guest.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }

        try FileManager.default.createDirectory(atPath: folder.file("xdg/synctable"), withIntermediateDirectories: true)
        _ = folder.write("xdg/synctable/config.json", #"{"flags": {"edit": true}}"#)
        let editor = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"], environment: ["XDG_CONFIG_HOME": folder.file("xdg")]))
        try editor.waitFor("the rows") { $0.hasRows(inOrder: ["a"]) && $0.selectedKey == "a" }
        try editor.send("Tab", "Tab", "+")
        waitForFile(file, "a's score 11") { number($0, "/players/a/score") == 11 }
        try editor.waitFor("the write's message") { $0.contains("/players/a/score +1: 10 → 11") }
    }
}
