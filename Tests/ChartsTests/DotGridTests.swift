import Testing
@testable import Charts

@Suite struct DotGridTests {
    @Test func brailleDotsFollowUnicodesNumbering() {
        var grid = DotGrid(marker: .braille, columns: 1, rows: 1)
        grid.set(Dot(x: 0, y: 0))
        #expect(grid.character(at: PlotCell(column: 0, row: 0)) == "⠁")
        grid.set(Dot(x: 1, y: 3))
        #expect(grid.character(at: PlotCell(column: 0, row: 0)) == "⢁")
        for x in 0..<2 { for y in 0..<4 { grid.set(Dot(x: x, y: y)) } }
        #expect(grid.character(at: PlotCell(column: 0, row: 0)) == "⣿")
        for x in 0..<2 { for y in 0..<4 { grid.unset(Dot(x: x, y: y)) } }
        #expect(grid.character(at: PlotCell(column: 0, row: 0)) == " ")
    }

    @Test func blocksAndASCIIMarkers() {
        var blocks = DotGrid(marker: .blocks, columns: 2, rows: 1)
        blocks.set(Dot(x: 0, y: 1))
        blocks.set(Dot(x: 1, y: 1))
        blocks.set(Dot(x: 3, y: 0))
        #expect(blocks.character(at: PlotCell(column: 0, row: 0)) == "▄")
        #expect(blocks.character(at: PlotCell(column: 1, row: 0)) == "▝")
        var ascii = DotGrid(marker: .ascii, columns: 3, rows: 2)
        ascii.set(ascii.dot(x: 1, y: 1))
        #expect(ascii.character(at: PlotCell(column: 2, row: 0)) == "*")
    }

    @Test func fractionsMapToTheCellTheyFloorTo() {
        let grid = DotGrid(marker: .braille, columns: 10, rows: 5)
        #expect(grid.dot(x: 0, y: 0) == Dot(x: 0, y: 19))
        #expect(grid.dot(x: 1, y: 1) == Dot(x: 19, y: 0))
        #expect(grid.cell(of: grid.dot(x: 0.55, y: 0.55)) == PlotCell(column: 5, row: 2))
    }

    @Test func linesJoinTheirEnds() {
        var grid = DotGrid(marker: .braille, columns: 3, rows: 1)
        grid.line(from: Dot(x: 0, y: 3), to: Dot(x: 5, y: 0))
        #expect(grid.isSet(Dot(x: 0, y: 3)) && grid.isSet(Dot(x: 5, y: 0)))
        // Every column of dots between the ends has one set.
        for x in 0..<6 { #expect((0..<4).contains { grid.isSet(Dot(x: x, y: $0)) }, "column \(x)") }
    }
}
