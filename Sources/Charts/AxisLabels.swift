// The three labels an axis carries: its lower end, its middle and its upper end.

/// Labels for an axis's ends and middle, already spelled.
public struct AxisLabels: Hashable, Sendable {
    public var low: String
    public var middle: String
    public var high: String

    public init(low: String, middle: String, high: String) {
        self.low = low
        self.middle = middle
        self.high = high
    }

    /// A numeric axis: `scale`'s ends and the value halfway along it (the geometric middle on a
    /// logarithmic scale), each in at most `width` characters.
    public init(_ scale: Scale, width: Int) {
        self.init(low: axisLabel(scale.value(at: 0), width: width),
                  middle: axisLabel(scale.value(at: 0.5), width: width),
                  high: axisLabel(scale.value(at: 1), width: width))
    }

    /// The widest label's length.
    public var width: Int { max(low.count, middle.count, high.count) }
}
