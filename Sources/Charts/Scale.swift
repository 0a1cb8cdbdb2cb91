// An axis's mapping between data values and positions along it, linear or logarithmic.
#if canImport(Glibc)
import Glibc
#endif

/// The range of one axis and how values are spread over it. A position is a fraction: 0 at
/// `lower`, 1 at `upper`; on a logarithmic scale equal ratios take equal lengths.
public struct Scale: Hashable, Sendable {
    public let lower: Double
    public let upper: Double
    public let isLogarithmic: Bool

    /// - Precondition: `lower < upper`, both finite, and both positive when logarithmic.
    public init(lower: Double, upper: Double, logarithmic: Bool = false) {
        precondition(lower.isFinite && upper.isFinite && lower < upper, "a scale needs lower < upper")
        precondition(!logarithmic || lower > 0, "a logarithmic scale needs positive bounds")
        self.lower = lower
        self.upper = upper
        isLogarithmic = logarithmic
    }

    /// The scale spanning `values`' finite numbers (positive ones when logarithmic).
    /// - Parameter logarithmic: nil chooses: logarithmic when the positive values span more
    ///   than three orders of magnitude (on a linear axis all but the largest would crowd into
    ///   its first bin) and none is negative. Zeros (counts, views) are common beside such
    ///   values and are left out and counted; negative values are not, as a log axis would
    ///   drop one side of the data.
    public static func fitting(_ values: some Sequence<Double>, logarithmic: Bool? = nil) -> Scale {
        var low = Double.infinity, high = -Double.infinity
        var lowPositive = Double.infinity, highPositive = -Double.infinity
        for v in values where v.isFinite {
            low = min(low, v)
            high = max(high, v)
            if v > 0 {
                lowPositive = min(lowPositive, v)
                highPositive = max(highPositive, v)
            }
        }
        let useLog = logarithmic ?? (low >= 0 && highPositive / lowPositive > 1000)
        if useLog {
            guard lowPositive <= highPositive else { return Scale(lower: 1, upper: 10, logarithmic: true) }
            // One value alone: a decade around it.
            if lowPositive == highPositive {
                return Scale(lower: lowPositive / 3.1622776601683795, upper: lowPositive * 3.1622776601683795, logarithmic: true)
            }
            return Scale(lower: lowPositive, upper: highPositive, logarithmic: true)
        }
        guard low <= high else { return Scale(lower: 0, upper: 1) }
        if low == high { return Scale(lower: low - 0.5, upper: high + 0.5) }
        return Scale(lower: low, upper: high)
    }

    /// Where `value` lies: 0 at `lower`, 1 at `upper`; nil when it cannot be placed (not
    /// finite, outside the range, or not positive on a logarithmic scale).
    public func fraction(of value: Double) -> Double? {
        guard value.isFinite, value >= lower, value <= upper else { return nil }
        if isLogarithmic { return (log(value) - log(lower)) / (log(upper) - log(lower)) }
        return (value - lower) / (upper - lower)
    }

    /// The value at `fraction` of the way from `lower` to `upper` (the inverse of `fraction(of:)`).
    /// The ends are exact (rounding in log and exp would put the upper end just outside the scale).
    public func value(at fraction: Double) -> Double {
        if fraction == 0 { return lower }
        if fraction == 1 { return upper }
        if isLogarithmic { return exp(log(lower) + fraction * (log(upper) - log(lower))) }
        return lower + fraction * (upper - lower)
    }

    /// Which of `count` equal parts of the axis `value` falls in (the last part includes `upper`).
    public func part(of value: Double, count: Int) -> Int? {
        guard let f = fraction(of: value) else { return nil }
        return min(Int(f * Double(count)), count - 1)
    }

    /// "linear" or "log", as the SVG writes it.
    public var kindName: String { isLogarithmic ? "log" : "linear" }
}
