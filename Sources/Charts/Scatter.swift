// Points of two numeric columns, one a slot (a row), placed on dots and kept placed as rows change.
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

/// A scatter of points in a chart of a fixed size, each point in a numbered slot (a viewer's
/// row, a command's child). Each point lights one dot; the chart counts the points on every dot
/// (and, when coloured, each colour's points in every cell) in flat arrays, so a million points
/// are placed in one pass without an allocation each, moving one point redraws only the cells
/// it leaves and enters, and a dot goes dark exactly when its last point leaves. The scales stay
/// as they were made: a point moved out of them is left out and counted, not rescaled for.
public struct Scatter {
    public var xScale: Scale { surface.xScale }
    public var yScale: Scale { surface.yScale }
    public var dots: DotGrid { surface.dots }
    public let frame: PlotFrame
    /// The most frequent categories, then "other" for the rest (empty when not coloured).
    public let legend: [LegendEntry]
    /// Each slot's values (NaN in a slot without a point).
    public private(set) var xs: [Double]
    public private(set) var ys: [Double]
    /// Points not drawn.
    public private(set) var leftOut = LeftOut()
    /// Slots holding a point, drawn or left out.
    public private(set) var pointCount = 0
    /// The chart as it should look now.
    public private(set) var grid: CellGrid

    private let colourOf: [String: Int]
    private var surface: PlotSurface
    /// Per slot: the index of its point's dot (y · dotsAcross + x), or `Scatter.noPoint`, or
    /// `Scatter.notPlaced` for a point left out.
    private var dotOf: [Int32]
    /// Per slot, when coloured: its point's colour.
    private var colours: [UInt8]
    /// Points on each dot, by dot index.
    private var onDot: [Int32]
    /// When coloured: each colour's points in each cell, at cell index · colourSlots + colour.
    private var colourCounts: [Int32]

    private static let noPoint: Int32 = -1, notPlaced: Int32 = -2
    private static let colourSlots = ChartPalette.other + 1

    /// A scatter of `xs[i]` against `ys[i]`, slot `i` each; a slot whose x or y is NaN holds no
    /// point (a row without numbers: JSON has no NaN), one with an infinity is left out and counted.
    /// - Parameters:
    ///   - categories: each slot's category, for colours (nil: not coloured).
    ///   - xScale, yScale: fitted to the points, linearly, when nil (a logarithmic default would
    ///     leave out the points at zero, and a scatter is read point by point).
    ///   - legendSize: how many categories get their own colour; the rest are "other".
    public init(xs: [Double], ys: [Double], categories: [String?]? = nil, size: CanvasSize, marker: Marker = .braille,
                xScale: Scale? = nil, yScale: Scale? = nil, legendSize: Int = 5) {
        precondition(xs.count == ys.count && (categories?.count ?? xs.count) == xs.count, "a scatter's columns differ in length")
        let isPoint = { (i: Int) in !xs[i].isNaN && !ys[i].isNaN }
        let (legend, colourOf) = categories.map { Scatter.legend($0, isPoint, size: legendSize) } ?? ([], [:])
        let colours = legend.isEmpty ? [] : categories!.map { UInt8(Scatter.colour(of: $0, colourOf, legend)) }
        self.init(xs: xs, ys: ys, isPoint: isPoint, colours: colours, legend: legend, colourOf: colourOf,
                  size: size, marker: marker, xScale: xScale, yScale: yScale)
    }

    private init(xs: [Double], ys: [Double], isPoint: (Int) -> Bool, colours: [UInt8], legend: [LegendEntry], colourOf: [String: Int],
                 size: CanvasSize, marker: Marker, xScale: Scale?, yScale: Scale?) {
        let xScale = xScale ?? Scatter.fitting(xs, isPoint)
        let yScale = yScale ?? Scatter.fitting(ys, isPoint)
        let limit = PlotFrame.yLabelLimit(size)
        let yLabels = AxisLabels(yScale, width: limit)
        frame = PlotFrame(size: size, yLabelWidth: yLabels.width, legend: true)
        surface = PlotSurface(x: xScale, y: yScale, marker: marker, columns: frame.plotColumns, rows: frame.plotRows)
        grid = CellGrid(size: size)
        self.legend = legend
        self.colourOf = colourOf
        self.xs = xs
        self.ys = ys
        self.colours = colours
        dotOf = Array(repeating: Scatter.noPoint, count: xs.count)
        onDot = Array(repeating: 0, count: surface.dots.dotsAcross * surface.dots.dotsDown)
        colourCounts = Array(repeating: 0, count: legend.isEmpty ? 0 : frame.plotColumns * frame.plotRows * Scatter.colourSlots)
        frame.drawAxes(into: &grid, x: AxisLabels(xScale, width: limit), y: yLabels)
        placeAll(isPoint)
        redrawLegend()
    }

