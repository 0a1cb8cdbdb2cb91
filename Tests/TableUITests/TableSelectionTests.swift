import Testing
@testable import TableUI

/// The selection follows its row through batches, and stays on its screen line.
@Suite struct TableSelectionTests {
    /// 50 rows on 10 lines (9 body lines), row 20 selected on the bottom line.
    func tableWithSelection(animations: Bool) -> (TestRows, TableView, MemoryCanvas) {
        let rows = TestRows(count: 50)
        let (table, canvas) = makeTable(rows, lines: 10, columns: 20, animations: animations)
        table.select(row: 20)
        table.render(into: canvas)
        return (rows, table, canvas)
    }

    func selectedName(_ rows: TestRows, _ table: TableView) -> String? {
        table.state.selection.map { rows.rows[$0].cells[0] }
    }

    @Test(arguments: [false, true])
    func insertAboveKeepsSelectionOnItsLine(animations: Bool) throws {
        let (rows, table, canvas) = tableWithSelection(animations: animations)
        #expect(canvas.line(showing: "r20") == 9)
        for at in [15, 0] {  // on screen and off screen
            let batch = rows.update { $0.insert((id: 900 + at, cells: ["new\(at)", "0"]), at: at) }
            try table.performBatchUpdates(batch, now: 0)
            table.render(into: canvas)
            #expect(selectedName(rows, table) == "r20")
            #expect(canvas.line(showing: "r20") == 9)
            #expect(canvas.text(line: 9).hasPrefix("▶"))
        }
    }

    @Test(arguments: [false, true])
    func deleteAboveKeepsSelectionOnItsLine(animations: Bool) throws {
        let (rows, table, canvas) = tableWithSelection(animations: animations)
        for id in [15, 2] {  // on screen and off screen
            let batch = rows.update { $0.removeAll { $0.id == id } }
            try table.performBatchUpdates(batch, now: 0)
            table.render(into: canvas)
            #expect(selectedName(rows, table) == "r20")
            #expect(canvas.line(showing: "r20") == 9)
            table.tick(now: 10)  // the closing line closes
            table.render(into: canvas)
            #expect(canvas.line(showing: "r20") == 9)
            #expect(canvas.line(showing: "r\(id)") == nil)
        }
    }

    @Test(arguments: [false, true])
    func deletedSelectionGoesToItsNeighbourOnTheSameLine(animations: Bool) throws {
        let (rows, table, canvas) = tableWithSelection(animations: animations)
        table.select(row: 17)  // line 6, rows below it on screen
        table.render(into: canvas)
        #expect(canvas.line(showing: "r17") == 6)
        let batch = rows.update { $0.removeAll { $0.id == 17 } }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(selectedName(rows, table) == "r18")
        if animations {
            #expect(canvas.text(line: 6).hasPrefix(" - r17"))  // marked on its line, closing
            #expect(canvas.line(showing: "r18") == 7)
        }
        table.tick(now: 10)
        table.render(into: canvas)
        #expect(canvas.line(showing: "r18") == 6)
        #expect(canvas.line(showing: "r17") == nil)
        #expect(canvas.text(line: 6).hasPrefix("▶"))
    }

    @Test func deletedSelectionOnTheBottomLine() throws {
        let (rows, table, canvas) = tableWithSelection(animations: true)
        let batch = rows.update { $0.removeAll { $0.id == 20 } }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(canvas.text(line: 9).hasPrefix(" - r20"))
        table.tick(now: 10)
        table.render(into: canvas)
        #expect(selectedName(rows, table) == "r21")
        #expect(canvas.line(showing: "r21") == 9)
    }

    @Test func deletingTheLastRowSelectsTheOneBefore() throws {
        let rows = TestRows(count: 3)
        let (table, canvas) = makeTable(rows, lines: 10, columns: 20, animations: false)
        table.selectLast()
        let batch = rows.update { $0.removeLast() }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(selectedName(rows, table) == "r1")
        let all = rows.update { $0.removeAll() }
        try table.performBatchUpdates(all, now: 0)
        #expect(table.state.selection == nil)
    }

    @Test func movedSelectionFollowsItsRow() throws {
        let (rows, table, canvas) = tableWithSelection(animations: true)
        let batch = rows.update { r in
            let row = r.remove(at: 20)
            r.insert(row, at: 40)
        }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(selectedName(rows, table) == "r20")
        #expect(table.state.selection == 40)
        #expect(canvas.line(showing: "r20") == 9)
        #expect(canvas.text(line: 9).hasPrefix("▶↓ r20"))
    }

    @Test func offscreenSelectionKeepsTheTopRowInPlace() throws {
        let (rows, table, canvas) = tableWithSelection(animations: false)
        table.scroll(by: 20)  // the wheel: rows 32… on screen, selection above
        table.render(into: canvas)
        #expect(canvas.line(showing: "r32") == 1)
        let batch = rows.update { $0.insert((id: 999, cells: ["new", "0"]), at: 25) }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(canvas.line(showing: "r32") == 1)
        #expect(selectedName(rows, table) == "r20")
    }

    @Test func keysMoveSelectionAndScroll() {
        let rows = TestRows(count: 50)
        let (table, canvas) = makeTable(rows, lines: 10, columns: 20)
        #expect(table.handle(.down))
        #expect(table.state.selection == 1)
        #expect(table.handle(.pageDown))
        #expect(table.state.selection == 10)
        #expect(table.state.offset == 9)  // kept its line
        #expect(table.handle(.end))
        #expect(table.state.selection == 49)
        #expect(table.state.offset == 41)
        #expect(table.handle(.pageUp))
        #expect(table.state.selection == 40)
        #expect(table.handle(.home))
        #expect(table.state.selection == 0)
        #expect(table.state.offset == 0)
        #expect(!table.handle(.character("q")))
        table.render(into: canvas)
        #expect(table.handle(.mouse(MouseEvent(.wheelDown, line: 3, column: 0))))
        #expect(table.state.offset == 3)
        #expect(table.state.selection == 0)
        table.render(into: canvas)
        #expect(table.handle(.mouse(MouseEvent(.press, line: 2, column: 5))))
        #expect(table.state.selection == 4)  // body line 1 at offset 3
        #expect(!table.handle(.mouse(MouseEvent(.press, line: 0, column: 5))))  // the header
    }
}

/// A batch that replaces every row (a new query's first page) keeps the selection on screen,
/// while the old rows' lines close and after.
@Suite struct SelectionAfterReplacementTests {
    @Test(arguments: [0, 3, 45])
    func everyRowReplaced(selected: Int) throws {
        let rows = TestRows(count: 50)
        let (table, canvas) = makeTable(rows, lines: 10, columns: 40)
        table.select(row: selected)
        table.render(into: canvas)
        let batch = rows.update { r in r = (0..<50).map { (id: 1000 + $0, cells: ["n\($0)", "\($0)"]) } }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        let selection = try #require(table.state.selection)
        #expect(table.row(atCanvasLine: (1..<10).first { table.row(atCanvasLine: $0) == selection } ?? -1) == selection,
                "the selected row \(selection) is off screen: offset \(table.state.offset)\n\(canvas.lines.joined(separator: "\n"))")
        table.tick(now: 100)
        table.render(into: canvas)
        #expect((1..<10).contains { table.row(atCanvasLine: $0) == table.state.selection },
                "after the animations, the selection is off screen: offset \(table.state.offset)\n\(canvas.lines.joined(separator: "\n"))")
    }
}
