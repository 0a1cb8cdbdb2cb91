// A chart on a canvas, updated in place: only the cells that changed since the last draw are written.
import TableUI

/// Where a chart is shown on a canvas. Each `draw` hands every line of the chart to the screen
/// (`ScreenCanvas`), which writes only the runs of cells that differ from what it shows, so a
/// live chart whose one point moved costs a cell or two of terminal output, not a screen. The
/// view keeps no copy of what it drew: a plain canvas gets a screen of the view's own.
public final class ChartView {
    public let canvas: Canvas
    public let line: Int
    public let column: Int
    private let screen: ScreenCanvas

    /// A chart whose top left cell is at `line`, `column` of `canvas`.
    public init(canvas: Canvas, line: Int = 0, column: Int = 0) {
        self.canvas = canvas
        self.line = line
        self.column = column
        screen = ScreenCanvas.over(canvas)
    }

    /// Shows `grid`, then flushes when anything was written. What lies past the canvas's edges
    /// is left out (a terminal punishes a draw past its edge). `flush` false leaves the flush
    /// to the caller (a viewer drawing the rest of its screen in the same write).
    public func draw(_ grid: CellGrid, flush: Bool = true) {
        let rows = max(0, min(grid.size.rows, screen.size.rows - line))
        let columns = max(0, min(grid.size.columns, screen.size.columns - column))
        let before = screen.writes
        for y in 0..<rows where columns > 0 {
            let start = y * grid.size.columns
            screen.draw(grid.cells[start..<(start + columns)], line: line + y, column: column)
        }
        if flush && screen.writes != before { screen.flush() }
    }

    /// Forgets what the screen shows, so the next `draw` writes every cell (after the canvas
    /// was cleared or resized).
    public func forget() { screen.forget() }
}
