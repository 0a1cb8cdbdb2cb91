import Testing
@testable import TableUI

/// The column cursor is the table's state, like the row selection: moved by ← →, kept in view.
@Suite struct TableColumnSelectionTests {
    static func wide() -> TestRows {
        let columns = (0..<8).map { TableColumn("c\($0)") }
        return TestRows(columns: columns, rows: [(1, (0..<8).map { "value-\($0)-xx" })])
    }

    @Test func arrowsMoveTheCursorAndItsColumnStaysInViewWhole() {
        let rows = TableColumnSelectionTests.wide()
        let (table, canvas) = makeTable(rows, lines: 4, columns: 40)
        table.selectColumn(0)
        for target in 1..<8 {
            table.handle(.right)
            table.render(into: canvas)
            #expect(table.state.selectedColumn == target)
            let header = canvas.text(line: 0)
            let x = try! #require(canvas.column(of: "c\(target) ", line: 0), "c\(target) not in \(header)")
            // The whole value is shown, and the title is the highlighted one.
            #expect(canvas.text(line: 1).contains("value-\(target)-xx"))
            #expect(canvas.style(line: 0, column: x).attributes.contains(.reverse))
        }
        #expect(table.state.firstColumn > 0)
        table.handle(.right)
        #expect(table.state.selectedColumn == 7)  // clamped at the last column
        for _ in 0..<7 { table.handle(.left) }
        table.render(into: canvas)
        #expect(table.state.selectedColumn == 0 && table.state.firstColumn == 0)
        #expect(canvas.style(line: 0, column: 3).attributes.contains(.reverse))
        #expect(canvas.violations.isEmpty)
    }

    @Test func withoutACursorArrowsScrollTheColumns() {
        let (table, canvas) = makeTable(TableColumnSelectionTests.wide(), lines: 4, columns: 40)
        table.handle(.right)
        table.render(into: canvas)
        #expect(table.state.selectedColumn == nil && table.state.firstColumn == 1)
        #expect(!canvas.style(line: 0, column: 3).attributes.contains(.reverse))
    }
}