    /// A linear scale fitted to the values of the slots holding a point.
    private static func fitting(_ values: [Double], _ isPoint: (Int) -> Bool) -> Scale {
        withoutActuallyEscaping(isPoint) { isPoint in
            Scale.fitting(values.indices.lazy.filter(isPoint).map { values[$0] }, logarithmic: false)
        }
    }

    /// The same points, colours and legend in another size, on scales fitted to them again.
    public func resized(to size: CanvasSize) -> Scatter {
        let dotOf = self.dotOf
        return Scatter(xs: xs, ys: ys, isPoint: { dotOf[$0] != Scatter.noPoint }, colours: colours, legend: legend, colourOf: colourOf,
                       size: size, marker: dots.marker, xScale: nil, yScale: nil)
    }

    /// The legend's categories: the most frequent first, ties by name so the colours do not
    /// depend on dictionary order.
    private static func legend(_ categories: [String?], _ isPoint: (Int) -> Bool, size: Int) -> ([LegendEntry], [String: Int]) {
        var frequency: [String: Int] = [:]
        for (i, c) in categories.enumerated() where isPoint(i) { if let c { frequency[c, default: 0] += 1 } }
        let ranked = frequency.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let named = ranked.prefix(min(size, ChartPalette.terminal.count))
        let entries = named.enumerated().map { LegendEntry(name: $1.key, colour: $0) }
            + (ranked.count > named.count ? [LegendEntry(name: "other", colour: ChartPalette.other)] : [])
        return (entries, Dictionary(uniqueKeysWithValues: named.enumerated().map { ($1.key, $0) }))
    }

    private static func colour(of category: String?, _ colourOf: [String: Int], _ legend: [LegendEntry]) -> Int {
        category.flatMap { colourOf[$0] } ?? (legend.isEmpty ? 0 : ChartPalette.other)
    }

    private func colour(of category: String?) -> Int { Scatter.colour(of: category, colourOf, legend) }

    /// How many slots there are (with a point or not).
    public var slotCount: Int { xs.count }

    /// Where `point` is drawn and in which colour; nil when it is left out.
    public func placement(of point: ScatterPoint) -> (dot: Dot, colour: Int)? {
        guard let dot = surface.dot(x: point.x, y: point.y) else { return nil }
        return (dot, colour(of: point.category))
    }

    /// The plot cell of slot `slot`'s point; nil when it has none or it is left out.
    public func cell(ofSlot slot: Int) -> PlotCell? {
        let d = Int(dotOf[slot])
        return d < 0 ? nil : dots.cell(of: dot(ofIndex: d))
    }

    /// The colour slot `slot`'s point is drawn in (0 when the chart is not coloured).
    public func colourIndex(ofSlot slot: Int) -> Int { legend.isEmpty ? 0 : Int(colours[slot]) }

    /// Whether slot `slot` holds a point (drawn or left out).
    public func hasPoint(_ slot: Int) -> Bool { dotOf[slot] != Scatter.noPoint }

    /// Slot `slot`'s point changed to `point` (nil: it has none now); `slot == slotCount` adds a slot.
    /// - Returns: the plot cells whose look may have changed (the one left and the one entered).
    @discardableResult
    public mutating func move(_ slot: Int, to point: ScatterPoint?) -> Set<PlotCell> {
        precondition(slot >= 0 && slot <= slotCount, "no slot \(slot) in a scatter of \(slotCount)")
        if slot == slotCount {
            xs.append(.nan)
            ys.append(.nan)
            dotOf.append(Scatter.noPoint)
            if !legend.isEmpty { colours.append(0) }
        }
        var touched = Set<PlotCell>()
        let before = leftOut
        if let cell = take(slot) { touched.insert(cell) }
        if let point, let cell = put(slot, point) { touched.insert(cell) }
        for cell in touched { redraw(cell) }
        if leftOut != before { redrawLegend() }
        return touched
    }

