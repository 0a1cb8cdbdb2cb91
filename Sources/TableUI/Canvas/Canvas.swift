// The drawing surface the table renders into: a terminal (NcursesCanvas) or memory (MemoryCanvas).

/// Text attributes a terminal can show without colours.
public struct TextAttributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let bold = TextAttributes(rawValue: 1 << 0)
    public static let dim = TextAttributes(rawValue: 1 << 1)
    public static let reverse = TextAttributes(rawValue: 1 << 2)
    public static let underline = TextAttributes(rawValue: 1 << 3)
}

/// How cells look: attributes plus optional colours.
public struct CellStyle: Hashable, Sendable {
    public var attributes: TextAttributes
    /// A palette index (0–255), or -1 for the terminal's default colour.
    public var foreground: Int
    /// A palette index (0–255), or -1 for the terminal's default colour.
    public var background: Int

    public init(_ attributes: TextAttributes = [], foreground: Int = -1, background: Int = -1) {
        self.attributes = attributes
        self.foreground = foreground
        self.background = background
    }

    /// Default colours, no attributes.
    public static let plain = CellStyle()

    /// This style with `attributes` toggled (how the selection shows on any style).
    func toggling(_ attributes: TextAttributes) -> CellStyle {
        var s = self
        s.attributes.formSymmetricDifference(attributes)
        return s
    }
}

/// A canvas's size in character cells.
public struct CanvasSize: Hashable, Sendable {
    public var rows: Int
    public var columns: Int
    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
    }
}

/// A grid of character cells the table draws into. Lines and columns count from 0.
///
/// Callers pass text that is already sanitised (see `sanitize`) and fitted: a draw never
/// runs past the right edge. `insertLines`/`deleteLines` shift a band of lines, the way a
/// terminal scrolls a region, so rows that only moved are not drawn again.
public protocol Canvas: AnyObject {
    /// The current size; it changes when the terminal is resized.
    var size: CanvasSize { get }
    /// Draws `text` starting at `column` of `line`, one grapheme cluster after another,
    /// each taking `displayWidth` cells.
    func draw(_ text: String, line: Int, column: Int, style: CellStyle)
    /// Blanks `line` from `column` to the right edge, in the plain style.
    func clearToEndOfLine(line: Int, column: Int)
    /// Shifts lines `line..<regionEnd` down by `count`; the lines pushed past `regionEnd`
    /// are lost and `count` blank lines appear at `line`. Lines outside the band stay.
    func insertLines(_ count: Int, at line: Int, regionEnd: Int)
    /// Shifts lines `line + count..<regionEnd` up to `line`, dropping lines
    /// `line..<line + count`; `count` blank lines appear just above `regionEnd`.
    func deleteLines(_ count: Int, at line: Int, regionEnd: Int)
    /// Makes everything drawn so far visible (for a terminal: one write of the changes).
    func flush()
}
