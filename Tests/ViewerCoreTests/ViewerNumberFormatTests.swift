// Numbers that read well (issue 52): rounded to the column, a format set with %, exports exact.
import JSONTree
import Testing
import TestSupport
import ViewerCore

@Suite("The viewer's number formats")
struct ViewerNumberFormatTests {
    static let json = #"""
        {"p": {
          "a": {"size": 1536, "at": 1764925356, "x": 0.19743416929728977},
          "b": {"size": 3355443, "at": 1764925357, "x": 1234567.125},
          "c": {"size": 10, "at": 0, "x": 2}
        }}
        """#

    /// Whether `key`'s row shows these cells in this order, each a whole cell.
    private static func row(_ h: ViewerHarness, _ key: String, shows cells: [String]) -> Bool {
        guard let i = h.line(ofKey: key) else { return false }
        let line = h.lines[i].split(separator: " ").joined(separator: " ")
        return (" " + line + " ").contains(" " + ([key] + cells).joined(separator: " ") + " ")
    }

    @Test("% sets a column's format (digits, thousands, bytes, a time); empty goes back; exports keep the exact values")
    func formatsAndExactExports() throws {
        let h = try ViewerHarness(Self.json, columns: 120, path: "/p")
        #expect(ViewerColumnsTests.titles(h) == ["key", "size", "at", "x"])
        h.send(.tab, .character("%"))
        h.type("b")
        h.send(.enter)
        #expect(h.screen.contains("size: numbers as bytes (KiB, MiB)"))
        h.send(.tab, .character("%"))
        h.type("s")
        h.send(.enter)
        h.send(.tab, .character("%"))
        h.type("2")
        h.send(.enter)
        #expect(Self.row(h, "a", shows: ["1.5 KiB", "2025-12-05 09:02:36", "0.20"]), "\(h.screen)")
        #expect(Self.row(h, "b", shows: ["3.2 MiB", "2025-12-05 09:02:37", "1234567.13"]))
        #expect(Self.row(h, "c", shows: ["10 B", "1970-01-01 00:00:00", "2.00"]))
        h.send(.character("%"))
        h.type(",")
        h.send(.enter)
        #expect(Self.row(h, "b", shows: ["3.2 MiB", "2025-12-05 09:02:37", "1,234,567.125"]))
        h.send(.character("%"))
        h.type("3 digits")
        h.send(.enter)
        #expect(h.screen.contains("not a number format: 3 digits"))
        // The exports write the values, not what the formats show.
        let file = h.folder.file("out.records.json")
        h.send(.character("E"))
        h.type(file)
        h.send(.enter)
        #expect(h.screen.contains("wrote 3 rows"))
        let written = try JSONDocument(parsing: try #require(readFileText(file))).root.json
        #expect(written == (try JSONDocument(parsing: #"""
            [{"key": "a", "size": 1536, "at": 1764925356, "x": 0.19743416929728977},
             {"key": "b", "size": 3355443, "at": 1764925357, "x": 1234567.125},
             {"key": "c", "size": 10, "at": 0, "x": 2}]
            """#).root.json))
        // Empty: as written again.
        h.send(.character("%"))
        h.type("")
        h.send(.enter)
        #expect(Self.row(h, "b", shows: ["3.2 MiB", "2025-12-05 09:02:37", "1234567.125"]))
    }

    @Test(".json writes {key, value} pairs, .records.json the rows as shown (a row without a column's value has null)")
    func exportShapes() throws {
        let h = try ViewerHarness(#"{"p": {"a": {"n": 1, "t": "x"}, "b": {"n": 2}}}"#, columns: 120, path: "/p")
        let pairs = h.folder.file("pairs.json"), records = h.folder.file("rows.RECORDS.json")
        for file in [pairs, records] {
            h.send(.character("E"))
            h.type(file)
            h.send(.enter)
        }
        #expect(try JSONDocument(parsing: try #require(readFileText(pairs))).root.json
            == (try JSONDocument(parsing: #"[{"key": "a", "value": {"n": 1, "t": "x"}}, {"key": "b", "value": {"n": 2}}]"#).root.json))
        #expect(try JSONDocument(parsing: try #require(readFileText(records))).root.json
            == (try JSONDocument(parsing: #"[{"key": "a", "n": 1, "t": "x"}, {"key": "b", "n": 2, "t": null}]"#).root.json))
    }
}
