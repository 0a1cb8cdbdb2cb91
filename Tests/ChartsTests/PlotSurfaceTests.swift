import Testing
@testable import Charts

@Suite struct PlotSurfaceTests {
    /// x 0…100 over 10 cells (20 dots), y 0…1 over 4 cells (16 dots).
    private func surface(_ marker: Marker = .braille) -> PlotSurface {
        PlotSurface(x: Scale(lower: 0, upper: 100), y: Scale(lower: 0, upper: 1), marker: marker, columns: 10, rows: 4)
    }

    @Test func aPointLightsTheDotItsValuesFloorTo() {
        var s = surface()
        // x 55 is dot 11 of 20 (cell 5, its right column); y 0.3 is dot 4 of 16 up, so dot
        // row 11 from the top (cell 2, its bottom row): braille dot 8.
        #expect(s.plot(x: 55, y: 0.3) == Dot(x: 11, y: 11))
        #expect(s.character(at: PlotCell(column: 5, row: 2)) == "⢀")
        // The ends take the first and last dots.
        #expect(s.plot(x: 0, y: 0) == Dot(x: 0, y: 15))
        #expect(s.plot(x: 100, y: 1) == Dot(x: 19, y: 0))
        #expect(s.character(at: PlotCell(column: 9, row: 0)) == "⠈")
        #expect(s.leftOut.total == 0)
    }

    @Test func pointsThatCannotBePlacedNeverReachTheGridAndAreCounted() {
        var s = surface()
        for (x, y) in [(Double.nan, 0.5), (50, Double.infinity), (-1, 0.5), (50, 1.5)] { #expect(s.plot(x: x, y: y) == nil) }
        #expect(s.leftOut == LeftOut(nonFinite: 2, outside: 2))
        #expect(s.dots.bits.allSatisfy { $0 == 0 })
        var log = PlotSurface(x: Scale(lower: 1, upper: 1000, logarithmic: true), y: Scale(lower: 0, upper: 1), marker: .blocks, columns: 3, rows: 1)
        #expect(log.plot(x: 0, y: 0.5) == nil)
        // On a log scale 20 is 43% of the way (linearly 2%): cell 1 of 3.
        #expect(log.dots.cell(of: log.plot(x: 20, y: 0.5)!) == PlotCell(column: 1, row: 0))
    }
}
