// The viewer's keys, in-process: the query keys, paging, pausing, moving between locations,
// the JSON pane and copying a path.
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import ViewerCore

@Suite("The viewer's keys")
struct ViewerKeysTests {
    /// Four players whose names and scores order differently.
    static let players = """
        {"players": {
          "a": {"name": "Zed", "score": 5},
          "b": {"name": "Amy", "score": 50},
          "c": {"name": "Bob", "score": 20},
          "d": {"name": "Ann", "score": 35}
        }}
        """

    /// `{"players": {KEY: {"name": KEY, "score": SCORE}, …}}`.
    static func leaderboard(_ players: [(String, Int)]) -> String {
        "{\"players\": {" + players.map { "\"\($0.0)\": {\"name\": \"\($0.0)\", \"score\": \($0.1)}" }.joined(separator: ", ") + "}}"
    }

    /// The title of the column under the cursor (its header cell is in reverse video).
    static func cursorTitle(_ h: ViewerHarness) -> String {
        let header = h.lines[0]
        let cells = Array(header)
        let marked = cells.indices.filter { h.canvas.style(line: 0, column: $0).attributes.contains(.reverse) }
        guard let first = marked.first, let last = marked.last else { return "" }
        return String(cells[first...last]).split(separator: " ").joined(separator: " ")
    }

    @Test("s sorts by the column under the cursor, S by key, r reverses, f filters (a value or a prefix), Esc clears")
    func queryKeys() throws {
        let h = try ViewerHarness(memory: ViewerKeysTests.players, path: "/players")
        #expect(h.hasRows(inOrder: ["a", "b", "c", "d"]) && ViewerKeysTests.cursorTitle(h) == "key")

        h.send(.tab)
        #expect(ViewerKeysTests.cursorTitle(h) == "name")
        h.send(.character("s"))
        var screen = try h.waitUntil("name order") { _ in h.hasRows(inOrder: ["b", "d", "c", "a"]) }
        #expect(screen.contains("by name") && ViewerKeysTests.cursorTitle(h) == "name↑")

        h.send(.character("r"))
        screen = try h.waitUntil("name order, reversed") { _ in h.hasRows(inOrder: ["a", "c", "d", "b"]) }
        // Pages are no limit the user gave (issue 40 item 10): the words do not name one.
        #expect(screen.contains("by name descending ·") && ViewerKeysTests.cursorTitle(h) == "name↓")

        h.send(.tab, .character("f"))
        #expect(h.screen.contains("filter score:"))
        h.type("35")
        h.send(.enter)
        screen = try h.waitUntil("only d") { _ in h.line(ofKey: "d") != nil && ["a", "b", "c"].allSatisfy { h.line(ofKey: $0) == nil } }
        #expect(screen.contains("score = 35"))

        h.send(.escape)
        try h.waitUntil("every row by score, descending") { _ in h.hasRows(inOrder: ["b", "d", "c", "a"]) && !h.screen.contains("score = 35") }

        h.send(.character("S"))
        try h.waitUntil("key order, descending") { _ in h.hasRows(inOrder: ["d", "c", "b", "a"]) && h.screen.contains("by key descending") }

        h.send(.backTab, .character("f"))
        #expect(h.screen.contains("filter name:"))
        h.type("A*")
        h.send(.enter)
        screen = try h.waitUntil("names starting with A") { _ in
            h.hasRows(inOrder: ["d", "b"]) && h.line(ofKey: "a") == nil && h.line(ofKey: "c") == nil
        }
        #expect(screen.contains(#"name starts with "A""#))
    }

