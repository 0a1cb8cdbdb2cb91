// A scatter addressed by row names, as the tests write them: slots in name order, new names
// appended.
import TableUI
@testable import Charts

/// A `Scatter` whose slots are named: the first points' names sorted, then names as they come.
struct NamedScatter {
    var chart: Scatter
    private(set) var names: [String]
    /// The points as they are now, by name (what a chart drawn from scratch would show).
    private(set) var points: [String: ScatterPoint]

    init(_ points: [String: ScatterPoint], size: CanvasSize, marker: Marker = .braille,
         xScale: Scale? = nil, yScale: Scale? = nil, legendSize: Int = 5) {
        names = points.keys.sorted()
        self.points = points
        let named = names.map { points[$0]! }
        chart = Scatter(xs: named.map(\.x), ys: named.map(\.y), categories: named.map(\.category), size: size, marker: marker,
                        xScale: xScale, yScale: yScale, legendSize: legendSize)
    }

    var grid: CellGrid { chart.grid }

    func slot(_ name: String) -> Int? { names.firstIndex(of: name) }

    /// Moves `name`'s point (a new name takes a new slot).
    @discardableResult
    mutating func move(_ name: String, to point: ScatterPoint?) -> Set<PlotCell> {
        points[name] = point
        if let slot = slot(name) { return chart.move(slot, to: point) }
        names.append(name)
        return chart.move(names.count - 1, to: point)
    }

    /// The names of the rows whose points are in the cell at `line`, `column`, sorted.
    func rows(line: Int, column: Int) -> [String] {
        chart.slots(line: line, column: column).map { names[$0] }.sorted()
    }
}
