import Testing
@testable import TableUI
import TestSupport

/// Only changed lines are drawn; shifted lines move with line shifts; and whatever the
/// history, the canvas shows what a fresh render of the same state shows.
@Suite struct TableRedrawTests {
    @Test func insertedRowDrawsOneLineAndShiftsTheRest() throws {
        let rows = TestRows(count: 100)
        let (table, canvas) = makeTable(rows, lines: 41, columns: 100)
        canvas.clearOperations()
        let batch = rows.update { $0.insert((id: 500, cells: ["new", "1"]), at: 20) }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(canvas.operations.filter {
            if case .draw = $0 { return false }
            return true
        } == [.insertLines(count: 1, at: 21, regionEnd: 41)])
        #expect(canvas.linesDrawn == [21])
        #expect(canvas.line(showing: "r20") == 22)
        #expect(canvas.line(showing: "r38") == 40)
    }

    @Test func insertAboveTheSelectionScrollsTheLinesAbove() throws {
        let rows = TestRows(count: 100)
        let (table, canvas) = makeTable(rows, lines: 41, columns: 100, animations: false)
        table.select(row: 30)
        table.render(into: canvas)
        canvas.clearOperations()
        let batch = rows.update { $0.insert((id: 500, cells: ["new", "1"]), at: 10) }
        try table.performBatchUpdates(batch, now: 0)
        table.render(into: canvas)
        #expect(canvas.operations.contains(.deleteLines(count: 1, at: 1, regionEnd: 11)))
        #expect(canvas.linesDrawn == [10])
        #expect(canvas.line(showing: "r30") == 31)
    }

    @Test func unchangedFrameDrawsNothing() throws {
        let rows = TestRows(count: 30)
        let (table, canvas) = makeTable(rows, lines: 20, columns: 40)
        canvas.clearOperations()
        table.render(into: canvas)
        rows.rows[3].cells[0] = "r3"  // same text
        table.reloadData()
        table.render(into: canvas)
        #expect(canvas.operations.isEmpty)
    }

    @Test func movingTheSelectionRedrawsTwoLines() {
        let rows = TestRows(count: 30)
        let (table, canvas) = makeTable(rows, lines: 20, columns: 40)
        canvas.clearOperations()
        table.moveSelection(by: 1)
        table.render(into: canvas)
        #expect(canvas.linesDrawn == [1, 2])
    }

    @Test func scrollingOneLineShiftsInsteadOfRedrawing() {
        let rows = TestRows(count: 60)
        let (table, canvas) = makeTable(rows, lines: 20, columns: 40)
        table.select(row: 18)
        table.render(into: canvas)
        canvas.clearOperations()
        table.moveSelection(by: 1)  // scrolls by one
        table.render(into: canvas)
        #expect(canvas.operations.contains(.deleteLines(count: 1, at: 1, regionEnd: 19)))  // the old selection line is redrawn anyway
        #expect(canvas.linesDrawn == [18, 19])
    }

    /// Random batches, ticks, keys and resizes: after each render the canvas equals a
    /// fresh render of the same state, the selection keeps its row (or its neighbour),
    /// and nothing is drawn outside the canvas.
    @Test func incrementalRenderingMatchesAFreshRender() throws {
        let seed: UInt64 = 0xC0FFEE
        var rng = SplitMix64(seed: seed)
        for round in 0..<40 {
            let rows = TestRows(count: Int.random(in: 0...40, using: &rng))
            var nextID = 1000
            let (table, canvas) = makeTable(rows, lines: Int.random(in: 3...14, using: &rng),
                                            columns: Int.random(in: 14...50, using: &rng),
                                            theme: .standard(colors: .extended),
                                            animations: Bool.random(using: &rng))
            let screen = ScreenCanvas(canvas)
            var now = 0.0
            for step in 0..<40 {
                let context = "seed \(seed) round \(round) step \(step)"
                let selectedID = table.state.selection.map { rows.rows[$0].id }
                var deleted = Set<Int>()
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<5:
                    let batch = rows.update { r in
                        for _ in 0..<Int.random(in: 0...3, using: &rng) where !r.isEmpty {
                            deleted.insert(r.remove(at: Int.random(in: 0..<r.count, using: &rng)).id)
                        }
                        for _ in 0..<Int.random(in: 0...3, using: &rng) {
                            nextID += 1
                            r.insert((id: nextID, cells: ["n\(nextID)", "\(nextID % 97)"]), at: Int.random(in: 0...r.count, using: &rng))
                        }
                        if r.count > 1 && Bool.random(using: &rng) {
                            let row = r.remove(at: Int.random(in: 0..<r.count, using: &rng))
                            r.insert(row, at: Int.random(in: 0...r.count, using: &rng))
                        }
                        if !r.isEmpty && Bool.random(using: &rng) {
                            let i = Int.random(in: 0..<r.count, using: &rng)
                            r[i].cells[1] = "\(Int.random(in: 0..<1000, using: &rng))"
                        }
                    }
                    try table.performBatchUpdates(batch, now: now)
                    if let selectedID {
                        if deleted.contains(selectedID) {
                            #expect(table.state.selection != nil || rows.rows.isEmpty, "\(context)")
                        } else {
                            #expect(table.state.selection.map { rows.rows[$0].id } == selectedID, "\(context)")
                        }
                    }
                case 5, 6:
                    now += Double.random(in: 0...0.5, using: &rng)
                    table.tick(now: now)
                case 7, 8:
                    let keys: [Key] = [.up, .down, .pageUp, .pageDown, .home, .end, .left, .right,
                                       .mouse(MouseEvent(.wheelDown, line: 1, column: 1))]
                    table.handle(keys.randomElement(using: &rng)!)
                default:
                    canvas.resize(rows: Int.random(in: 1...14, using: &rng), columns: Int.random(in: 8...50, using: &rng))
                    screen.forget()  // a resize may clear the terminal, even to the same size
                }
                table.render(into: screen)
                let fresh = MemoryCanvas(rows: canvas.size.rows, columns: canvas.size.columns)
                let savedKeys = table.shownKeys
                table.render(into: ScreenCanvas(fresh))
                table.shownKeys = savedKeys
                #expect(canvas.cells == fresh.cells, "\(context)\n\(canvas.lines.joined(separator: "\n"))\n--\n\(fresh.lines.joined(separator: "\n"))")
                #expect(canvas.violations.isEmpty, "\(context): \(canvas.violations)")
                if let s = table.state.selection { #expect(s < rows.rows.count, "\(context)") }
            }
        }
    }
}