    @Test("near the end of a paged window the next page loads")
    func paging() throws {
        let json = ViewerKeysTests.leaderboard((0..<12).map { ("k" + ($0 < 10 ? "0" : "") + "\($0)", $0) })
        let paged: (inout ViewerOptions) -> Void = { options in
            options.pageSize = 5
            options.query = ViewQuery(flags: Query(), pageSize: 5)
        }
        // The screen holds more rows than a page, so the first page is already "near the end".
        let tall = try ViewerHarness(memory: json, path: "/players", configure: paged)
        try tall.waitUntil("every page") { _ in tall.hasRows(inOrder: ["k00", "k05", "k11"]) && tall.screen.contains("12 rows ·") }

        // 6 lines: header, 3 rows, status bar, message line.
        let small = try ViewerHarness(memory: json, rows: 6, path: "/players", configure: paged)
        let first = try small.waitUntil("the first page") { $0.contains("5 rows of 12") }
        #expect(!first.contains("first 5") && small.line(ofKey: "k00") != nil)
        // G goes to the real last row, loading every page to it (issue 40 item 5).
        small.send(.character("G"))
        try small.waitUntil("the last page") { $0.contains("12 rows") && !$0.contains("of 12") && small.selectedKey == "k11" }
    }

    @Test("p pauses live updates (a badge counts what waits) and applies them as one batch when resumed")
    func pause() throws {
        let h = try ViewerHarness(memory: ViewerKeysTests.leaderboard([("a", 1), ("b", 2)]), columns: 120, path: "/players") { options in
            options.query = ViewQuery(flags: try! Query().orderByChild(Path("score")), pageSize: 200)
        }
        #expect(h.hasRows(inOrder: ["a", "b"]))
        h.send(.character("p"))
        #expect(h.screen.contains("PAUSED: 0 waiting"))
        try h.save(ViewerKeysTests.leaderboard([("a", 1), ("b", 2), ("z", 0)]))
        var screen = try h.waitUntil("one waiting") { $0.contains("PAUSED: 1 waiting") }
        #expect(h.line(ofKey: "z") == nil)
        try h.save(ViewerKeysTests.leaderboard([("a", 3), ("b", 2), ("z", 0)]))
        screen = try h.waitUntil("two waiting") { $0.contains("PAUSED: 2 waiting") }
        #expect(h.hasRows(inOrder: ["a", "b"]), "\(screen)")
        h.send(.character("p"))
        try h.waitUntil("both changes") { screen in h.hasRows(inOrder: ["z", "b", "a"]) && !screen.contains("PAUSED") }
    }

    @Test("Enter opens a child, Backspace goes back to it; v shows its JSON; y copies its path")
    func locations() throws {
        let json = #"{"players": {"a": {"name": "Ann", "score": 7, "tags": ["red", "blue"]}, "b": {"name": "Bo", "score": 9}}}"#
        let h = try ViewerHarness(memory: json, path: "/players")
        #expect(h.hasRows(inOrder: ["a", "b"]))

        h.send(.enter)
        var screen = try h.waitUntil("a's members") { $0.contains("/players/a ") && h.hasRows(inOrder: ["name", "score", "tags"]) }
        #expect(screen.contains("[2]"))
        h.send(.character("j"), .character("j"), .enter)
        screen = try h.waitUntil("the tags") { $0.contains("/players/a/tags") && h.hasRows(inOrder: ["0", "1"]) }
        #expect(screen.contains("red") && screen.contains("blue"))

        h.send(.backspace)
        try h.waitUntil("back at a, tags selected") { $0.contains("/players/a ") && h.selectedKey == "tags" }
        h.send(.character("h"))
        try h.waitUntil("back at the players, a selected") { $0.contains("/players ·") && h.selectedKey == "a" }

        h.send(.character("v"))
        screen = h.screen
        #expect(screen.contains("── /players/a") && screen.contains(#""name": "Ann","#) && screen.contains(#""red","#))
        h.send(.character("v"))
        #expect(!h.screen.contains("── /players/a"))

        h.send(.character("j"), .character("y"))
        #expect(h.screen.contains("copied /players/b"))
        #expect(h.effects == [.copyToClipboard("/players/b")])
    }

    @Test("Ctrl-L asks the terminal for a full repaint")
    func ctrlL() throws {
        let h = try ViewerHarness(memory: ViewerKeysTests.players, path: "/players")
        h.send(.character("\u{0C}"))
        #expect(h.effects == [.repaintFully])
        #expect(h.hasRows(inOrder: ["a", "b", "c", "d"]))
    }
}
