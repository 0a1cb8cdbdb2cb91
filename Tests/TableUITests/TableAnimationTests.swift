import Testing
@testable import TableUI

/// Every animation's frames, read from the memory canvas at fixed times.
@Suite struct TableAnimationTests {
    let theme = TableTheme.standard(colors: .extended)

    /// 20 rows on 10 lines; row 0 selected.
    func table() -> (TestRows, TableView, MemoryCanvas) {
        let rows = TestRows(count: 20)
        let (table, canvas) = makeTable(rows, lines: 10, columns: 24, theme: theme)
        return (rows, table, canvas)
    }

    @Test func insertedRowOpensHighlightedThenFades() throws {
        let (rows, table, canvas) = table()
        let batch = rows.update { $0.insert((id: 99, cells: ["new", "7"]), at: 3) }
        try table.performBatchUpdates(batch, now: 100)
        var styles: [CellStyle] = []
        var markers: [String] = []
        var deadlines: [Double?] = []
        for t in [100.0, 100.3, 100.6, 100.9] {
            table.tick(now: t)
            table.render(into: canvas)
            #expect(canvas.line(showing: "new") == 4)
            styles.append(canvas.style(line: 4, column: 5))
            markers.append(String(canvas.text(line: 4).prefix(2)))
            deadlines.append(table.nextDeadline)
        }
        #expect(styles == theme.inserted + [theme.row])
        #expect(markers == [" +", " +", " +", "  "])
        #expect(deadlines[0]! == 100.3 && deadlines[2]! == 100.9 && deadlines[3] == nil)
        #expect(canvas.style(line: 4, column: 23) == theme.inserted.last.map { _ in theme.row })  // whole line back to normal
    }

    @Test func deletedRowIsMarkedThenItsLineCloses() throws {
        let (rows, table, canvas) = table()
        let batch = rows.update { $0.remove(at: 3) }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(canvas.text(line: 4).hasPrefix(" - r3 "))
        #expect(canvas.style(line: 4, column: 4) == theme.deleted)
        #expect(canvas.line(showing: "r4") == 5)
        #expect(table.nextDeadline == TableSettings().deleteDuration)
        table.tick(now: TableSettings().deleteDuration)
        table.render(into: canvas)
        #expect(canvas.line(showing: "r3") == nil)
        #expect(canvas.line(showing: "r4") == 4)
        #expect(canvas.line(showing: "r9") == 9)  // the row below the screen comes up
        #expect(table.nextDeadline == nil)
    }

    @Test func reloadedRowFlashesWithChangedCellsMarked() throws {
        let (rows, table, canvas) = table()
        let up = rows.update { $0[2].cells[1] = "12"; $0[4].cells[1] = "1"; $0[5].cells[0] = "renamed" }
        try table.performBatchUpdates(up, now: 0)
        table.render(into: canvas)
        // Flash: the row in the flash style, the changed cell marked, number with its direction.
        #expect(canvas.text(line: 3).hasPrefix(" * r2       12↑"))
        #expect(canvas.style(line: 3, column: 3) == theme.flash)
        #expect(canvas.style(line: 3, column: 13) == overlay(theme.flash, theme.changedCell))
        #expect(canvas.text(line: 5).hasPrefix(" * r4        1↓"))
        // A changed text is marked by its style alone: a `*` after it would read as part of it.
        #expect(canvas.text(line: 6).hasPrefix(" * renamed   5 "))
        #expect(canvas.style(line: 6, column: 3) == overlay(theme.flash, theme.changedCell))
        #expect(canvas.style(line: 6, column: 10) == theme.flash)
        // Second half: the row is back to normal, the changed cells stay marked.
        table.tick(now: TableSettings().reloadDuration / 2)
        table.render(into: canvas)
        #expect(canvas.style(line: 3, column: 3) == theme.row)
        #expect(canvas.style(line: 3, column: 13) == theme.changedCell)
        #expect(canvas.text(line: 3).hasPrefix(" * r2       12↑"))
        table.tick(now: TableSettings().reloadDuration)
        table.render(into: canvas)
        #expect(canvas.text(line: 3).hasPrefix("   r2       12 "))
        #expect(canvas.style(line: 3, column: 13) == theme.row)
    }

    @Test func movedRowIsHighlightedAtItsNewPlaceWithItsDirection() throws {
        let (rows, table, canvas) = table()
        let batch = rows.update { r in
            let row = r.remove(at: 6)
            r.insert(row, at: 1)
        }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(canvas.text(line: 2).hasPrefix(" ↑ r6 "))
        #expect(canvas.style(line: 2, column: 3) == theme.moved)
        let down = rows.update { r in
            let row = r.remove(at: 2)
            r.insert(row, at: 8)
        }
        try table.performBatchUpdates(down, now: 0.1)
        table.render(into: canvas)
        #expect(canvas.text(line: 9).hasPrefix(" ↓ r1 "))
        table.tick(now: 5)
        table.render(into: canvas)
        #expect(canvas.text(line: 9).hasPrefix("   r1 "))
        #expect(canvas.style(line: 9, column: 3) == theme.row)
    }

