// The one record of what the terminal shows: every view draws its whole picture through it,
// and only the cells that differ from what is already there reach the terminal.

/// One character cell: a character one or two cells wide, and its style.
public struct ScreenCell: Hashable, Sendable {
    public var text: Character
    public var style: CellStyle
    public init(_ text: Character, style: CellStyle = .plain) {
        self.text = text
        self.style = style
    }
    public static let blank = ScreenCell(" ")
    /// The second cell of a wide character (no sanitised text holds NUL).
    static func continuation(_ style: CellStyle) -> ScreenCell { ScreenCell("\u{0}", style: style) }
    var isContinuation: Bool { text == "\u{0}" }
}

/// A canvas in front of another that remembers what each cell shows, as ratatui's buffer diff
/// and bubbletea's renderer do: a view draws everything it shows every frame, and a draw passes
/// on only the runs of cells that changed, so no view keeps a copy of the screen of its own.
/// Line shifts move what it remembers with the lines; `forget()` (after a resize, a clear of
/// the terminal) makes the next frame write every cell.
public final class ScreenCanvas: Canvas {
    public let base: Canvas
    /// What each cell shows, line by line; nil where it is not known.
    private var cells: [ScreenCell?] = []
    private var known = CanvasSize(rows: 0, columns: 0)
    /// How many draws it has passed on (a view flushes only when it wrote).
    public private(set) var writes = 0

    public init(_ base: Canvas) { self.base = base }

    public var size: CanvasSize { base.size }

    /// `canvas` itself when it is a screen already, else a screen in front of it.
    public static func over(_ canvas: Canvas) -> ScreenCanvas { canvas as? ScreenCanvas ?? ScreenCanvas(canvas) }

    /// Forgets what the terminal shows: every cell is written again by the next draw over it.
    public func forget() {
        known = base.size
        cells = Array(repeating: nil, count: known.rows * known.columns)
    }

    public func draw(_ text: String, line: Int, column: Int, style: CellStyle) {
        draw(cells: text.lazy.map { ScreenCell($0, style: style) }, line: line, column: column)
    }

    /// Draws `cells` from `column` of `line`; only the runs that differ from what the line
    /// shows are passed on, each run of one style as one draw.
    public func draw(_ cells: ArraySlice<ScreenCell>, line: Int, column: Int) {
        draw(cells: cells, line: line, column: column)
    }

    private func draw<Cells: Sequence<ScreenCell>>(cells: Cells, line: Int, column: Int) {
        if base.size != known { forget() }
        guard line >= 0, line < known.rows, column >= 0 else {
            // Outside the screen: passed on as it is (a memory canvas reports the misuse).
            var run = Run(line: line)
            var x = column
            for cell in cells {
                let w = displayWidth(cell.text)
                run.add(cell, at: x, width: w, to: self)
                x += w
            }
            return run.end(on: self)
        }
        let (row, width) = (line * known.columns, known.columns)
        // The line is worked on outside the object: one exclusive access a draw, not one a cell.
        var shown: [ScreenCell?] = []
        swap(&shown, &self.cells)
        defer { swap(&shown, &self.cells) }
        var run = Run(line: line)
        var x = column
        for cell in cells {
            if x < width, shown[row + x] == cell {
                // Unchanged, and so is a wide character's second half (`breakHalves` forgets a
                // character whose half was overwritten): no width to work out.
                run.end(on: self)
                x += x + 1 < width && shown[row + x + 1]?.isContinuation == true ? 2 : 1
                continue
            }
            let w = displayWidth(cell.text)
            guard w > 0, x + w <= width else {
                // A combining character (it joins the cell before) or a draw past the edge:
                // passed on, and the cell it touches is no longer known.
                let touched = w == 0 ? x - 1 : x
                if touched >= 0, touched < width { shown[row + touched] = nil }
                run.add(cell, at: x, width: w, to: self)
                x += w
                continue
            }
            Self.breakHalves(&shown, row: row, width: width, column: x, cells: w)
            shown[row + x] = cell
            if w == 2 { shown[row + x + 1] = .continuation(cell.style) }
            run.add(cell, at: x, width: w, to: self)
            x += w
        }
        run.end(on: self)
    }

