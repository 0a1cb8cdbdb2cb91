// Points of two numeric columns, each a row's, placed on dots and kept placed as rows change.
import TableUI

/// One row's point: its two values and, when the chart is coloured, its category.
public struct ScatterPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var category: String?
    public init(x: Double, y: Double, category: String? = nil) {
        self.x = x
        self.y = y
        self.category = category
    }
}

/// A scatter of rows' points in a chart of a fixed size. Each point lights one dot; the chart
/// counts the points on every dot and in every cell, so moving one point redraws only the
/// cells it leaves and enters, and the rows under any cell can be listed. The scales stay as
/// they were made: a point moved out of them is left out and counted, not rescaled for.
public struct Scatter {
    public var xScale: Scale { surface.xScale }
    public var yScale: Scale { surface.yScale }
    public var dots: DotGrid { surface.dots }
    public let frame: PlotFrame
    /// The most frequent categories, then "other" for the rest (empty when not coloured).
    public let legend: [LegendEntry]
    public private(set) var points: [String: ScatterPoint] = [:]
    /// Points not drawn.
    public private(set) var leftOut = LeftOut()
    /// The chart as it should look now.
    public private(set) var grid: CellGrid

    private let colourOf: [String: Int]
    private var surface: PlotSurface
    private var pointsOnDot: [Dot: Int] = [:]
    private var rowsInCell: [PlotCell: Set<String>] = [:]
    private var coloursInCell: [PlotCell: [Int: Int]] = [:]

    /// - Parameters:
    ///   - xScale, yScale: fitted to the points, linearly, when nil (a logarithmic default would
    ///     leave out the points at zero, and a scatter is read point by point).
    ///   - legendSize: how many categories get their own colour; the rest are "other".
    public init(points: [String: ScatterPoint], size: CanvasSize, marker: Marker = .braille,
                xScale: Scale? = nil, yScale: Scale? = nil, legendSize: Int = 5) {
        let xScale = xScale ?? .fitting(points.values.map(\.x), logarithmic: false)
        let yScale = yScale ?? .fitting(points.values.map(\.y), logarithmic: false)
        let limit = PlotFrame.yLabelLimit(size)
        let yLabels = AxisLabels(yScale, width: limit)
        frame = PlotFrame(size: size, yLabelWidth: yLabels.width, legend: true)
        surface = PlotSurface(x: xScale, y: yScale, marker: marker, columns: frame.plotColumns, rows: frame.plotRows)
        grid = CellGrid(size: size)

        // The legend's categories: the most frequent first, ties by name so the colours
        // do not depend on dictionary order.
        var frequency: [String: Int] = [:]
        for point in points.values { if let c = point.category { frequency[c, default: 0] += 1 } }
        let ranked = frequency.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let named = ranked.prefix(min(legendSize, ChartPalette.terminal.count))
        colourOf = Dictionary(uniqueKeysWithValues: named.enumerated().map { ($1.key, $0) })
        legend = named.enumerated().map { LegendEntry(name: $1.key, colour: $0) }
            + (ranked.count > named.count ? [LegendEntry(name: "other", colour: ChartPalette.other)] : [])

        frame.drawAxes(into: &grid, x: AxisLabels(xScale, width: limit), y: yLabels)
        for (row, point) in points { move(row, to: point) }
        redrawLegend()
    }

    /// Where `point` is drawn and in which colour; nil when it is left out.
    public func placement(of point: ScatterPoint) -> (dot: Dot, colour: Int)? {
        guard let dot = surface.dot(x: point.x, y: point.y) else { return nil }
        return (dot, point.category.flatMap { colourOf[$0] } ?? (legend.isEmpty ? 0 : ChartPalette.other))
    }

    /// `row`'s point changed to `point` (nil: the row is gone; a new row: it appears).
    /// - Returns: the plot cells whose look may have changed (the one left and the one entered).
    @discardableResult
    public mutating func move(_ row: String, to point: ScatterPoint?) -> Set<PlotCell> {
        var touched = Set<PlotCell>()
        let before = leftOut
        if let old = points[row] {
            if let (dot, colour) = placement(of: old) { touched.insert(take(row, from: dot, colour: colour)) } else { count(old, by: -1) }
        }
        points[row] = point
        if let point {
            if let (dot, colour) = placement(of: point) { touched.insert(put(row, on: dot, colour: colour)) } else { count(point, by: 1) }
        }
        for cell in touched { redraw(cell) }
        if leftOut != before { redrawLegend() }
        return touched
    }

    /// The rows whose points are in the cell at `line`, `column` of the chart, sorted.
    public func rows(line: Int, column: Int) -> [String] {
        let cell = PlotCell(column: column - frame.plotLeft, row: line - frame.plotTop)
        return (rowsInCell[cell] ?? []).sorted()
    }

    private mutating func put(_ row: String, on dot: Dot, colour: Int) -> PlotCell {
        let cell = dots.cell(of: dot)
        pointsOnDot[dot, default: 0] += 1
        surface.dots.set(dot)
        rowsInCell[cell, default: []].insert(row)
        coloursInCell[cell, default: [:]][colour, default: 0] += 1
        return cell
    }

    private mutating func take(_ row: String, from dot: Dot, colour: Int) -> PlotCell {
        let cell = dots.cell(of: dot)
        pointsOnDot[dot]! -= 1
        if pointsOnDot[dot] == 0 {
            pointsOnDot[dot] = nil
            surface.dots.unset(dot)
        }
        rowsInCell[cell]!.remove(row)
        if rowsInCell[cell]!.isEmpty { rowsInCell[cell] = nil }
        coloursInCell[cell]![colour]! -= 1
        if coloursInCell[cell]![colour] == 0 { coloursInCell[cell]![colour] = nil }
        return cell
    }

    private mutating func count(_ point: ScatterPoint, by delta: Int) {
        if point.x.isFinite && point.y.isFinite { leftOut.outside += delta } else { leftOut.nonFinite += delta }
    }

    /// A cell shows its dots in the colour most of its points have (the lower index on a tie).
    private mutating func redraw(_ cell: PlotCell) {
        let colour = coloursInCell[cell]?.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
        let style = legend.isEmpty ? CellStyle.plain : colour.map(ChartPalette.style) ?? .plain
        grid[frame.plotTop + cell.row, frame.plotLeft + cell.column] = ChartCell(surface.character(at: cell), style: style)
    }

    private mutating func redrawLegend() {
        for column in 0..<grid.size.columns { grid[0, column] = .blank }
        grid.writeLegend(legend, leftOut: leftOut, line: 0)
    }
}
