// Counts of values in bins along a scale, kept up to date one changed value at a time.

/// How many values fall in each of `binCount` equal parts of `scale` (equal ratios on a
/// logarithmic scale). Values that cannot be placed are left out and counted: not finite
/// (`leftOut.nonFinite`), or outside the scale, or not positive on a logarithmic one (`leftOut.outside`).
/// The bins stay where they were made, so a changed value only moves one count.
public struct Histogram: Hashable, Sendable {
    public let scale: Scale
    public private(set) var counts: [Int]
    /// Values not counted in a bin.
    public private(set) var leftOut = LeftOut()

    /// Empty bins along `scale`.
    public init(scale: Scale, binCount: Int) {
        precondition(binCount > 0, "a histogram needs a bin")
        self.scale = scale
        counts = Array(repeating: 0, count: binCount)
    }

    /// `values` counted in bins spanning them (see `Scale.fitting` for when it is logarithmic).
    public init(_ values: [Double], binCount: Int, logarithmic: Bool? = nil) {
        self.init(scale: .fitting(values, logarithmic: logarithmic), binCount: binCount)
        for v in values { insert(v) }
    }

    public var binCount: Int { counts.count }

    /// The values counted in bins (those left out are not).
    public var total: Int { counts.reduce(0, +) }

    /// The bin `value` falls in, nil when it is left out.
    public func bin(of value: Double) -> Int? { scale.part(of: value, count: binCount) }

    /// The lower and upper edge of `bin`.
    public func edges(of bin: Int) -> (lower: Double, upper: Double) {
        (scale.value(at: Double(bin) / Double(binCount)), scale.value(at: Double(bin + 1) / Double(binCount)))
    }

    public mutating func insert(_ value: Double) { adjust(value, by: 1) }

    /// Takes back a value inserted before.
    public mutating func remove(_ value: Double) { adjust(value, by: -1) }

    /// A value changed from `old` to `new`: one count moves from `old`'s bin to `new`'s.
    /// - Returns: the bins whose counts changed (none when both fall in the same place).
    @discardableResult
    public mutating func replace(old: Double, new: Double) -> [Int] {
        let from = bin(of: old), to = bin(of: new)
        if from == to, leftOutKind(old) == leftOutKind(new) { return [] }
        remove(old)
        insert(new)
        return [from, to].compactMap { $0 }
    }

    private mutating func adjust(_ value: Double, by delta: Int) {
        if let bin = bin(of: value) {
            counts[bin] += delta
        } else if leftOutKind(value) == .nonFinite {
            leftOut.nonFinite += delta
        } else {
            leftOut.outside += delta
        }
    }

    private enum LeftOutKind { case nonFinite, outside }
    private func leftOutKind(_ value: Double) -> LeftOutKind? {
        if bin(of: value) != nil { return nil }
        return value.isFinite ? .outside : .nonFinite
    }
}
