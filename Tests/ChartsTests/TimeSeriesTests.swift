import Testing
import TableUI
@testable import Charts

@Suite struct TimeSeriesTests {
    /// 2025-12-05 02:00:00 UTC.
    private let start = 1_764_900_000.0

    private func line(_ name: String, _ values: [Double], step: Double = 60) -> TimeLine {
        TimeLine(name: name, points: values.enumerated().map { TimePoint(time: start + Double($0) * step, value: $1) })
    }

    @Test func timesAreLabelledAsPreciselyAsTheirSpanNeeds() {
        #expect(timeLabel(start, span: 600) == "02:00:00")
        #expect(timeLabel(start + 59, span: 7200) == "02:00")
        #expect(timeLabel(start, span: 10 * 86400) == "12-05 02:00")
        #expect(timeLabel(start, span: 1000 * 86400) == "2025-12-05")
        #expect(timeLabel(951_782_400, span: 400 * 86400) == "2000-02-29")
        #expect(timeLabel(-86400, span: 400 * 86400) == "1969-12-31")
    }

    @Test func theTopSeriesByLastValueAreDrawnAndNamed() {
        let series = TimeSeries([line("low", [1, 2, 1]), line("high", [0, 5, 9]), line("mid", [3, 3, 4])], top: 2)
        #expect(series.lines.map(\.name) == ["high", "mid"])
        let grid = series.draw(size: CanvasSize(rows: 10, columns: 40))
        #expect(grid.lines[0].hasPrefix("■ high  ■ mid"))
        #expect(grid[0, 0].style == ChartPalette.style(0) && grid[0, 8].style == ChartPalette.style(1))
        // The time axis: the first and last times, to the second (the span is two minutes).
        #expect(grid.lines[9].contains("02:00:00") && grid.lines[9].hasSuffix("02:02:00"))
        // The value axis spans the drawn series only (0…9, not the left-out series' values).
        #expect(series.valueScale == Scale(lower: 0, upper: 9))
    }

    @Test func aLineJoinsItsPointsAcrossThePlot() {
        let series = TimeSeries([line("only", [0, 10])])
        let grid = series.draw(size: CanvasSize(rows: 8, columns: 30))
        let frame = PlotFrame(size: grid.size, yLabelWidth: 2, legend: true)
        // A rising diagonal: every column of the plot area has a dot, the first at the bottom
        // and the last at the top.
        for column in frame.plotLeft..<30 {
            #expect((frame.plotTop..<frame.xAxisLine).contains { grid[$0, column].text != " " }, "column \(column)")
        }
        #expect(grid[frame.xAxisLine - 1, frame.plotLeft].text != " ")
        #expect(grid[frame.plotTop, 29].text != " ")
    }

    @Test func thePositionIsMarkedDownThePlot() {
        let series = TimeSeries([line("only", [5, 5, 5, 5, 5])], position: start + 120)
        let grid = series.draw(size: CanvasSize(rows: 8, columns: 23))
        // y labels "5.5", "5", "4.5" take 3 columns; the plot's 19 columns span 4 minutes, so
        // the middle minute is column 9 of the plot (23 - 19 + 9 = 13 of the chart).
        let column = 4 + 9
        for line in 1..<6 {
            let cell = grid[line, column]
            #expect(cell.text == "│" || cell.style.attributes.contains(.reverse), "line \(line)")
            #expect(cell.style.attributes.contains(.bold))
        }
        #expect(!grid[1, column + 1].style.attributes.contains(.bold))
    }

    @Test func pointsThatAreNotFiniteAreLeftOutAndCounted() {
        var values = line("s", [1, 2, 3])
        values.points.append(TimePoint(time: start + 500, value: .nan))
        values.points.append(TimePoint(time: .infinity, value: 1))
        let series = TimeSeries([values])
        #expect(series.leftOut == LeftOut(nonFinite: 2))
        #expect(series.timeScale == Scale(lower: start, upper: start + 120))
        #expect(series.draw(size: CanvasSize(rows: 8, columns: 50)).lines[0].hasSuffix("2 left out (2 not finite)"))
    }
}