    /// Passes a draw on to the terminal.
    fileprivate func pass(_ text: String, line: Int, column: Int, style: CellStyle) {
        writes += 1
        base.draw(text, line: line, column: column, style: style)
    }

    /// Overwriting half of a wide character blanks its other half on a terminal: that half is
    /// no longer known.
    private static func breakHalves(_ shown: inout [ScreenCell?], row: Int, width: Int, column: Int, cells: Int) {
        if column > 0, shown[row + column]?.isContinuation == true { shown[row + column - 1] = nil }
        let end = column + cells
        if end < width, shown[row + end]?.isContinuation == true { shown[row + end] = nil }
    }

    /// Whether `line` shows `text` from `column` in `style` (a view deciding whether a line it
    /// moved still shows what it wants there).
    public func shows(_ text: String, line: Int, column: Int, style: CellStyle) -> Bool {
        guard base.size == known, line >= 0, line < known.rows, column >= 0 else { return false }
        var x = column
        for character in text {
            let w = displayWidth(character)
            guard w > 0, x + w <= known.columns else { return false }
            let i = line * known.columns + x
            guard cells[i] == ScreenCell(character, style: style), w == 1 || cells[i + 1] == .continuation(style) else { return false }
            x += w
        }
        return true
    }

    public func clearToEndOfLine(line: Int, column: Int) {
        if base.size != known { forget() }
        guard line >= 0, line < known.rows, column >= 0, column < known.columns else { return base.clearToEndOfLine(line: line, column: column) }
        let row = line * known.columns
        guard cells[(row + column)..<(row + known.columns)].contains(where: { $0 != .blank }) else { return }
        Self.breakHalves(&cells, row: row, width: known.columns, column: column, cells: 1)
        for x in column..<known.columns { cells[row + x] = .blank }
        writes += 1
        base.clearToEndOfLine(line: line, column: column)
    }

    public func insertLines(_ count: Int, at line: Int, regionEnd: Int) {
        base.insertLines(count, at: line, regionEnd: regionEnd)
        shift(line..<regionEnd, down: count)
    }

    public func deleteLines(_ count: Int, at line: Int, regionEnd: Int) {
        base.deleteLines(count, at: line, regionEnd: regionEnd)
        shift(line..<regionEnd, down: -count)
    }

    public func flush() { base.flush() }

    /// The lines of `band` move `down` lines (up when negative); the lines coming in are blank.
    private func shift(_ band: Range<Int>, down: Int) {
        guard base.size == known, band.lowerBound >= 0, band.upperBound <= known.rows, !band.isEmpty else { return forget() }
        let width = known.columns
        let n = min(abs(down), band.count)
        let blank = [ScreenCell?](repeating: .blank, count: n * width)
        let range = band.lowerBound * width..<band.upperBound * width
        let moved = down > 0 ? cells[range.lowerBound..<(range.upperBound - n * width)] : cells[(range.lowerBound + n * width)..<range.upperBound]
        cells.replaceSubrange(range, with: down > 0 ? blank + moved : Array(moved) + blank)
    }
}

/// A run of changed cells of one style on one line, passed on as one draw.
private struct Run {
    let line: Int
    var column = 0
    var text = ""
    var style = CellStyle.plain
    var next = -1

    init(line: Int) { self.line = line }

    mutating func add(_ cell: ScreenCell, at x: Int, width: Int, to screen: ScreenCanvas) {
        if !text.isEmpty, x != next || cell.style != style { end(on: screen) }
        if text.isEmpty {
            column = x
            style = cell.style
        }
        text.append(cell.text)
        next = x + width
    }

    mutating func end(on screen: ScreenCanvas) {
        guard !text.isEmpty else { return }
        screen.pass(text, line: line, column: column, style: style)
        text = ""
    }
}
