// The edit keys write through the store: the file changes, and the table follows.
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("The viewer's edit keys")
struct ViewerEditTests {
    /// The file's current content, parsed.
    static func root(_ h: ViewerHarness) throws -> JSONNode {
        try JSONDocument(parsing: Array(try #require(readFileText(h.file)).utf8)).root
    }

    @Test("+ and - increment, e sets a cell (JSON or text), d deletes after asking, a adds a child with a push id")
    func editKeys() throws {
        let json = #"{"players": {"a": {"name": "Ann", "score": 10}, "b": {"name": "Bo", "score": 20}}}"#
        let h = try ViewerHarness(json, path: "/players") { options in
            options.query = ViewQuery(flags: try! Query().orderByChild(Path("score")), pageSize: 200)
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
}
