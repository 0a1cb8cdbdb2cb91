import Testing
@testable import TableUI

@Suite struct TableLayoutTests {
    @Test func headerAndRowsWithRightAlignedNumbers() {
        let rows = TestRows(rows: [(1, ["apple", "5"]), (2, ["kiwi", "1200"])])
        let (_, canvas) = makeTable(rows, lines: 4, columns: 20)
        #expect(canvas.lines == [
            "   name      n      ",
            "▶  apple     5      ",
            "   kiwi   1200      ",
            "                    ",
        ])
        #expect(canvas.style(line: 0, column: 3).attributes == [.bold, .underline])
        #expect(canvas.style(line: 1, column: 3).attributes == [.reverse])  // selected row
        #expect(canvas.style(line: 2, column: 3) == .plain)
        #expect(canvas.violations.isEmpty)
    }

    @Test func wideCharactersSetColumnWidths() {
        let rows = TestRows(rows: [(1, ["東京", "1"]), (2, ["😀x", "22"]), (3, ["e\u{301}", "3"])])
        let (_, canvas) = makeTable(rows, lines: 5, columns: 20)
        // name column: 4 cells (東京), then marker + space; numbers right-aligned in 2.
        #expect(canvas.text(line: 1) == "▶  東京   1         ")
        #expect(canvas.text(line: 2) == "   😀x   22         ")
        #expect(canvas.text(line: 3) == "   e\u{301}      3         ")
        #expect(canvas.column(of: "1", line: 1) == 10)
        #expect(canvas.column(of: "22", line: 2) == 9)
        #expect(canvas.violations.isEmpty)
    }

    @Test func longTextIsCutAtTheColumnMaximum() {
        let rows = TestRows(columns: [TableColumn("note", maxWidth: 8), TableColumn("n", numeric: true)],
                            rows: [(1, ["a very long note", "1"])])
        // At 20 cells the spare width goes to the cut column; at 15 there is none.
        let (_, canvas) = makeTable(rows, lines: 3, columns: 20)
        #expect(canvas.text(line: 1) == "▶  a very long …  1 ")
        let (_, narrow) = makeTable(rows, lines: 3, columns: 15)
        #expect(narrow.text(line: 1) == "▶  a very …  1 ")
    }

    @Test func minimumWidthPadsNarrowColumns() {
        let rows = TestRows(columns: [TableColumn("a", minWidth: 6), TableColumn("b")], rows: [(1, ["x", "y"])])
        let (_, canvas) = makeTable(rows, lines: 3, columns: 20)
        #expect(canvas.text(line: 1) == "▶  x       y        ")
    }

    @Test func columnsThatDoNotFitScrollHorizontally() {
        let columns = (0..<6).map { TableColumn("col\($0)", minWidth: 8) }
        let rows = TestRows(columns: columns, rows: [(1, (0..<6).map { "v\($0)" })])
        let (table, canvas) = makeTable(rows, lines: 3, columns: 30)
        #expect(canvas.text(line: 0) == "   col0      col1      col2  ›")
        #expect(canvas.text(line: 1) == "▶  v0        v1        v2     ")
        #expect(table.handle(.right))
        table.render(into: canvas)
        #expect(canvas.text(line: 0) == "‹  col1      col2      col3  ›")
        #expect(canvas.text(line: 1) == "▶  v1        v2        v3     ")
        for _ in 0..<10 { table.scrollColumns(by: 1) }
        table.render(into: canvas)
        #expect(table.state.firstColumn == 4)  // the last two fit: no further
        #expect(canvas.text(line: 0) == "‹  col4      col5             ")
        #expect(canvas.text(line: 1) == "▶  v4        v5               ")
        #expect(table.handle(.left))
        #expect(table.state.firstColumn == 3)
    }

    @Test func lastColumnIsCutWhenPartlyRoomy() {
        let rows = TestRows(columns: [TableColumn("a", minWidth: 10), TableColumn("b", minWidth: 10)],
                            rows: [(1, ["x", "long value here"])])
        let (_, canvas) = makeTable(rows, lines: 3, columns: 24)
        #expect(canvas.text(line: 1) == "▶  x           long va… ")
        #expect(canvas.text(line: 0).hasSuffix("›"))
    }

    @Test func cellsAreSanitised() {
        let rows = TestRows(rows: [(1, ["a\u{1b}[31mred", "1"]), (2, ["x\u{202E}y\nz", "2"])])
        let (_, canvas) = makeTable(rows, lines: 4, columns: 30)
        #expect(canvas.text(line: 1).hasPrefix("▶  a\\x1b[31mred"))
        #expect(canvas.text(line: 2).hasPrefix("   x\\u202ey\\nz"))
        #expect(canvas.violations.isEmpty)
    }

    @Test func noColumnsDrawsBlankLines() {
        let rows = TestRows(columns: [], rows: [(1, [])])
        let (_, canvas) = makeTable(rows, lines: 3, columns: 20)
        #expect(canvas.lines == ["                    ", "▶                   ", "                    "])
    }

    @Test func emptyTableSaysSo() {
        let (table, canvas) = makeTable(TestRows(rows: []), lines: 4, columns: 20)
        #expect(canvas.text(line: 1) == "   no rows          ")
        #expect(table.state.selection == nil)
    }

    @Test func tooSmallSaysSoInsteadOfDrawing() {
        let rows = TestRows(count: 5)
        let (table, canvas) = makeTable(rows, lines: 1, columns: 40)
        #expect(canvas.text(line: 0).hasPrefix("terminal too small (40×1)"))
        canvas.resize(rows: 5, columns: 6)
        table.render(into: canvas)
        #expect(canvas.text(line: 0) == "termi…")
        #expect(canvas.violations.isEmpty)
        canvas.resize(rows: 5, columns: 20)
        table.render(into: canvas)
        #expect(canvas.text(line: 1).hasPrefix("▶  r0"))
    }

    @Test func resizeKeepsTheSelection() {
        let rows = TestRows(count: 50)
        let (table, canvas) = makeTable(rows, lines: 10, columns: 20)
        table.select(row: 30)
        table.render(into: canvas)
        let line = canvas.line(showing: "r30")
        #expect(line == 9)
        canvas.resize(rows: 6, columns: 30)
        table.render(into: canvas)
        #expect(table.state.selection == 30)
        #expect(canvas.line(showing: "r30") == 5)  // clamped to the last line
        canvas.resize(rows: 20, columns: 30)
        table.render(into: canvas)
        #expect(canvas.line(showing: "r30") == 5)  // kept its line
    }
}