    @Test func batchMidAnimationClosesLinesAndCarriesTheRest() throws {
        let (rows, table, canvas) = table()
        let first = rows.update { r in
            r.remove(at: 5)
            r.insert((id: 50, cells: ["fresh", "1"]), at: 2)
        }
        try table.performBatchUpdates(first, now: 0)
        table.render(into: canvas)
        #expect(canvas.text(line: 7).hasPrefix(" - r5"))
        let second = rows.update { $0.insert((id: 51, cells: ["second", "2"]), at: 0) }
        try table.performBatchUpdates(second, now: 0.2)
        table.render(into: canvas)
        #expect(canvas.line(showing: "r5") == nil)  // the closing line closed at once
        #expect(canvas.line(showing: "second") == nil)  // above the selected row, which kept its line
        #expect(canvas.line(showing: "fresh") == 3)
        #expect(canvas.text(line: 3).hasPrefix(" + fresh"))  // still fading, at its new index
        #expect(canvas.style(line: 3, column: 3) == theme.inserted[0])
        table.tick(now: 0.35)
        table.render(into: canvas)
        #expect(canvas.style(line: 3, column: 3) == theme.inserted[1])  // timed from its own start
        #expect(table.state.animations.map(\.row).sorted() == [0, 3])
    }

    // Issue 49 item 5: a batch of more rows than the screen holds is one redraw.
    @Test func largeBatchIsOneRedraw() throws {
        let (rows, table, canvas) = table()
        let batch = rows.update { r in
            r.insert(contentsOf: (0..<20_000).map { (id: 10_000 + $0, cells: ["bulk\($0)", "\($0)"]) }, at: 5)
            for i in stride(from: 0, to: r.count, by: 2) { r[i].cells[1] += "0" }
        }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(table.state.animations.isEmpty && table.nextDeadline == nil)
        #expect(canvas.text(line: 6).hasPrefix("   bulk0"))  // rows 0–4 kept their lines, the new ones below
        #expect(canvas.text(line: 5).hasPrefix("   r4     40 "))
        #expect(canvas.violations.isEmpty)
    }

    // Issue 49 item 5: a sort's animations took about 1.5 s, and its frames mixed old and new.
    @Test func sortOfMoreRowsThanTheScreenIsOneConsistentRedraw() throws {
        let (rows, table, canvas) = table()
        // A closing line is in flight when the sort comes: it goes too.
        try table.performBatchUpdates(rows.update { $0.remove(at: 3) }, now: 0)
        table.render(into: canvas)
        #expect(canvas.text(line: 4).hasPrefix(" - r3 "))
        let sort = rows.update { $0.reverse() }
        try table.performBatchUpdates(sort, now: 0.1)
        #expect(table.state.animations.isEmpty && table.nextDeadline == nil)
        table.render(into: canvas)
        // Every line shows the new order, unmarked.
        let shown = (1..<10).map { canvas.text(line: $0) }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let names = shown.map { String($0.dropFirst(3).prefix { $0 != " " }) }
        let order = rows.rows.map { $0.cells[0] }
        let first = try #require(order.firstIndex(of: names[0]))
        #expect(names.count > 1 && names == Array(order[first..<min(order.count, first + names.count)]), "\(names)")
        #expect(shown.allSatisfy { line in !["↑", "↓", "-", "+"].contains { line.dropFirst().hasPrefix($0) } }, "\(shown)")
        // A change of fewer rows than the screen holds still animates.
        let line = try #require((1..<10).first { !canvas.text(line: $0).hasPrefix("▶") && canvas.text(line: $0).hasPrefix("   r") })
        let name = String(canvas.text(line: line).dropFirst(3).prefix { $0 != " " })
        try table.performBatchUpdates(rows.update { r in r[r.firstIndex { $0.cells[0] == name }!].cells[1] = "77" }, now: 0.2)
        table.render(into: canvas)
        #expect(canvas.text(line: line).hasPrefix(" * \(name)"), "\(canvas.text(line: line))")
    }

    @Test func animationsOff() throws {
        let rows = TestRows(count: 20)
        let (table, canvas) = makeTable(rows, lines: 10, columns: 24, theme: theme, animations: false)
        let batch = rows.update { r in
            r.remove(at: 3)
            r.insert((id: 60, cells: ["plain", "3"]), at: 1)
            r[5].cells[1] = "99"
        }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(table.state.animations.isEmpty)
        #expect(table.nextDeadline == nil)
        #expect(canvas.text(line: 2).hasPrefix("   plain "))
        #expect(canvas.style(line: 2, column: 3) == theme.row)
        #expect(canvas.line(showing: "r3") == nil)
    }

    @Test func monochromeUsesAttributesOnly() throws {
        let mono = TableTheme.standard(colors: .none)
        let rows = TestRows(count: 5)
        let (table, canvas) = makeTable(rows, lines: 8, columns: 24, theme: mono)
        let batch = rows.update { $0.insert((id: 70, cells: ["x", "1"]), at: 2) }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        for line in 0..<8 {
            for column in 0..<24 {
                let style = canvas.style(line: line, column: column)
                #expect(style.foreground == -1 && style.background == -1)
            }
        }
        #expect(canvas.style(line: 3, column: 3).attributes == [.reverse, .bold])
    }
}
