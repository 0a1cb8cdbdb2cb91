// The plot area addressed by data: two scales over a grid of dots.

/// Dots addressed in data coordinates: a point (`x` along `xScale`, `y` along `yScale`)
/// lights the dot its fractions of the two scales floor to (`DotGrid.dot(x:y:)`). Points
/// that cannot be placed — not finite, outside a scale, not positive on a logarithmic one —
/// never reach the grid; `plot` counts them.
public struct PlotSurface: Hashable, Sendable {
    public let xScale: Scale
    public let yScale: Scale
    public internal(set) var dots: DotGrid
    /// The points `plot` could not place.
    public private(set) var leftOut = LeftOut()

    /// An empty surface of `columns`×`rows` cells.
    public init(x: Scale, y: Scale, marker: Marker, columns: Int, rows: Int) {
        xScale = x
        yScale = y
        dots = DotGrid(marker: marker, columns: columns, rows: rows)
    }

    /// The dot of the point (`x`, `y`); nil when it cannot be placed.
    public func dot(x: Double, y: Double) -> Dot? {
        guard dots.columns > 0, dots.rows > 0, let fx = xScale.fraction(of: x), let fy = yScale.fraction(of: y) else { return nil }
        return dots.dot(x: fx, y: fy)
    }

    /// Lights the dot of (`x`, `y`), or counts the point as left out.
    /// - Returns: the dot lit, nil when the point was left out.
    @discardableResult
    public mutating func plot(x: Double, y: Double) -> Dot? {
        guard let dot = dot(x: x, y: y) else {
            if x.isFinite && y.isFinite { leftOut.outside += 1 } else { leftOut.nonFinite += 1 }
            return nil
        }
        dots.set(dot)
        return dot
    }

    /// The text of the plot cell `cell`.
    public func character(at cell: PlotCell) -> Character { dots.character(at: cell) }
}
