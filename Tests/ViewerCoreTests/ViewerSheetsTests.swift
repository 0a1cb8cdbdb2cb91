// Derived sheets on the viewer's stack: frequency and statistics, live, with the table's keys.
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("Sheets: frequency and statistics above the table")
struct ViewerSheetsTests {
    static func teams(_ players: [(String, String, Int)]) -> String {
        "{\"players\": {" + players.map { "\"\($0.0)\": {\"team\": \"\($0.1)\", \"score\": \($0.2)}" }.joined(separator: ", ") + "}}"
    }

    /// The titles of the table's header (line 0), without sort marks.
    static func headerTitles(_ h: ViewerHarness) -> [String] {
        h.lines[0].split(separator: " ").map { String($0.filter { !"↑↓‹›".contains($0) }) }.filter { !$0.isEmpty }
    }

    /// The frequency row of `value`: its cells, split on runs of spaces.
    static func row(_ h: ViewerHarness, _ value: String) -> [String]? {
        h.lines.first { $0.dropFirst(3).hasPrefix(value + " ") }.map { $0.dropFirst(3).split(separator: " ").map(String.init) }
    }

    @Test("F counts the column under the cursor, live: an edit changes two counts and their order; q goes back")
    func frequencySheetFollowsTheFile() throws {
        let h = try ViewerHarness(memory: Self.teams([("a", "red", 1), ("b", "red", 2), ("c", "blue", 3), ("d", "gold", 4)]), columns: 100, path: "/players")
        // The columns: key, score, team (most common first, then by name) — put the cursor on team.
        for _ in 0..<4 where ViewerKeysTests.cursorTitle(h) != "team" { h.send(.right) }
        h.send(.character("F"))
        var screen = try h.waitUntil("the frequency table") { $0.contains("team frequency") }
        #expect(screen.contains("/players › team frequency · 3 rows"))
        #expect(Self.row(h, "red")?.prefix(3) == ["red", "2", "50.0%"])
        #expect(h.line(ofKey: "red")! < h.line(ofKey: "blue")! && h.line(ofKey: "blue")! < h.line(ofKey: "gold")!)

        // Another process moves a from red to gold: gold (2) now leads, red (1) follows blue.
        try h.save(Self.teams([("a", "gold", 1), ("b", "red", 2), ("c", "blue", 3), ("d", "gold", 4)]))
        screen = try h.waitUntil("gold first") { _ in h.hasRows(inOrder: ["gold", "blue", "red"]) }
        #expect(Self.row(h, "gold")?.prefix(3) == ["gold", "2", "50.0%"] && Self.row(h, "red")?[1] == "1")
        // A new value is a new row; a value no one holds any more goes.
        try h.save(Self.teams([("a", "gold", 1), ("b", "red", 2), ("c", "teal", 3), ("d", "gold", 4)]))
        screen = try h.waitUntil("teal in, blue out") { _ in h.hasRows(inOrder: ["gold", "red", "teal"]) && h.line(ofKey: "blue") == nil }

        // Enter on gold: the rows holding it, with the table's columns.
        h.send(.character("g"), .enter)
        screen = try h.waitUntil("the rows of gold") { $0.contains("team = gold") }
        #expect(screen.contains("/players › team frequency › team = gold · 2 rows") && h.line(ofKey: "a") != nil && h.line(ofKey: "d") != nil)
        // q closes one sheet at a time, then the table is back with its own status.
        h.send(.character("q"))
        #expect(h.screen.contains("› team frequency · 3 rows"))
        h.send(.character("q"))
        #expect(!h.screen.contains("frequency") && h.line(ofKey: "a") != nil && h.viewer.isRunning)
    }

    /// Opens the frequency table of `team` and Enter on red's row; returns the screen of red's rows.
    static func openRedRows(_ h: ViewerHarness, count: Int) throws -> String {
        for _ in 0..<4 where ViewerKeysTests.cursorTitle(h) != "team" { h.send(.right) }
        h.send(.character("F"))
        try h.waitUntil("the frequency table") { $0.contains("team frequency") }
        #expect(Self.row(h, "red")?[1] == String(count), "\(h.screen)")
        h.send(.character("/"))
        h.type("red")
        h.send(.enter, .enter)
        return try h.waitUntil("the rows of red") { $0.contains("team = red") }
    }

