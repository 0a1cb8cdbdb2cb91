// The edit keys write through the store: the file changes, and the table follows.
import Foundation
import JSONTree
import Testing

@Suite("The viewer's edit keys")
struct ViewerEditTests {
    @Test("+ and - increment, e sets a cell (JSON or text), d deletes after asking, a adds a child with a push id")
    func editKeys() throws {
        let folder = try ScratchFolder()
        let file = folder.file("edits.json")
        try save(#"{"players": {"a": {"name": "Ann", "score": 10}, "b": {"name": "Bo", "score": 20}}}"#, to: file, style: .inPlace)
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players", "--order-by-child", "score"]))
        try session.waitFor("the rows") { $0.hasRows(inOrder: ["a", "b"]) && $0.selectedKey == "a" }

        // On the key column, the edit keys say why they cannot edit.
        try session.send("e")
        try session.waitFor("the refusal") { $0.contains("a key cannot be edited") }

        try session.send("Tab", "Tab", "+")
        waitForFile(file, "a's score 11") { number($0, "/players/a/score") == 11 }
        try session.waitFor("11 on screen") { $0.contains("/players/a/score +1") }
        try session.send("-", "-")
        waitForFile(file, "a's score 9") { number($0, "/players/a/score") == 9 }

        try session.send("e")
        try session.waitFor("the edit prompt, prefilled") { $0.contains("/players/a/score = 9") }
        try session.send("BSpace")
        try session.type("42")
        try session.send("Enter")
        waitForFile(file, "a's score 42") { number($0, "/players/a/score") == 42 }
        var screen = try session.waitFor("a after b") { $0.hasRows(inOrder: ["b", "a"]) && $0.selectedKey == "a" }

        try session.send("BTab", "e")
        try session.waitFor("the name prompt") { $0.contains("/players/a/name = Ann") }
        try session.send("C-u")
        try session.type("Zoë 42")
        try session.send("Enter")
        waitForFile(file, "a's new name") { string($0, "/players/a/name") == "Zoë 42" }

        try session.send("d")
        try session.waitFor("the question") { $0.contains("delete /players/a? (y/n)") }
        try session.send("n")
        screen = try session.waitFor("nothing deleted") { $0.contains("nothing deleted") }
        #expect(screen.line(ofKey: "a") != nil)
        try session.send("d", "y")
        waitForFile(file, "a removed") { $0.node(at: try! Path("/players/a")) == nil && number($0, "/players/b/score") == 20 }
        try session.waitFor("a gone") { $0.line(ofKey: "a") == nil && $0.line(ofKey: "b") != nil }

        try session.send("a")
        try session.waitFor("the add prompt, prefilled from the columns") { $0.contains(#"= {"name":"","score":0}"#) }
        try session.send("C-u")
        try session.type(#"{"name": "Neu", "score": 30}"#)
        try session.send("Enter")
        let text = waitForFile(file, "a pushed child") { root in
            guard let players = root.child("players") else { return false }
            return players.members.contains { $0.value.child("name")?.stringValue == "Neu" }
        }
        // The new key is a push id: 20 characters, after the existing keys.
        let document = try JSONDocument(parsing: Array(text.utf8))
        let keys = try #require(document.root.child("players")).members.compactMap { $0.key.stringValue }
        #expect(keys.count == 2 && keys[1].utf8.count == 20, "keys: \(keys)")
        try session.waitFor("the new row, selected") { $0.contains("Neu") && $0.selectedKey == keys[1] }
    }

    // Issue 13 item 1: a write waits for another writer's lock off the loop thread, so the keys
    // keep working meanwhile.
    @Test("keys keep working while a write waits for another writer's lock")
    func keysWorkWhileAWriteWaits() throws {
        let folder = try ScratchFolder()
        let file = folder.file("edits.json")
        try save(#"{"players": {"a": {"name": "Ann", "score": 10}}}"#, to: file, style: .inPlace)
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players"]))
        try session.waitFor("the rows") { $0.hasRows(inOrder: ["a"]) && $0.selectedKey == "a" }
        // Another process holds the file's lock (and its folder's, which older writers took)
        // until `go` exists.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [folder.path, "/usr/bin/flock", file, "/bin/sh", "-c", #"touch "$1.held"; while [ ! -e "$1.go" ]; do sleep 0.01; done"#, "sh", file]
        try holder.run()
        defer { holder.waitUntilExit() }
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: file + ".held") && Date() < deadline { usleep(10_000) }

        try session.send("Tab", "Tab", "+")
        try session.send("?")
        try session.waitFor("the help screen, while the write waits") { $0.contains("next row") && $0.contains("previous row") }
        #expect(number(try JSONDocument(parsing: Array(try String(contentsOfFile: file, encoding: .utf8).utf8)).root, "/players/a/score") == 10)
        try session.send("j")

        FileManager.default.createFile(atPath: file + ".go", contents: Data())
        waitForFile(file, "a's score 11") { number($0, "/players/a/score") == 11 }
        try session.waitFor("the message") { $0.contains("/players/a/score +1") }
    }
}
