import Testing
import TableUI
import TestSupport
@testable import Charts

/// The property: on the canvas, every point lands in the cell (and on the dot) its
/// values map to, and every cell with a mark has a point behind it — for random data, sizes
/// and markers, after the first draw and after points move in place.
@Suite struct ChartPropertyTests {
    @Test func everyPointIsInItsCellAndEveryMarkedCellHasAPoint() {
        forEachSeed(40) { seed, rng in
            let marker = rng.pick(Marker.allCases)
            let size = CanvasSize(rows: rng.int(5...30), columns: rng.int(12...80))
            var points: [String: ScatterPoint] = [:]
            for i in 0..<rng.int(0...150) { points["r\(i)"] = randomPoint(&rng) }
            var scatter = NamedScatter(points, size: size, marker: marker)
            let canvas = MemoryCanvas(rows: size.rows + 3, columns: size.columns + 2)
            let view = ChartView(canvas: canvas, line: 2, column: 1)
            view.draw(scatter.grid)
            check(scatter, canvas, origin: (2, 1), seed: seed)
            for _ in 0..<60 {
                let row = "r\(rng.int(0...160))"
                scatter.move(row, to: rng.chance(0.1) ? nil : randomPoint(&rng))
                view.draw(scatter.grid)
            }
            check(scatter, canvas, origin: (2, 1), seed: seed)
            #expect(canvas.violations.isEmpty, "seed \(seed)")
        }
    }

    /// The other property for the scatter: after a random sequence of moves (points
    /// appearing, moving, leaving the scales, going away), the live chart equals one drawn from
    /// scratch on the final points, cell for cell and colour for colour, with the same counts.
    @Test func aLiveScatterEqualsOneDrawnFromScratch() {
        forEachSeed(40) { seed, rng in
            let marker = rng.pick(Marker.allCases)
            let size = CanvasSize(rows: rng.int(5...30), columns: rng.int(12...80))
            let (xScale, yScale) = (Scale(lower: -40, upper: 40), Scale(lower: 0, upper: 8e5))
            // The anchor keeps "a" the one named category, so both legends are [a].
            var points = ["anchor": ScatterPoint(x: 0, y: 1, category: "a")]
            for i in 0..<rng.int(0...150) { points["r\(i)"] = randomPoint(&rng, categories: ["a", nil]) }
            var live = NamedScatter(points, size: size, marker: marker, xScale: xScale, yScale: yScale, legendSize: 1)
            for _ in 0..<rng.int(1...300) {
                live.move("r\(rng.int(0...160))", to: rng.chance(0.1) ? nil : randomPoint(&rng, categories: ["a", nil]))
            }
            let scratch = NamedScatter(live.points, size: size, marker: marker, xScale: xScale, yScale: yScale, legendSize: 1)
            #expect(live.grid == scratch.grid, "seed \(seed)")
            #expect(live.chart.pointCount == scratch.chart.pointCount && live.chart.leftOut == scratch.chart.leftOut, "seed \(seed)")
            #expect(live.chart.dots == scratch.chart.dots, "seed \(seed)")
        }
    }

    /// Compares the canvas with the points, mapping each point to its cell independently of
    /// the chart's own dot arithmetic: column ⌊fx·columns⌋, row from the bottom ⌊fy·rows⌋.
    private func check(_ named: NamedScatter, _ canvas: MemoryCanvas, origin: (line: Int, column: Int), seed: UInt64) {
        let scatter = named.chart
        let frame = scatter.frame
        let marker = scatter.dots.marker
        var expected: [Position: UInt8] = [:]
        for point in named.points.values {
            guard let fx = scatter.xScale.fraction(of: point.x), let fy = scatter.yScale.fraction(of: point.y) else { continue }
            let across = min(Int(fx * Double(frame.plotColumns * marker.dotColumns)), frame.plotColumns * marker.dotColumns - 1)
            let up = min(Int(fy * Double(frame.plotRows * marker.dotRows)), frame.plotRows * marker.dotRows - 1)
            let column = across / marker.dotColumns
            let row = frame.plotRows - 1 - up / marker.dotRows
            let bit = marker.bit(column: across % marker.dotColumns, row: marker.dotRows - 1 - up % marker.dotRows)
            expected[Position(origin.line + frame.plotTop + row, origin.column + frame.plotLeft + column), default: 0] |= bit
        }
        for row in 0..<frame.plotRows {
            for column in 0..<frame.plotColumns {
                let position = Position(origin.line + frame.plotTop + row, origin.column + frame.plotLeft + column)
                let shown = canvas.cells[position.line][position.column].text
                // A cell shows exactly the dots of the points mapped to it: none, so blank, when
                // no point is behind it.
                #expect(shown == String(marker.character(expected[position] ?? 0)), "seed \(seed) at \(position)")
            }
        }
    }
}

/// Points mostly in a random range, a few not finite.
private func randomPoint(_ rng: inout SplitMix64, categories: [String?] = ["a", "b", "c", nil]) -> ScatterPoint {
    if rng.chance(0.03) { return ScatterPoint(x: -.infinity, y: 1) }
    return ScatterPoint(x: Double.random(in: -50...50, using: &rng), y: Double.random(in: 0...1e6, using: &rng),
                        category: rng.pick(categories))
}