    // Issue 49 item 2: the rows opened from a sheet are the sheet's rows.
    @Test("Enter on a frequency row opens the rows it counted: the w filter in force still applies, live")
    func frequencyRowsKeepTheFilter() throws {
        let players = [("a", "red", 5), ("b", "red", 15), ("c", "blue", 25), ("d", "red", 26), ("e", "red", 27), ("f", "gold", 30)]
        let h = try ViewerHarness(memory: Self.teams(players), columns: 100, path: "/players")
        h.send(.character("w"))
        h.type(".score > 10")
        h.send(.enter)
        try h.waitUntil("the filtered rows") { _ in h.line(ofKey: "a") == nil && h.line(ofKey: "b") != nil }
        let screen = try Self.openRedRows(h, count: 3)
        #expect(screen.contains("team = red · 3 rows") && h.hasRows(inOrder: ["b", "d", "e"]) && h.line(ofKey: "a") == nil, "\(screen)")
        // e's score drops below the filter: it leaves red's rows, as it leaves the count.
        var next = players
        next[4].2 = 8
        try h.save(Self.teams(next))
        try h.waitUntil("e gone") { $0.contains("team = red · 2 rows") && h.line(ofKey: "e") == nil }
        #expect(h.hasRows(inOrder: ["b", "d"]) && h.line(ofKey: "a") == nil)
    }

    @Test("Enter on a frequency row of a limited query opens only the rows within the limit")
    func frequencyRowsKeepTheLimit() throws {
        let players = [("a", "red", 5), ("b", "red", 15), ("c", "blue", 25), ("d", "red", 26), ("e", "red", 27)]
        let h = try ViewerHarness(memory: Self.teams(players), columns: 100, path: "/players") { options in
            options.query = ViewQuery(flags: try! Query().orderByChild(Path("score")).limitToFirst(3), pageSize: 200)
        }
        let screen = try Self.openRedRows(h, count: 2)
        #expect(screen.contains("team = red · 2 rows") && h.hasRows(inOrder: ["a", "b"]), "\(screen)")
        #expect(h.line(ofKey: "d") == nil && h.line(ofKey: "e") == nil, "\(screen)")
    }

    @Test("on a sheet, s sorts by a column (again: the other way), / finds a row, v shows the row as JSON, b bins numbers")
    func sheetKeys() throws {
        let h = try ViewerHarness(memory: Self.teams([("a", "red", 5), ("b", "red", 15), ("c", "blue", 25), ("d", "gold", 26), ("e", "gold", 27)]),
                                  columns: 100, path: "/players")
        for _ in 0..<4 where ViewerKeysTests.cursorTitle(h) != "score" { h.send(.right) }
        h.send(.character("F"))
        try h.waitUntil("the frequency table") { $0.contains("score frequency · 5 rows") }
        // Each number once, in value order; sorted by the value column descending: 27 first.
        #expect(h.hasRows(inOrder: ["5", "15", "25", "26", "27"]))
        h.send(.character("s"), .character("s"))
        #expect(h.hasRows(inOrder: ["27", "26", "25", "15", "5"]))
        h.send(.character("/"))
        h.type("15")
        h.send(.enter)
        #expect(h.selectedKey == "15")
        h.send(.character("v"))
        #expect(h.screen.contains("\"count\": 1"))
        h.send(.character("v"), .character("b"))
        // Ranges of 5 over 5…27: [5, 10), [15, 20), [25, 30) (sorted by value, descending).
        #expect(h.screen.contains("ranges of 5"))
        #expect(Self.row(h, "[25,")?.contains("3") == true)
    }

