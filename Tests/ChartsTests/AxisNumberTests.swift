import Testing
@testable import Charts

@Suite struct AxisNumberTests {
    @Test func longFractionsAreCutToFourSignificantDigits() {
        #expect(axisLabel(0.19743416929728977, width: 10) == "0.1974")
        #expect(axisLabel(0.1 + 0.2, width: 10) == "0.3")
        #expect(axisLabel(-2.0 / 3.0, width: 10) == "-0.6667")
    }

    @Test func roundNumbersStayPlain() {
        #expect(axisLabel(0, width: 5) == "0")
        #expect(axisLabel(12.5, width: 5) == "12.5")
        #expect(axisLabel(26067, width: 5) == "26070")
        #expect(axisLabel(-0.5, width: 4) == "-0.5")
    }

    @Test func narrowWidthsFallBackToFewerDigitsThenScientific() {
        #expect(axisLabel(1234567, width: 10) == "1235000")
        #expect(axisLabel(1234567, width: 6) == "1.23e6")
        #expect(axisLabel(1e-7, width: 6) == "1e-7")
        #expect(axisLabel(0.00012345, width: 6) == "1.2e-4")
    }

    @Test func roundingThatCarriesAddsADigitPlace() {
        #expect(axisLabel(9.99996, width: 10) == "10")
        #expect(axisLabel(99999.5, width: 6) == "100000")
    }

    @Test func everyLabelFitsItsWidth() {
        for value in [0.19743416929728977, 123456789.123, -98765.4321, 1e300, Double.leastNonzeroMagnitude, 7.0, -1e-12] {
            for width in 6...12 { #expect(axisLabel(value, width: width).count <= width, "\(value) at \(width)") }
        }
    }
}
