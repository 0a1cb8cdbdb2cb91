// = adds a column computed by a jq expression: shown live, sorted by s, filtered by f, exported by E.
import JSONTree
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("The viewer's computed columns")
struct ViewerComputedColumnsTests {
    static let json = #"""
        {"p": {
          "a": {"score": 10, "level": 5},
          "b": {"score": 9, "level": 3},
          "c": {"score": "x", "level": 1},
          "d": {"score": 4, "level": 4}
        }}
        """#

    /// The cell of `key`'s row in the last column (the computed one, added last here).
    private static func lastCell(_ h: ViewerHarness, _ key: String) throws -> String {
        let line = h.lines[try #require(h.line(ofKey: key))]
        return String(line.split(separator: " ", omittingEmptySubsequences: true).last ?? "")
    }

    @Test("= adds a named column of each row's value; a row the expression fails on shows its error; s sorts by it, live")
    func addSortAndFollow() throws {
        let h = try ViewerHarness(Self.json, columns: 120, path: "/p") { $0.edit = true }
        h.send(.tab, .tab, .character("="))
        h.type("ratio = .score / .level")
        h.send(.enter)
        #expect(ViewerColumnsTests.titles(h) == ["key", "score", "level", "ratio"])
        #expect(h.screen.contains("added ratio = .score / .level, run native"))
        #expect(try Self.lastCell(h, "a") == "2" && Self.lastCell(h, "b") == "3" && Self.lastCell(h, "d") == "1")
        #expect(h.lines[try #require(h.line(ofKey: "c"))].contains("⚠ string (\"x\") and number (1) cannot be divided"))
        // The cursor is on the new column: s orders by it, the values first and the row without
        // one (its error) after them, counted in the status bar (issue 52).
        h.send(.character("s"))
        #expect(h.hasRows(inOrder: ["d", "a", "b", "c"]))
        #expect(h.screen.contains("by ratio, 1 without a value last"))
        // Another writer changes d: its ratio is now the highest, and the row moves.
        try h.save(Self.json.replacing(#""score": 4, "level": 4"#, with: #""score": 40, "level": 4"#))
        try h.waitUntil("d moves after b") { _ in h.hasRows(inOrder: ["a", "b", "d", "c"]) }
        // Shown descending, the row without a value stays last.
        h.send(.character("r"))
        try h.waitUntil("descending") { _ in h.hasRows(inOrder: ["d", "b", "a", "c"]) }
        #expect(try Self.lastCell(h, "d") == "10")
        // A cell of a computed column is not a value to edit.
        h.send(.character("e"))
        #expect(h.screen.contains("ratio is computed from the row"))
    }

    @Test("f filters a computed column as any other, and E writes it")
    func filterAndExport() throws {
        let h = try ViewerHarness(Self.json, columns: 120, path: "/p") {
            $0.computedColumns = [try! ComputedColumn(definition: ".score / 2")]
        }
        #expect(ViewerColumnsTests.titles(h) == ["key", "score", "level", ".score", "/", "2"])
        h.send(.tab, .tab, .tab, .character("f"))
        h.type(">= 4.5")
        h.send(.enter)
        #expect(h.hasRows(inOrder: ["b", "a"]) && h.line(ofKey: "d") == nil && h.line(ofKey: "c") == nil)
        let file = h.folder.file("out.csv")
        h.send(.character("E"))
        h.type(file)
        h.send(.enter)
        #expect(readFileText(file) == "key,score,level,.score / 2\r\nb,9,3,4.5\r\na,10,5,5\r\n")
        // w takes the expression itself, and narrows the f filter.
        h.send(.character("w"))
        h.type(".score / 2 > 4.75")
        h.send(.enter)
        #expect(h.hasRows(inOrder: ["a"]) && h.line(ofKey: "b") == nil)
    }

    @Test("F counts a computed column's values, live, and Enter opens the rows holding one")
    func frequency() throws {
        let h = try ViewerHarness(Self.json, columns: 120, path: "/p")
        h.send(.character("="))
        h.type("deep = .level > 2")
        h.send(.enter, .character("F"))
        try h.waitUntil("the frequency table") { $0.contains("deep frequency · 2 rows") }
        #expect(h.hasRows(inOrder: ["true", "false"]))
        #expect(h.lines[try #require(h.line(ofKey: "true"))].contains("75.0%"))
        // Another process lowers b's level: true and false hold two rows each.
        try h.save(Self.json.replacing(#""score": 9, "level": 3"#, with: #""score": 9, "level": 2"#))
        try h.waitUntil("b counted as false") { _ in h.lines[h.line(ofKey: "false") ?? 0].contains("50.0%") }
        h.send(.enter)
        try h.waitUntil("the rows holding true") { $0.contains("deep = true") }
        #expect(h.hasRows(inOrder: ["a", "d"]) && h.line(ofKey: "b") == nil && h.line(ofKey: "c") == nil)
    }

    @Test("I shows a computed column's statistics, of its values and not the rows', live")
    func statistics() throws {
        let h = try ViewerHarness(Self.json, columns: 200, path: "/p")
        h.send(.character("="))
        h.type("twice = .level * 2")
        h.send(.enter, .character("I"))
        try h.waitUntil("the statistics sheet") { $0.contains("› statistics") }
        // column, missing, null, bool, number, string, object, array, distinct, min, max, sum, …
        func cells() -> [String] { ViewerSheetsTests.row(h, "twice") ?? [] }
        #expect(Array(cells().prefix(12)) == ["twice", "0", "0", "0", "4", "0", "0", "0", "4", "2", "10", "26"])
        // Another process lowers b's level: 6 becomes 4.
        try h.save(Self.json.replacing(#""score": 9, "level": 3"#, with: #""score": 9, "level": 2"#))
        try h.waitUntil("the new sum") { _ in cells().count > 11 && cells()[11] == "24" }
    }

    @Test("--columns may name a computed column: it takes that place, and no child is said to lack it")
    func columnsNameAComputedColumn() throws {
        let json = #"{"p": {"a": {"package": "x", "depends": ["q", "r"]}, "b": {"package": "y", "depends": []}, "c": {"package": "z", "depends": true}}}"#
        let h = try ViewerHarness(json, columns: 120, path: "/p") {
            $0.columns = [try! Path("package"), try! Path("nd"), try! Path("depends")]
            $0.computedColumns = [try! ComputedColumn(definition: "nd = .depends | length"),
                                  try! ComputedColumn(definition: "firsts = [.depends[]] | first")]
        }
        #expect(ViewerColumnsTests.titles(h) == ["key", "package", "nd", "depends", "firsts"])
        let a = h.lines[try #require(h.line(ofKey: "a"))], b = h.lines[try #require(h.line(ofKey: "b"))]
        #expect(a.contains("x") && a.contains(" 2 ") && a.contains("q"), "\(a)")
        #expect(b.contains("y") && b.contains(" 0 "), "\(b)")
        // A row the expression fails on shows the evaluator's error: native, and libjq's.
        let c = h.lines[try #require(h.line(ofKey: "c"))]
        #expect(c.contains("⚠ boolean (true) has no length") && c.contains("⚠ Cannot iterate over boolean"), "\(c)")
        #expect(!h.screen.contains("no child here has"))
    }

    @Test("a bad expression is named in jq's words, and the columns stay")
    func badExpression() throws {
        let h = try ViewerHarness(Self.json, columns: 120, path: "/p")
        h.send(.character("="))
        h.type("ratio = .score /")
        h.send(.enter)
        // jq's message (its place, `line 1: .score /`, follows where the line may wrap).
        #expect(h.screen.contains("not a computed column: jq: error: syntax error, unexpected $end"))
        #expect(ViewerColumnsTests.titles(h) == ["key", "score", "level"])
        // ↑ recalls it, to be mended.
        h.send(.character("="), .up)
        #expect(h.screen.contains("computed column (name = jq expression): ratio = .score /"))
        h.type(" .level")
        h.send(.enter)
        #expect(ViewerColumnsTests.titles(h) == ["key", "ratio", "score", "level"])
    }
}