    /// The slots whose points are in the cell at `line`, `column` of the chart, ascending.
    /// - Complexity: O(slots): read when a user opens a cell, not while the chart is live.
    public func slots(line: Int, column: Int) -> [Int] {
        let wanted = PlotCell(column: column - frame.plotLeft, row: line - frame.plotTop)
        return dotOf.indices.filter { cell(ofSlot: $0) == wanted }
    }

    // MARK: Counting points on dots and in cells

    /// Places every slot's point: one pass counting points on dots, then each lit dot set and
    /// each cell drawn once.
    private mutating func placeAll(_ isPoint: (Int) -> Bool) {
        let coloured = !legend.isEmpty
        for slot in xs.indices where isPoint(slot) {
            let x = xs[slot], y = ys[slot]
            pointCount += 1
            guard let dot = surface.dot(x: x, y: y) else {
                dotOf[slot] = Scatter.notPlaced
                count(x: x, y: y, by: 1)
                continue
            }
            let d = index(of: dot)
            dotOf[slot] = Int32(d)
            onDot[d] += 1
            if coloured { colourCounts[cellIndex(ofDot: d) * Scatter.colourSlots + Int(colours[slot])] += 1 }
        }
        for d in onDot.indices where onDot[d] > 0 { surface.dots.set(dot(ofIndex: d)) }
        for row in 0..<frame.plotRows {
            for column in 0..<frame.plotColumns { redraw(PlotCell(column: column, row: row)) }
        }
    }

    private mutating func put(_ slot: Int, _ point: ScatterPoint) -> PlotCell? {
        xs[slot] = point.x
        ys[slot] = point.y
        pointCount += 1
        let pointColour = colour(of: point.category)
        if !legend.isEmpty { colours[slot] = UInt8(pointColour) }
        guard let dot = surface.dot(x: point.x, y: point.y) else {
            dotOf[slot] = Scatter.notPlaced
            count(x: point.x, y: point.y, by: 1)
            return nil
        }
        let d = index(of: dot)
        dotOf[slot] = Int32(d)
        onDot[d] += 1
        surface.dots.set(dot)
        if !legend.isEmpty { colourCounts[cellIndex(ofDot: d) * Scatter.colourSlots + pointColour] += 1 }
        return dots.cell(of: dot)
    }

    private mutating func take(_ slot: Int) -> PlotCell? {
        let d = Int(dotOf[slot])
        defer {
            dotOf[slot] = Scatter.noPoint
            xs[slot] = .nan
            ys[slot] = .nan
        }
        if d == Int(Scatter.noPoint) { return nil }
        pointCount -= 1
        if d == Int(Scatter.notPlaced) {
            count(x: xs[slot], y: ys[slot], by: -1)
            return nil
        }
        let left = dot(ofIndex: d)
        onDot[d] -= 1
        if onDot[d] == 0 { surface.dots.unset(left) }
        if !legend.isEmpty { colourCounts[cellIndex(ofDot: d) * Scatter.colourSlots + Int(colours[slot])] -= 1 }
        return dots.cell(of: left)
    }

    private mutating func count(x: Double, y: Double, by delta: Int) {
        if x.isFinite && y.isFinite { leftOut.outside += delta } else { leftOut.nonFinite += delta }
    }

    private func index(of dot: Dot) -> Int { dot.y * dots.dotsAcross + dot.x }
    private func dot(ofIndex d: Int) -> Dot { Dot(x: d % dots.dotsAcross, y: d / dots.dotsAcross) }
    private func cellIndex(ofDot d: Int) -> Int {
        let cell = dots.cell(of: dot(ofIndex: d))
        return cell.row * frame.plotColumns + cell.column
    }

    /// A cell shows its dots in the colour most of its points have (the lower index on a tie).
    private mutating func redraw(_ cell: PlotCell) {
        var style = CellStyle.plain
        if !legend.isEmpty {
            let base = (cell.row * frame.plotColumns + cell.column) * Scatter.colourSlots
            var best = 0
            for c in 0..<Scatter.colourSlots where colourCounts[base + c] > best {
                best = Int(colourCounts[base + c])
                style = ChartPalette.style(c)
            }
        }
        grid[frame.plotTop + cell.row, frame.plotLeft + cell.column] = ChartCell(surface.character(at: cell), style: style)
    }

    private mutating func redrawLegend() {
        for column in 0..<grid.size.columns { grid[0, column] = .blank }
        grid.writeLegend(legend, leftOut: leftOut, line: 0)
    }
}