/// Spare width goes to the columns that are cut, the first (key) column first; a number at
/// the right edge is never cut to a prefix of its digits.
@Suite struct TableSpareWidthTests {
    @Test func spareWidthGoesToACutKeyColumn() {
        let rows = TestRows(columns: [TableColumn("key", maxWidth: 24), TableColumn("n", numeric: true)],
                            rows: [(1, ["google-cloud-cli-app-engine-java", "1"])])
        let (_, canvas) = makeTable(rows, lines: 3, columns: 60)
        #expect(canvas.text(line: 1).hasPrefix("▶  google-cloud-cli-app-engine-java  1"), "\(canvas.text(line: 1))")
    }

    @Test func withoutSpareWidthTheColumnKeepsItsMaximum() {
        let rows = TestRows(columns: [TableColumn("key", maxWidth: 24), TableColumn("note", maxWidth: 40)],
                            rows: [(1, ["google-cloud-cli-app-engine-java", String(repeating: "x", count: 40)])])
        let (_, canvas) = makeTable(rows, lines: 3, columns: 60)
        #expect(canvas.text(line: 1).hasPrefix("▶  google-cloud-cli-app-en…  x"), "\(canvas.text(line: 1))")
    }

    @Test func aNumberCutAtTheRightEdgeIsShownInScientificNotation() {
        let rows = TestRows(columns: [TableColumn("name"), TableColumn("date", numeric: true)],
                            rows: [(1, [String(repeating: "n", count: 20), "1372701600000"])])
        let (_, canvas) = makeTable(rows, lines: 3, columns: 33)
        let line = canvas.text(line: 1)
        #expect(line.hasSuffix(" 1.37e12 "), "\(line)")
        #expect(!line.contains("13727"), "\(line)")
    }
}
