// w filters by a jq expression (stacked, Esc takes them off), E exports the table, ( ) expand columns.
import FileStore
import JSONTree
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("The viewer's expression filters, export and expanded columns")
struct ViewerConditionsTests {
    static let json = #"""
        {"p": {
          "a": {"name": "Ann, \"the\" first", "score": 10, "team": "x", "m": {"views": 5, "likes": 1}},
          "b": {"name": "Bo", "score": 20, "team": "y", "m": {"views": 7}},
          "c": {"name": "Cy", "score": 30, "team": "x", "m": {"views": 9, "likes": 4}},
          "d": {"name": "Di", "score": 40, "team": "x"}
        }}
        """#

    @Test("w keeps the rows an expression is true for; a second narrows the first; Esc takes off the last; ↑ recalls")
    func stackedFilters() throws {
        let h = try ViewerHarness(Self.json, columns: 140, path: "/p")
        h.send(.character("w"))
        h.type(#".team == "x""#)
        h.send(.enter)
        #expect(h.hasRows(inOrder: ["a", "c", "d"]) && h.line(ofKey: "b") == nil)
        #expect(h.screen.contains(#"where team = "x""#) && h.screen.contains("3 matching rows of 4"))
        h.send(.character("w"))
        h.type(".score > 15")
        h.send(.enter)
        #expect(h.hasRows(inOrder: ["c", "d"]) && h.line(ofKey: "a") == nil)
        #expect(h.screen.contains(#"where team = "x" (native), where score > 15 (native)"#))
        // A change to the file is filtered live: a passes now, d no longer.
        try h.save(Self.json.replacing(#""score": 10"#, with: #""score": 16"#).replacing(#""team": "x"}"#, with: #""team": "z"}"#))
        try h.waitUntil("a in, d out") { _ in h.line(ofKey: "a") != nil && h.line(ofKey: "d") == nil }
        h.send(.escape)
        #expect(h.hasRows(inOrder: ["a", "c"]) && h.screen.contains("no longer where score > 15") && !h.screen.contains(", where score > 15"))
        h.send(.escape)
        #expect(h.hasRows(inOrder: ["a", "b", "c", "d"]))
        // ↑ recalls the newest expression first.
        h.send(.character("w"), .up)
        #expect(h.screen.contains("where (jq): .score > 15"))
        h.send(.up)
        #expect(h.screen.contains(#"where (jq): .team == "x""#))
        h.send(.escape)
    }

    @Test("a bad expression is named in jq's words and changes nothing")
    func badExpression() throws {
        let h = try ViewerHarness(Self.json, path: "/p")
        h.send(.character("w"))
        h.type(".score >")
        h.send(.enter)
        // jq's message (its place, `line 1: .score >`, follows where the line may wrap).
        #expect(h.screen.contains("not a filter: jq: error: syntax error, unexpected $end"))
        #expect(h.hasRows(inOrder: ["a", "b", "c", "d"]))
    }

    @Test("w takes any jq expression: one outside the native subset runs on libjq, and the status bar says so")
    func libjqFilter() throws {
        let h = try ViewerHarness(Self.json, columns: 160, path: "/p")
        h.send(.character("w"))
        h.type(#"[.m // {} | .[]] | any(. > 6)"#)
        h.send(.enter)
        #expect(h.hasRows(inOrder: ["b", "c"]) && h.line(ofKey: "a") == nil && h.line(ofKey: "d") == nil)
        #expect(h.screen.contains(#"where [.m // {} | .[]] | any(. > 6) (jq)"#))
        h.send(.character("w"))
        h.type(".score > 25")
        h.send(.enter)
        #expect(h.hasRows(inOrder: ["c"]) && h.screen.contains("where score > 25 (native)"))
    }

    @Test("E writes the rows shown, in order, with the columns shown; an existing file only after y")
    func export() throws {
        let h = try ViewerHarness(Self.json, columns: 240, path: "/p")
        h.send(.character("w"))
        h.type(#".team == "x""#)
        h.send(.enter, .character("r"))
        let jsonFile = h.folder.file("out.json")
        h.send(.character("E"))
        h.type(jsonFile)
        h.send(.enter)
        #expect(h.screen.contains("wrote 3 rows"))
        let written = try JSONDocument(parsing: try #require(readFileText(jsonFile))).root.json
        let keys = try #require(written.arrayValue).map { $0["key"]?.stringValue ?? "?" }
        #expect(keys == ["d", "c", "a"])
        #expect(written.arrayValue?.first?["value"]?["score"] == 40)

        // CSV, read back by Python's csv module (RFC 4180's other side).
        let csvFile = h.folder.file("out.csv")
        h.send(.character("E"))
        h.type(csvFile)
        h.send(.enter)
        let read = try runProgram("/usr/bin/python3", ["-c", "import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='')))))", csvFile])
        let table = try JSONDocument(parsing: read.output).root.json
        #expect(table[path: try Path("0")] == ["key", "name", "score", "team", "m"])
        #expect(table[path: try Path("3/1")] == #"Ann, "the" first"#)
        #expect(table.arrayValue?.count == 4)

        // An existing file: asked first; n keeps it.
        h.send(.character("E"))
        h.type(csvFile)
        h.send(.enter)
        #expect(h.screen.contains("out.csv exists: replace it? (y/n)"))
        h.send(.character("n"))
        #expect(h.screen.contains("nothing written"))
        // y replaces it, whole: now with the filter off, four rows.
        h.send(.escape, .character("E"))
        h.type(csvFile)
        h.send(.enter, .character("y"))
        #expect(h.screen.contains("wrote 4 rows"))
        #expect(readFileText(csvFile)?.split(separator: "\r\n").count == 5)
        h.send(.character("E"))
        h.type(h.folder.file("out.txt"))
        h.send(.enter)
        #expect(h.screen.contains("the name must end in .records.json, .json, .jsonl, .csv or .tsv"))
    }

    @Test("( expands an object column into a column per member, ) collapses them back")
    func expandAndCollapse() throws {
        let h = try ViewerHarness(Self.json, path: "/p")
        #expect(ViewerColumnsTests.titles(h) == ["key", "name", "score", "team", "m"])
        h.send(.tab, .tab, .tab, .tab, .character("("))
        #expect(ViewerColumnsTests.titles(h) == ["key", "name", "score", "team", "m/views", "m/likes"])
        #expect(h.lines[try #require(h.line(ofKey: "c"))].contains("9"))
        h.send(.tab, .character(")"))
        #expect(ViewerColumnsTests.titles(h) == ["key", "name", "score", "team", "m"])
        h.send(.backTab, .character("("))
        #expect(h.screen.contains("holds no object with members"))
    }
}
