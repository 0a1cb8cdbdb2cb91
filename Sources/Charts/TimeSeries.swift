// Values over time: one line, or the top few series as labelled lines, with a marked moment.
import TableUI

/// One value at one time (seconds since 1970, UTC).
public struct TimePoint: Hashable, Sendable {
    public var time: Double
    public var value: Double
    public init(time: Double, value: Double) {
        self.time = time
        self.value = value
    }
}

/// A named series of values over time.
public struct TimeLine: Hashable, Sendable {
    public var name: String
    public var points: [TimePoint]
    public init(name: String, points: [TimePoint]) {
        self.name = name
        self.points = points
    }
}

/// Lines of values over time on shared scales; x is real time, labelled as times. A moment
/// (the time machine's position) can be marked by a vertical line.
public struct TimeSeries: Hashable, Sendable {
    /// The lines drawn, in legend (and colour) order.
    public let lines: [TimeLine]
    public let timeScale: Scale
    public let valueScale: Scale
    /// The marked moment, if any.
    public var position: Double?
    /// Points not drawn (not finite).
    public let leftOut: LeftOut

    /// - Parameters:
    ///   - series: every series; each one's points in any order (they are sorted by time).
    ///   - top: draw only the `top` series with the largest last values (all when nil).
    public init(_ series: [TimeLine], top: Int? = nil, position: Double? = nil) {
        let ranked = series.map { TimeLine(name: $0.name, points: $0.points.sorted { $0.time < $1.time }) }
            .sorted { a, b in
                let (x, y) = (TimeSeries.lastValue(a), TimeSeries.lastValue(b))
                return x != y ? x > y : a.name < b.name
            }
        lines = Array(ranked.prefix(top ?? ranked.count))
        let points = lines.flatMap(\.points)
        var leftOut = LeftOut()
        for p in points where !(p.time.isFinite && p.value.isFinite) { leftOut.nonFinite += 1 }
        self.leftOut = leftOut
        let drawn = points.filter { $0.time.isFinite && $0.value.isFinite }
        timeScale = .fitting(drawn.map(\.time), logarithmic: false)
        valueScale = .fitting(drawn.map(\.value), logarithmic: false)
        self.position = position
    }

    /// The last finite value of a line, for ranking (−∞ when it has none).
    private static func lastValue(_ line: TimeLine) -> Double {
        line.points.last { $0.value.isFinite && $0.time.isFinite }?.value ?? -.infinity
    }

    /// The legend: each line's name in its colour.
    public var legend: [LegendEntry] { lines.enumerated().map { LegendEntry(name: $1.name, colour: $0) } }

    /// The series drawn in `size` with `marker`: each line's consecutive points joined; a
    /// cell two lines cross takes the colour of the line ranked first.
    public func draw(size: CanvasSize, marker: Marker = .braille) -> CellGrid {
        var grid = CellGrid(size: size)
        let yLabels = AxisLabels(valueScale, width: PlotFrame.yLabelLimit(size))
        let frame = PlotFrame(size: size, yLabelWidth: yLabels.width, legend: true)
        grid.writeLegend(legend, leftOut: leftOut, line: 0)
        frame.drawAxes(into: &grid, x: timeLabels(timeScale), y: yLabels)
        guard frame.isUsable else { return grid }
        var colourOf: [PlotCell: Int] = [:]
        var dots = DotGrid(marker: marker, columns: frame.plotColumns, rows: frame.plotRows)
        // Drawn last first, so the first line's colour is the one left in a shared cell.
        for (index, line) in lines.enumerated().reversed() {
            var own = PlotSurface(x: timeScale, y: valueScale, marker: marker, columns: frame.plotColumns, rows: frame.plotRows)
            var previous: Dot?
            for p in line.points {
                guard let dot = own.plot(x: p.time, y: p.value) else { continue }
                if let previous { own.dots.line(from: previous, to: dot) }
                previous = dot
            }
            for row in 0..<frame.plotRows {
                for column in 0..<frame.plotColumns where own.dots.bits(at: PlotCell(column: column, row: row)) != 0 {
                    colourOf[PlotCell(column: column, row: row)] = index
                }
            }
            dots.merge(own.dots)
        }
        let markedColumn = position.flatMap { timeScale.fraction(of: $0) }.map { min(Int($0 * Double(frame.plotColumns)), frame.plotColumns - 1) }
        for row in 0..<frame.plotRows {
            for column in 0..<frame.plotColumns {
                let cell = PlotCell(column: column, row: row)
                var style = colourOf[cell].map(ChartPalette.style) ?? .plain
                var character = dots.character(at: cell)
                if column == markedColumn {
                    // The marked moment shows through the lines: reversed where a line is,
                    // a thin rule where none is.
                    if character == " " { character = "│" } else { style.attributes.insert(.reverse) }
                    style.attributes.insert(.bold)
                }
                grid[frame.plotTop + row, frame.plotLeft + column] = ChartCell(character, style: style)
            }
        }
        return grid
    }
}
