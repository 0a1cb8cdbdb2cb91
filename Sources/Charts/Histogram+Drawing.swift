// A histogram drawn in cells: a horizontal bar a bin, in eighths of a cell, its count beside it.
import TableUI

extension Histogram {
    /// The length of a bar for `count` when `largest` fills `cells` cells, in eighths of a
    /// cell: proportional to the count, except that a count that is not zero always shows
    /// (one eighth at least) and only the largest counts fill every eighth.
    public static func barEighths(count: Int, largest: Int, cells: Int) -> Int {
        guard count > 0, largest > 0 else { return 0 }
        let exact = Double(count) / Double(largest) * Double(cells * 8)
        return min(cells * 8, max(1, Int(exact.rounded())))
    }

    /// The bar's characters: full blocks, then the block of the remaining eighths.
    public static func bar(eighths: Int) -> String {
        var text = String(repeating: "█", count: eighths / 8)
        // U+2589 (seven eighths) down to U+258F (one eighth).
        if eighths % 8 > 0 { text.append(Character(Unicode.Scalar(0x2590 - UInt32(eighths % 8))!)) }
        return text
    }

    /// The histogram in `size`: bins from the lowest (bottom) to the highest (top), each one
    /// or more lines high; value labels on the left, counts below and at each bar's end.
    /// When there are more bins than lines, says so instead.
    public func draw(size: CanvasSize) -> CellGrid {
        var grid = CellGrid(size: size)
        let largest = counts.max() ?? 0
        let countWidth = String(largest).count
        let yLabels = AxisLabels(scale, width: PlotFrame.yLabelLimit(size))
        let binLines = (size.rows - 3) / binCount
        let barCells = size.columns - yLabels.width - 1 - (countWidth + 1)
        guard binLines >= 1, barCells >= 1 else {
            grid.write("\(binCount) bins do not fit in \(size.columns)×\(size.rows)", line: 0, column: 0)
            return grid
        }
        grid.writeLegend([], leftOut: leftOut, line: 0)
        // The frame spans only the bars, so the count axis's top label ends where the
        // largest bar does.
        let frame = PlotFrame(size: CanvasSize(rows: 3 + binLines * binCount, columns: yLabels.width + 1 + barCells),
                              yLabelWidth: yLabels.width, legend: true)
        let xLabels = AxisLabels(low: "0", middle: axisLabel(Double(largest) / 2, width: countWidth + 2), high: String(largest))
        frame.drawAxes(into: &grid, x: xLabels, y: yLabels)
        for (bin, count) in counts.enumerated() where count > 0 {
            let bar = Histogram.bar(eighths: Histogram.barEighths(count: count, largest: largest, cells: barCells))
            let top = frame.xAxisLine - (bin + 1) * binLines
            for line in top..<top + binLines { grid.write(bar, line: line, column: frame.plotLeft) }
            grid.write(String(count), line: top + binLines - 1, column: frame.plotLeft + bar.count + 1, style: CellStyle(.dim))
        }
        return grid
    }
}
