import Testing
import TableUI
@testable import Charts

@Suite struct ScatterTests {
    /// 12×23 cells with scales 0…10: the plot area is 20 cells across (columns 3-22) and 9
    /// down (lines 1-9), so x = 2.6, y = 7.3 is in cell column 5, row 2 (line 3, column 8).
    private func scatter(_ points: [String: ScatterPoint], legendSize: Int = 5) -> NamedScatter {
        NamedScatter(points, size: CanvasSize(rows: 12, columns: 23),
                xScale: Scale(lower: 0, upper: 10), yScale: Scale(lower: 0, upper: 10), legendSize: legendSize)
    }

    @Test func listsTheRowsUnderACell() {
        let s = scatter(["a": ScatterPoint(x: 2.6, y: 7.3), "b": ScatterPoint(x: 2.7, y: 7.2), "c": ScatterPoint(x: 9, y: 1)])
        #expect(s.chart.frame.plotLeft == 3 && s.chart.frame.plotTop == 1 && s.chart.frame.plotColumns == 20 && s.chart.frame.plotRows == 9)
        #expect(s.rows(line: 3, column: 8) == ["a", "b"])
        #expect(s.rows(line: 9, column: 21) == ["c"])
        #expect(s.rows(line: 3, column: 9).isEmpty)
        #expect(s.grid[3, 8].text != " ")
    }

    @Test func movingAPointChangesOnlyTheCellsItLeavesAndEnters() {
        var s = scatter(["a": ScatterPoint(x: 2.6, y: 7.3), "b": ScatterPoint(x: 2.7, y: 7.2), "c": ScatterPoint(x: 9, y: 1)])
        let before = s.grid
        let touched = s.move("a", to: ScatterPoint(x: 5, y: 5))
        #expect(touched == [PlotCell(column: 5, row: 2), PlotCell(column: 10, row: 4)])
        #expect(differences(before, s.grid) == [Position(3, 8), Position(5, 13)])
        #expect(s.rows(line: 3, column: 8) == ["b"])
        #expect(s.rows(line: 5, column: 13) == ["a"])
        // Two points on one dot: the dot stays lit until both have left.
        s.move("b", to: ScatterPoint(x: 5, y: 5))
        let shared = s.grid
        s.move("a", to: nil)
        #expect(s.grid == shared)
        s.move("b", to: nil)
        #expect(s.grid[5, 13].text == " ")
    }

    @Test func pointsThatCannotBePlacedAreCountedAndComeBack() {
        var s = scatter(["a": ScatterPoint(x: .infinity, y: 1), "b": ScatterPoint(x: 11, y: 1), "c": ScatterPoint(x: 1, y: 1)])
        #expect(s.chart.leftOut == LeftOut(nonFinite: 1, outside: 1))
        // 23 columns leave no room for the note in full.
        #expect(s.grid.lines[0] == String(repeating: " ", count: 13) + "2 left out")
        s.move("a", to: ScatterPoint(x: 5, y: 5))
        #expect(s.chart.leftOut == LeftOut(nonFinite: 0, outside: 1))
        #expect(s.rows(line: 5, column: 13) == ["a"])
        #expect(s.grid.lines[0].hasSuffix("1 left out (1 outside)"))
    }

    @Test func theMostFrequentCategoriesGetColoursAndTheRestAreOther() {
        var points: [String: ScatterPoint] = [:]
        for (category, n) in [("x", 5), ("y", 4), ("z", 3), ("w", 1), ("v", 1)] {
            for i in 0..<n { points["\(category)\(i)"] = ScatterPoint(x: 1, y: 1, category: category) }
        }
        points["lone"] = ScatterPoint(x: 9, y: 9, category: "v")
        let s = scatter(points, legendSize: 2)
        #expect(s.chart.legend == [LegendEntry(name: "x", colour: 0), LegendEntry(name: "y", colour: 1), LegendEntry(name: "other", colour: ChartPalette.other)])
        #expect(s.grid.lines[0].hasPrefix("■ x  ■ y  ■ other"))
        // The cell of x = y = 1 holds 5 x, 4 y and 5 others: x wins the tie on the lower index.
        let crowded = Position(9, 5)
        #expect(s.grid[crowded.line, crowded.column].style == ChartPalette.style(0))
        #expect(s.grid[1, 21].style == .plain)
    }

    @Test func uncolouredPointsHaveNoLegend() {
        let s = scatter(["a": ScatterPoint(x: 1, y: 1)])
        #expect(s.chart.legend.isEmpty)
        #expect(s.grid.lines[0].isEmpty)
    }
}
