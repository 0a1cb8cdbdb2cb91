// The viewer following a file that is saved in every style, in-process.
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("The viewer follows the file")
struct ViewerLiveTests {
    static func leaderboard(_ players: [(String, Int)]) -> String { ViewerKeysTests.leaderboard(players) }

    /// How a save replaces the file.
    enum SaveStyle { case inPlace, rename, recreate }

    /// Saves `json` in `style` and runs the store's loop until the next revision (or, for an
    /// invalid save, until the store reports the problem).
    static func save(_ h: ViewerHarness, _ json: String, _ style: SaveStyle) {
        switch style {
        case .inPlace: writeFileInPlace(h.file, Array(json.utf8))
        case .rename: writeFileByRename(h.file, Array(json.utf8))
        case .recreate:
            removeTree(h.file)
            writeFileInPlace(h.file, Array(json.utf8))
        }
    }

    @Test("rows appear, move and vanish in every save style; the selection stays on its key; an invalid save shows its error while the table stays")
    func followsEverySaveStyle() throws {
        let h = try ViewerHarness(Self.leaderboard([("a", 10), ("b", 20), ("c", 30)]), columns: 120, path: "/players") { options in
            options.query = ViewQuery(flags: try! Query().orderByChild(Path("score")), pageSize: 200)
        }
        #expect(h.hasRows(inOrder: ["a", "b", "c"]))
        h.send(.character("j"), .character("j"))
        #expect(h.selectedKey == "c")

        // In place: a new row appears at its place in the score order, above the selection.
        Self.save(h, Self.leaderboard([("a", 10), ("b", 20), ("c", 30), ("d", 25)]), .inPlace)
        var screen = try h.waitUntil("d between b and c") { _ in h.hasRows(inOrder: ["a", "b", "d", "c"]) }
        #expect(h.selectedKey == "c" && screen.contains("4 rows"))

        // Temporary file and rename: a changed score moves its row.
        Self.save(h, Self.leaderboard([("a", 40), ("b", 20), ("c", 30), ("d", 25)]), .rename)
        screen = try h.waitUntil("a moved to the end") { _ in h.hasRows(inOrder: ["b", "d", "c", "a"]) }
        #expect(h.selectedKey == "c" && screen.contains("40"))

        // Delete and re-create: a deleted row disappears.
        Self.save(h, Self.leaderboard([("a", 40), ("c", 30), ("d", 25)]), .recreate)
        try h.waitUntil("b gone") { _ in h.line(ofKey: "b") == nil && h.hasRows(inOrder: ["d", "c", "a"]) }
        #expect(h.selectedKey == "c")

        // An invalid save: the error with its line and column, and the last good table.
        Self.save(h, "{\"players\": {\n  \"a\": {\"score\": 40},\n  \"c\": {\"score\": }\n}}\n", .inPlace)
        screen = try h.waitUntil("the parse error") { $0.contains("invalid JSON at line 3, column 18") }
        #expect(h.hasRows(inOrder: ["d", "c", "a"]) && screen.contains("INVALID JSON") && h.selectedKey == "c")

        // Valid again: the error goes, the new state shows.
        Self.save(h, Self.leaderboard([("c", 30), ("d", 25), ("e", 5)]), .rename)
        try h.waitUntil("the repaired file") { screen in
            h.hasRows(inOrder: ["e", "d", "c"]) && h.line(ofKey: "a") == nil && !screen.contains("invalid JSON")
        }
        #expect(h.selectedKey == "c")
    }

    @Test("a missing file is waited for")
    func waitsForAMissingFile() throws {
        let h = try ViewerHarness(nil, columns: 120, path: "/players")
        let screen = h.screen
        #expect(screen.contains("does not exist yet") && screen.contains("FILE MISSING"))
        Self.save(h, Self.leaderboard([("x", 1), ("y", 2)]), .rename)
        try h.waitUntil("the rows") { screen in h.hasRows(inOrder: ["x", "y"]) && !screen.contains("FILE MISSING") }
    }
}
