// Where a chart's parts go in a rectangle of cells, and its axes drawn there.
import TableUI

/// The layout of a chart in `size`: an optional legend line on top, the y labels on the
/// left, an axis line, the plot area, and the x axis and its labels below.
public struct PlotFrame: Hashable, Sendable {
    public let size: CanvasSize
    public let plotTop: Int
    public let plotLeft: Int
    public let plotRows: Int
    public let plotColumns: Int

    /// - Parameters:
    ///   - yLabelWidth: the widest y label; the axis line goes just right of it.
    ///   - legend: keeps the top line for a legend.
    public init(size: CanvasSize, yLabelWidth: Int, legend: Bool) {
        self.size = size
        plotTop = legend ? 1 : 0
        plotLeft = yLabelWidth + 1
        plotRows = max(0, size.rows - plotTop - 2)
        plotColumns = max(0, size.columns - plotLeft)
    }

    /// The widest a y label may be in `size`: a quarter of the width, between 3 and 10.
    public static func yLabelLimit(_ size: CanvasSize) -> Int { max(3, min(10, size.columns / 4)) }

    /// Whether there is room for a plot at all (a line of two cells, with its axes).
    public var isUsable: Bool { plotRows >= 1 && plotColumns >= 2 }

    /// The line of the x axis; its labels are on the line below.
    public var xAxisLine: Int { plotTop + plotRows }

    /// Draws the axis lines and labels around the plot area.
    public func drawAxes(into grid: inout CellGrid, x: AxisLabels, y: AxisLabels) {
        guard isUsable else { return }
        let axis = CellStyle(.dim)
        for line in plotTop..<xAxisLine { grid[line, plotLeft - 1] = ChartCell("│", style: axis) }
        grid[xAxisLine, plotLeft - 1] = ChartCell("└", style: axis)
        for column in plotLeft..<size.columns { grid[xAxisLine, column] = ChartCell("─", style: axis) }
        let yWidth = plotLeft - 1
        grid.write(fit(y.high, width: yWidth, alignRight: true), line: plotTop, column: 0)
        grid.write(fit(y.low, width: yWidth, alignRight: true), line: xAxisLine - 1, column: 0)
        let middleLine = plotTop + (plotRows - 1) / 2
        if plotRows >= 3 { grid.write(fit(y.middle, width: yWidth, alignRight: true), line: middleLine, column: 0) }
        // Below the axis: the low end at the left, the high end flush right, the middle
        // centred between them when it does not run into either.
        let labelLine = xAxisLine + 1
        let highStart = max(plotLeft, size.columns - x.high.count)
        grid.write(x.low, line: labelLine, column: plotLeft)
        if highStart >= plotLeft + x.low.count + 1 { grid.write(x.high, line: labelLine, column: highStart) }
        let middleStart = plotLeft + (plotColumns - x.middle.count) / 2
        if middleStart > plotLeft + x.low.count, middleStart + x.middle.count < highStart {
            grid.write(x.middle, line: labelLine, column: middleStart)
        }
    }
}
