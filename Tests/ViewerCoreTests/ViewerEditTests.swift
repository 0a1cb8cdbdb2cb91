// The edit keys write through the store: the file changes, and the table follows.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("The viewer's edit keys")
struct ViewerEditTests {
    /// Runs the loop until the file satisfies `condition`: writes finish off the loop thread.
    static func waitForFile(_ h: ViewerHarness, _ what: String, _ condition: @escaping (JSONNode) -> Bool) throws {
        try h.waitUntil(what) { _ in (try? Self.root(h)).map(condition) ?? false }
    }

    /// The file's current content, parsed.
    static func root(_ h: ViewerHarness) throws -> JSONNode {
        try JSONDocument(parsing: Array(try #require(readFileText(h.file)).utf8)).root
    }

    @Test("+ and - increment, e sets a cell (JSON or text), d deletes after asking, a adds a child with a push id")
    func editKeys() throws {
        let json = #"{"players": {"a": {"name": "Ann", "score": 10}, "b": {"name": "Bo", "score": 20}}}"#
        let h = try ViewerHarness(json, path: "/players") { options in
            options.query = ViewQuery(flags: try! Query().orderByChild(Path("score")), pageSize: 200)
            options.edit = true
        }
        #expect(h.hasRows(inOrder: ["a", "b"]) && h.selectedKey == "a")

        // On the key column, the edit keys say why they cannot edit.
        h.send(.character("e"))
        #expect(h.screen.contains("a key cannot be edited"))

        h.send(.tab, .tab, .character("+"))
        try h.waitForWrites()
        #expect(try Self.root(h).node(at: Path("/players/a/score"))?.numberText == "11")
        #expect(h.screen.contains("/players/a/score +1"))
        h.send(.character("-"), .character("-"))
        try h.waitForWrites()
        #expect(try Self.root(h).node(at: Path("/players/a/score"))?.numberText == "9")
        // Two writes started together: the second's result may reach the table with the file's
        // next read rather than with the write (a revision was published in between).
        try h.waitUntil("9 on screen") { _ in h.lines.first { $0.contains("Ann") }?.contains(" 9") == true }

        h.send(.character("e"))
        #expect(h.screen.contains("/players/a/score = 9"))
        h.send(.backspace)
        h.type("42")
        h.send(.enter)
        try h.waitForWrites()
        #expect(try Self.root(h).node(at: Path("/players/a/score"))?.numberText == "42")
        try h.waitUntil("a after b") { _ in h.hasRows(inOrder: ["b", "a"]) && h.selectedKey == "a" }

        h.send(.backTab, .character("e"))
        #expect(h.screen.contains("/players/a/name = Ann"))
        h.send(.character("\u{15}"))
        h.type("Zoë 42")
        h.send(.enter)
        try h.waitForWrites()
        #expect(try Self.root(h).node(at: Path("/players/a/name"))?.stringValue == "Zoë 42")

        h.send(.character("d"))
        #expect(h.screen.contains("delete /players/a? (y/n)"))
        h.send(.character("n"))
        #expect(h.screen.contains("nothing deleted") && h.line(ofKey: "a") != nil)
        h.send(.character("d"), .character("y"))
        try h.waitForWrites()
        #expect(try Self.root(h).node(at: Path("/players/a")) == nil)
        try h.waitUntil("a gone") { _ in h.line(ofKey: "a") == nil && h.line(ofKey: "b") != nil }

        h.send(.character("a"))
        #expect(h.screen.contains(#"= {"name":"","score":0}"#))
        h.send(.character("\u{15}"))
        h.type(#"{"name": "Neu", "score": 30}"#)
        h.send(.enter)
        try h.waitForWrites()
        let players = try #require(try Self.root(h).child("players"))
        let keys = players.members.compactMap { $0.key.stringValue }
        // The new key is a push id: 20 characters, after the existing keys.
        #expect(keys.count == 2 && keys[1].utf8.count == 20, "keys: \(keys)")
        #expect(players.child(keys[1])?.child("name")?.stringValue == "Neu")
        try h.waitUntil("the new row, selected") { $0.contains("Neu") && h.selectedKey == keys[1] }
    }

    // Issue 49 item 3: an array takes no push id.
    @Test("a on an array adds at its next index, as synctable push does, and selects the new row")
    func addToAnArray() throws {
        let json = #"{"3166-1": [{"alpha_2": "AD", "name": "Andorra"}, {"alpha_2": "AE", "name": "United Arab Emirates"}]}"#
        let h = try ViewerHarness(json, columns: 100, path: "/3166-1") { $0.edit = true }
        h.send(.character("a"))
        #expect(h.screen.contains(#"new child of /3166-1 = {"alpha_2":"","name":""}"#), "\(h.screen)")
        h.send(.character("\u{15}"))
        h.type(#"{"alpha_2": "AF", "name": "Afghanistan"}"#)
        h.send(.enter)
        try h.waitForWrites()
        let array = try #require(try Self.root(h).child("3166-1"))
        #expect(array.kind == .array && array.count == 3, "\(readFileText(h.file) ?? "")")
        #expect(array.child("2")?.child("name")?.stringValue == "Afghanistan")
        try h.waitUntil("the new row, selected") { $0.contains("added /3166-1/2") && $0.contains("Afghanistan") && h.selectedKey == "2" }
    }

    // Issue 16: a write to a large file runs off the loop thread; the status bar says so until
    // it is done, and the keys keep working meanwhile.
    @Test("the status bar shows a write until it is done, and keys work meanwhile")
    func statusBarShowsAWriteInFlight() throws {
        let h = try ViewerHarness(itemsJSON(50), path: "/items") { $0.edit = true }
        // Another writer holds the file's lock, so the viewer's write waits for it.
        let fd = open(h.file, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let selected = h.selectedKey
        h.send(.tab, .character("+"))
        try h.waitUntil("the write shown") { $0.contains("WRITING") }
        h.send(.character("j"))
        #expect(h.selectedKey != selected && h.screen.contains("WRITING"))
        flock(fd, LOCK_UN)
        try h.waitUntil("the write done") { $0.contains("+1") && !$0.contains("WRITING") }
    }
}
