import Testing
#if canImport(Glibc)
import Glibc
#endif
import TableUI
import TestSupport
@testable import Charts

@Suite struct HistogramTests {
    @Test func countsValuesInEqualBinsAndLeavesOutWhatCannotBePlaced() {
        let h = Histogram([0, 1, 2, 3, 4, 5, 6, 7, 8, 10, .nan, .infinity], binCount: 5)
        #expect(h.scale == Scale(lower: 0, upper: 10))
        #expect(h.counts == [2, 2, 2, 2, 2])
        #expect(h.leftOut == LeftOut(nonFinite: 2, outside: 0))
        #expect(h.draw(size: CanvasSize(rows: 10, columns: 40)).lines[0].hasSuffix("2 left out (2 not finite)"))
    }

    @Test func logarithmicBinsByDefaultOverManyOrdersOfMagnitude() {
        let h = Histogram([1, 5, 20, 50, 200, 500, 2000, 5000, 10000], binCount: 4)
        #expect(h.scale.isLogarithmic)
        #expect(h.counts == [2, 2, 2, 3])
        #expect(abs(h.edges(of: 1).lower - 10) < 1e-9)
        #expect(!Histogram([1, 5, 20, 50, 200, 500, 1000], binCount: 4).scale.isLogarithmic)
        // Zeros beside them: still logarithmic, the zeros left out and counted.
        let views = Histogram([0, 0, 2, 30, 400, 5000], binCount: 4)
        #expect(views.scale.isLogarithmic && views.counts == [1, 1, 1, 1])
        #expect(views.leftOut == LeftOut(nonFinite: 0, outside: 2))
    }

    @Test func barsAreProportionalInEighthsOfACell() {
        #expect(Histogram.barEighths(count: 0, largest: 60000, cells: 40) == 0)
        #expect(Histogram.barEighths(count: 1, largest: 60000, cells: 40) == 1)
        #expect(Histogram.barEighths(count: 30000, largest: 60000, cells: 40) == 160)
        #expect(Histogram.barEighths(count: 60000, largest: 60000, cells: 40) == 320)
        #expect(Histogram.barEighths(count: 3, largest: 8, cells: 1) == 3)
        #expect(Histogram.bar(eighths: 19) == "██▍")
        #expect(Histogram.bar(eighths: 1) == "▏")
        #expect(Histogram.bar(eighths: 0) == "")
    }

    @Test func aLoneValueAmongSixtyThousandDrawsLessThanACellAndAnEmptyBinNothing() {
        var h = Histogram(scale: Scale(lower: 0, upper: 10), binCount: 10)
        for _ in 0..<60000 { h.insert(0.5) }
        h.insert(9.5)
        #expect(h.counts == [60000, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        let grid = h.draw(size: CanvasSize(rows: 13, columns: 50))
        // Bin 9 (the top line of bars) holds 1: one eighth and its count; bins 1-8 are empty.
        let frameLeft = grid.text(line: 1).firstIndex(of: "│")!
        let top = grid.text(line: 1)[grid.text(line: 1).index(after: frameLeft)...]
        #expect(top.hasPrefix("▏ 1"))
        for line in 2...9 { #expect(grid.text(line: line).allSatisfy { !"▏▎▍▌▋▊▉█".contains($0) }, "line \(line)") }
        #expect(grid.text(line: 10).contains("█ 60000"))
    }

    @Test func replaceMovesOneCountBetweenBins() {
        var h = Histogram([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], binCount: 3)
        let before = h.counts
        #expect(h.replace(old: 2, new: 9) == [0, 2])
        #expect(h.counts == [before[0] - 1, before[1], before[2] + 1])
        #expect(h.replace(old: 9, new: 9.5) == [])
        #expect(h.replace(old: 9.5, new: .nan) == [2])
        #expect(h.leftOut.nonFinite == 1)
        #expect(h.replace(old: .nan, new: 100) == [])
        #expect(h.leftOut == LeftOut(nonFinite: 0, outside: 1))
    }

    /// After random edits (inserts, removals, changes, some to values that cannot be placed)
    /// the counts are those of the same bins counted from scratch.
    @Test func randomEditsKeepTheCountsOfACountFromScratch() {
        forEachSeed(50) { seed, rng in
            let logarithmic = rng.chance(0.5)
            var values = (0..<rng.int(1...60)).map { _ in randomValue(&rng) }
            var h = Histogram(values, binCount: rng.int(1...12), logarithmic: logarithmic)
            for _ in 0..<200 {
                switch rng.int(0..<3) {
                case 0:
                    let v = randomValue(&rng)
                    values.append(v)
                    h.insert(v)
                case 1 where !values.isEmpty:
                    h.remove(values.remove(at: rng.int(0..<values.count)))
                default:
                    guard !values.isEmpty else { continue }
                    let i = rng.int(0..<values.count)
                    let new = randomValue(&rng)
                    h.replace(old: values[i], new: new)
                    values[i] = new
                }
            }
            var fresh = Histogram(scale: h.scale, binCount: h.binCount)
            for v in values { fresh.insert(v) }
            #expect(h == fresh, "seed \(seed)")
            #expect(h.total + h.leftOut.total == values.count, "seed \(seed)")
        }
    }
}

/// Mostly values in 0.01…1000, some negative, zero, out of range or not finite.
private func randomValue(_ rng: inout SplitMix64) -> Double {
    if rng.chance(0.05) { return rng.pick([.nan, .infinity, -.infinity, 0, -5, 1e9]) }
    return pow(10, Double.random(in: -2...3, using: &rng))
}
