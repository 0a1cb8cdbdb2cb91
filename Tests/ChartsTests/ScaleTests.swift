import Testing
@testable import Charts

@Suite struct ScaleTests {
    @Test func logarithmicWhenPositiveValuesSpanMoreThanThreeOrdersOfMagnitude() {
        #expect(Scale.fitting([1, 50, 1001]).isLogarithmic)
        #expect(!Scale.fitting([1, 50, 1000]).isLogarithmic)
        // Zeros do not stop it (they are left out and counted); a negative value does.
        #expect(Scale.fitting([0, 1, 1e6]) == Scale(lower: 1, upper: 1e6, logarithmic: true))
        #expect(!Scale.fitting([-1, 1, 1e6]).isLogarithmic)
        #expect(!Scale.fitting([0, 0]).isLogarithmic)
    }

    @Test func nonFiniteValuesNeverReachTheRange() {
        let scale = Scale.fitting([.nan, 3, .infinity, 7, -.infinity])
        #expect(scale == Scale(lower: 3, upper: 7))
        #expect(scale.fraction(of: .nan) == nil)
        #expect(scale.fraction(of: .infinity) == nil)
    }

    @Test func oneValueGetsARangeAroundIt() {
        #expect(Scale.fitting([4, 4]) == Scale(lower: 3.5, upper: 4.5))
        #expect(Scale.fitting([Double]()) == Scale(lower: 0, upper: 1))
    }

    @Test func fractionAndValueAreInverses() {
        for scale in [Scale(lower: -3, upper: 17), Scale(lower: 0.01, upper: 1e5, logarithmic: true)] {
            for f in stride(from: 0.0, through: 1.0, by: 0.125) {
                #expect(abs(scale.fraction(of: scale.value(at: f))! - f) < 1e-12)
            }
        }
        #expect(abs(Scale(lower: 1, upper: 100, logarithmic: true).value(at: 0.5) - 10) < 1e-9)
    }
}
