import Testing
import TableUI
@testable import Charts

@Suite struct ChartViewTests {
    @Test func theFirstDrawWritesEveryCellAndShowsTheChart() {
        let canvas = MemoryCanvas(rows: 16, columns: 30)
        let view = ChartView(canvas: canvas, line: 2, column: 3)
        let s = NamedScatter(["a": ScatterPoint(x: 1, y: 2), "b": ScatterPoint(x: 3, y: 4)], size: CanvasSize(rows: 12, columns: 25))
        view.draw(s.grid)
        #expect(writtenCells(canvas).count == 12 * 25)
        for line in 0..<12 { #expect(canvas.text(line: line + 2).dropFirst(3).hasPrefix(s.grid.text(line: line)), "line \(line)") }
        #expect(canvas.violations.isEmpty)
    }

    @Test func afterOnePointMovesOnlyTheAffectedCellsAreWritten() {
        let canvas = MemoryCanvas(rows: 16, columns: 30)
        let view = ChartView(canvas: canvas, line: 2, column: 3)
        var s = NamedScatter(["a": ScatterPoint(x: 2.6, y: 7.3), "b": ScatterPoint(x: 9, y: 1)], size: CanvasSize(rows: 12, columns: 23),
                        xScale: Scale(lower: 0, upper: 10), yScale: Scale(lower: 0, upper: 10))
        view.draw(s.grid)
        canvas.clearOperations()
        s.move("a", to: ScatterPoint(x: 5, y: 5))
        view.draw(s.grid)
        // Chart cells (3, 8) and (5, 13), shifted by the view's origin.
        #expect(writtenCells(canvas) == [Position(5, 11), Position(7, 16)])
        #expect(canvas.cells[5][11].text == " ")
        #expect(canvas.cells[7][16].text == String(s.grid[5, 13].text))
        canvas.clearOperations()
        view.draw(s.grid)
        #expect(canvas.operations.isEmpty)
    }

    @Test func whatLiesPastTheCanvasIsLeftOut() {
        let canvas = MemoryCanvas(rows: 6, columns: 15)
        let view = ChartView(canvas: canvas, line: 1, column: 5)
        view.draw(Histogram([1, 2, 3], binCount: 3).draw(size: CanvasSize(rows: 10, columns: 20)))
        #expect(writtenCells(canvas).count == 5 * 10)
        #expect(canvas.violations.isEmpty)
    }

    @Test func forgettingRedrawsEverything() {
        let canvas = MemoryCanvas(rows: 10, columns: 20)
        let view = ChartView(canvas: canvas)
        let grid = Histogram([1, 2, 3], binCount: 3).draw(size: CanvasSize(rows: 10, columns: 20))
        view.draw(grid)
        canvas.clearOperations()
        view.forget()
        view.draw(grid)
        #expect(writtenCells(canvas).count == 200)
    }
}
