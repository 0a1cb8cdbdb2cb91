// A chart on a canvas, updated in place: only the cells that changed since the last draw are written.
import TableUI

/// Where a chart is shown on a canvas. It keeps the cells it last drew, and each `draw`
/// writes only the runs of cells that differ from them, so a live chart whose one point
/// moved costs a cell or two of terminal output, not a screen.
public final class ChartView {
    public let canvas: Canvas
    public let line: Int
    public let column: Int
    private var drawn: CellGrid?

    /// A chart whose top left cell is at `line`, `column` of `canvas`.
    public init(canvas: Canvas, line: Int = 0, column: Int = 0) {
        self.canvas = canvas
        self.line = line
        self.column = column
    }

    /// Shows `grid`: writes each run of consecutive changed cells of one style on a line as
    /// one draw, then flushes. Nothing is written when nothing changed. What lies past the
    /// canvas's edges is left out (a terminal punishes a draw past its edge). `flush` false
    /// leaves the flush to the caller (a viewer drawing the rest of its screen in the same write).
    public func draw(_ grid: CellGrid, flush: Bool = true) {
        let previous = drawn?.size == grid.size ? drawn : nil
        let rows = max(0, min(grid.size.rows, canvas.size.rows - line))
        let columns = max(0, min(grid.size.columns, canvas.size.columns - column))
        var wrote = false
        for y in 0..<rows {
            var x = 0
            while x < columns {
                guard previous.map({ $0[y, x] != grid[y, x] }) ?? true else { x += 1; continue }
                let style = grid[y, x].style
                var text = ""
                let start = x
                while x < columns, grid[y, x].style == style, previous.map({ $0[y, x] != grid[y, x] }) ?? true {
                    text.append(grid[y, x].text)
                    x += 1
                }
                canvas.draw(text, line: line + y, column: column + start, style: style)
                wrote = true
            }
        }
        drawn = grid
        if wrote && flush { canvas.flush() }
    }

    /// Forgets what was drawn, so the next `draw` writes every cell (after the canvas was
    /// cleared or resized).
    public func forget() { drawn = nil }
}