    @Test("I shows a row per column with kinds, distinct and number statistics, updated as the file changes")
    func statisticsSheet() throws {
        let h = try ViewerHarness(memory: Self.teams([("a", "red", 1), ("b", "red", 2), ("c", "blue", 6)]), columns: 200, path: "/players")
        h.send(.character("I"))
        try h.waitUntil("statistics") { $0.contains("› statistics · 2 rows") }
        // column missing null bool number string object array distinct min max sum mean median stdev
        #expect(Self.row(h, "score")?.prefix(15) == ["score", "0", "0", "0", "3", "0", "0", "0", "3", "1", "6", "9", "3", "2", "2.64575"])
        #expect(Self.row(h, "team")?.prefix(9) == ["team", "0", "0", "0", "0", "3", "0", "0", "2"])
        try h.save(Self.teams([("a", "red", 1), ("b", "red", 2), ("c", "blue", 9)]))
        try h.waitUntil("the new max") { _ in Self.row(h, "score")?[10] == "9" }
        #expect(Self.row(h, "score")?[11] == "12")
    }

    @Test("a frequency bar's length is in proportion to its count: no filler, and a count that rounds to nothing draws nothing")
    func frequencyBarsAreProportional() throws {
        let players = (0..<1000).map { ("p\($0)", $0 == 0 ? "rare" : $0 < 400 ? "half" : "most", $0) }
        let h = try ViewerHarness(memory: Self.teams(players), columns: 100, path: "/players")
        for _ in 0..<4 where ViewerKeysTests.cursorTitle(h) != "team" { h.send(.right) }
        h.send(.character("F"))
        try h.waitUntil("the frequency table") { $0.contains("team frequency") }
        let bar = { (value: String) in h.lines.first { $0.dropFirst(3).hasPrefix(value + " ") }.map { line in line.filter { "█▉▊▋▌▍▎▏".contains($0) } } }
        // 600 fill the 20 cells; 399 of 600 take 13.3 cells (13 full, then two eighths); 1 of 600 rounds to nothing.
        #expect(bar("most") == String(repeating: "█", count: 20))
        #expect(bar("half") == String(repeating: "█", count: 13) + "▎")
        #expect(bar("rare") == "" && !h.screen.contains("▁"), "\(h.screen)")
    }

    // Issue 48 item 1: a sheet names its own keys through the sheet protocol (no type checks).
    @Test("the message line names a frequency table's own key (b ranges), which the statistics sheet has not")
    func aSheetNamesItsOwnKeys() throws {
        let h = try ViewerHarness(memory: Self.teams([("a", "red", 1), ("b", "red", 2), ("c", "blue", 6)]), columns: 160, path: "/players")
        for _ in 0..<4 where ViewerKeysTests.cursorTitle(h) != "team" { h.send(.right) }
        h.send(.character("F"))
        try h.waitUntil("the frequency table") { $0.contains("team frequency") }
        #expect(h.messageArea.hasPrefix("q back  Enter open") && h.messageArea.hasSuffix("b ranges"), "\(h.messageArea)")
        h.send(.character("q"), .character("I"))
        try h.waitUntil("statistics") { $0.contains("› statistics · 2 rows") }
        #expect(h.messageArea.hasPrefix("q back  Enter open") && !h.messageArea.contains("ranges"), "\(h.messageArea)")
    }

    // Issue 48 item 1: one screen cache, cleared in one place; a new width is a new layout.
    @Test("a canvas that only got wider (no resize key) draws the status bar and the message line across it")
    func aWiderCanvasRedrawsTheBars() throws {
        let h = try ViewerHarness(memory: Self.teams([("a", "red", 1), ("b", "blue", 2)]), columns: 80, path: "/players")
        let narrow = h.lines
        let status = try #require(narrow.lastIndex { $0.contains(" rows ") || $0.contains(" row ") })
        h.canvas.resize(rows: 24, columns: 120)
        let wide = h.lines
        // The resize cleared the canvas: the bars are drawn again, though their text is the same.
        #expect(narrow[status].contains("/players") && wide[status].contains("/players"), "\(wide[status])")
        #expect(narrow[status + 1].contains("? help") && wide[status + 1].contains("? help"), "\(wide[status + 1])")
    }
}
