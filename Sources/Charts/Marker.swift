// How a cell shows the dots set in it: braille (2×4 dots), quadrant blocks (2×2) or ASCII (1×1).

/// The characters a plot is drawn with. Braille is the finest; blocks and ASCII are for
/// fonts and terminals without braille.
public enum Marker: String, Hashable, Sendable, CaseIterable {
    case braille, blocks, ascii

    /// Dots across one cell.
    public var dotColumns: Int { self == .ascii ? 1 : 2 }
    /// Dots down one cell.
    public var dotRows: Int {
        switch self {
        case .braille: 4
        case .blocks: 2
        case .ascii: 1
        }
    }

    /// The bit of the dot at (`column`, `row`) within a cell, counted from its top left.
    public func bit(column: Int, row: Int) -> UInt8 {
        switch self {
        // Unicode's braille numbering: dots 1-3 down the left, 4-6 down the right, 7 and 8 below.
        case .braille: row == 3 ? (column == 0 ? 0x40 : 0x80) : UInt8(1) << UInt8(row + 3 * column)
        case .blocks: UInt8(1) << UInt8(row * 2 + column)
        case .ascii: 1
        }
    }

    /// The character showing `bits`; a space when none is set, so an empty cell is blank.
    public func character(_ bits: UInt8) -> Character {
        if bits == 0 { return " " }
        switch self {
        case .braille: return Character(Unicode.Scalar(0x2800 + UInt32(bits))!)
        case .blocks: return Marker.quadrants[Int(bits & 0x0F)]
        case .ascii: return "*"
        }
    }

    /// Indexed by bits: top left 1, top right 2, bottom left 4, bottom right 8.
    private static let quadrants: [Character] = [" ", "▘", "▝", "▀", "▖", "▌", "▞", "▛", "▗", "▚", "▐", "▜", "▄", "▙", "▟", "█"]
}
