// The plot area as dots: positions along two scales mapped to dots, dots gathered into cells.

/// A dot of the plot area, counted from its top left in dots.
public struct Dot: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

/// A cell of the plot area, counted from its top left in cells.
public struct PlotCell: Hashable, Sendable {
    public var column: Int
    public var row: Int
    public init(column: Int, row: Int) {
        self.column = column
        self.row = row
    }
}

/// The dots of a plot area of `columns`×`rows` cells, each cell `marker`'s dots across and down.
/// Fractions map to dots by flooring, so a dot's cell is also the cell the fraction floors to:
/// ⌊f·2w⌋ / 2 = ⌊f·w⌋.
public struct DotGrid: Hashable, Sendable {
    public let marker: Marker
    public let columns: Int
    public let rows: Int
    public private(set) var bits: [UInt8]

    public init(marker: Marker, columns: Int, rows: Int) {
        self.marker = marker
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        bits = Array(repeating: 0, count: self.columns * self.rows)
    }

    public var dotsAcross: Int { columns * marker.dotColumns }
    public var dotsDown: Int { rows * marker.dotRows }

    /// The dot at fractions `x` (0 left, 1 right) and `y` (0 bottom, 1 top) of the area;
    /// a fraction of exactly 1 takes the last dot.
    public func dot(x: Double, y: Double) -> Dot {
        let across = min(Int(x * Double(dotsAcross)), dotsAcross - 1)
        let up = min(Int(y * Double(dotsDown)), dotsDown - 1)
        return Dot(x: max(0, across), y: dotsDown - 1 - max(0, up))
    }

    public func cell(of dot: Dot) -> PlotCell {
        PlotCell(column: dot.x / marker.dotColumns, row: dot.y / marker.dotRows)
    }

    public mutating func set(_ dot: Dot) { bits[index(of: dot)] |= bit(of: dot) }
    public mutating func unset(_ dot: Dot) { bits[index(of: dot)] &= ~bit(of: dot) }
    public func isSet(_ dot: Dot) -> Bool { bits[index(of: dot)] & bit(of: dot) != 0 }

    public func bits(at cell: PlotCell) -> UInt8 { bits[cell.row * columns + cell.column] }
    public func character(at cell: PlotCell) -> Character { marker.character(bits(at: cell)) }

    /// Sets every dot on the straight segment from `a` to `b` (Bresenham's line).
    public mutating func line(from a: Dot, to b: Dot) {
        let dx = abs(b.x - a.x), dy = -abs(b.y - a.y)
        let sx = a.x < b.x ? 1 : -1, sy = a.y < b.y ? 1 : -1
        var error = dx + dy
        var p = a
        while true {
            set(p)
            if p == b { return }
            let twice = 2 * error
            if twice >= dy { error += dy; p.x += sx }
            if twice <= dx { error += dx; p.y += sy }
        }
    }

    private func index(of dot: Dot) -> Int { (dot.y / marker.dotRows) * columns + dot.x / marker.dotColumns }
    private func bit(of dot: Dot) -> UInt8 { marker.bit(column: dot.x % marker.dotColumns, row: dot.y % marker.dotRows) }
}

extension DotGrid {
    /// Sets every dot `other` has set (a grid of the same marker and size).
    public mutating func merge(_ other: DotGrid) {
        precondition(other.marker == marker && other.columns == columns && other.rows == rows, "merging unlike grids")
        for i in bits.indices { bits[i] |= other.bits[i] }
    }
}
