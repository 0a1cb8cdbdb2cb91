// An in-memory Canvas: a grid of cells with styles, and a log of what was asked of it,
// so tests (and benchmarks) read the screen and count redraws without a terminal.

/// A canvas held in memory. Tests read it back as text (`text(line:)`, `lines`) and
/// styles (`style(line:column:)`), and check how much was drawn (`operations`).
public final class MemoryCanvas: Canvas {
    /// One cell. A wide character fills its first cell; the second holds `""`.
    public struct Cell: Hashable, Sendable {
        public var text: String
        public var style: CellStyle
        public static let blank = Cell(text: " ", style: .plain)
    }

    /// What the canvas was asked to do, in order.
    public enum Operation: Hashable, Sendable {
        case draw(line: Int, column: Int, text: String)
        case clear(line: Int, column: Int)
        case insertLines(count: Int, at: Int, regionEnd: Int)
        case deleteLines(count: Int, at: Int, regionEnd: Int)
        case flush
    }

    public private(set) var size: CanvasSize
    public private(set) var cells: [[Cell]]
    /// Every operation since the canvas was made or `clearOperations()` was called.
    public private(set) var operations: [Operation] = []
    /// Misuses a real terminal would punish (drawing past an edge, text with control
    /// characters); tests expect this to stay empty.
    public private(set) var violations: [String] = []

    public init(rows: Int, columns: Int) {
        size = CanvasSize(rows: rows, columns: columns)
        cells = Array(repeating: Array(repeating: .blank, count: columns), count: rows)
    }

    /// Changes the size, as a terminal resize does: the content is cleared.
    public func resize(rows: Int, columns: Int) {
        size = CanvasSize(rows: rows, columns: columns)
        cells = Array(repeating: Array(repeating: .blank, count: columns), count: rows)
    }

    public func clearOperations() { operations.removeAll() }

    /// Lines touched by `draw` or `clear` since the last `clearOperations()`.
    public var linesDrawn: Set<Int> {
        var lines = Set<Int>()
        for op in operations {
            switch op {
            case .draw(let line, _, _), .clear(let line, _): lines.insert(line)
            default: break
            }
        }
        return lines
    }

    /// The text of a line, one character per cell (wide characters once).
    public func text(line: Int) -> String {
        cells[line].map(\.text).joined()
    }

    /// Every line's text.
    public var lines: [String] { (0..<size.rows).map { text(line: $0) } }

    /// The style of the cell at `line`, `column`.
    public func style(line: Int, column: Int) -> CellStyle { cells[line][column].style }

    /// The column where `needle` starts on `line` (in cells), if it is there.
    public func column(of needle: String, line: Int) -> Int? {
        let row = cells[line]
        for i in row.indices where !row[i].text.isEmpty {
            if row[i...].map(\.text).joined().hasPrefix(needle) { return i }
        }
        return nil
    }

    public func draw(_ text: String, line: Int, column: Int, style: CellStyle) {
        operations.append(.draw(line: line, column: column, text: text))
        guard line >= 0, line < size.rows, column >= 0 else {
            violations.append("draw outside the canvas at line \(line), column \(column)")
            return
        }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) }) {
            violations.append("control character drawn at line \(line): \(text.debugDescription)")
        }
        var x = column
        for character in text {
            let w = displayWidth(character)
            if w == 0 {
                if x > 0 { cells[line][x - 1].text.append(character) }  // combines with the cell before
                continue
            }
            guard x + w <= size.columns else {
                violations.append("draw past the right edge at line \(line): \(text.debugDescription)")
                return
            }
            clearHalves(line: line, column: x, width: w)
            cells[line][x] = Cell(text: String(character), style: style)
            if w == 2 { cells[line][x + 1] = Cell(text: "", style: style) }
            x += w
        }
    }

    public func clearToEndOfLine(line: Int, column: Int) {
        operations.append(.clear(line: line, column: column))
        guard line >= 0, line < size.rows, column >= 0 else {
            violations.append("clear outside the canvas at line \(line)")
            return
        }
        if column < size.columns { clearHalves(line: line, column: column, width: 1) }
        for x in column..<max(column, size.columns) { cells[line][x] = .blank }
    }

    public func insertLines(_ count: Int, at line: Int, regionEnd: Int) {
        operations.append(.insertLines(count: count, at: line, regionEnd: regionEnd))
        guard checkRegion(count, line, regionEnd) else { return }
        let blank = Array(repeating: Cell.blank, count: size.columns)
        let n = min(count, regionEnd - line)
        cells.replaceSubrange(line..<regionEnd, with: Array(repeating: blank, count: n) + cells[line..<(regionEnd - n)])
    }

    public func deleteLines(_ count: Int, at line: Int, regionEnd: Int) {
        operations.append(.deleteLines(count: count, at: line, regionEnd: regionEnd))
        guard checkRegion(count, line, regionEnd) else { return }
        let blank = Array(repeating: Cell.blank, count: size.columns)
        let n = min(count, regionEnd - line)
        cells.replaceSubrange(line..<regionEnd, with: cells[(line + n)..<regionEnd] + Array(repeating: blank, count: n))
    }

    public func flush() { operations.append(.flush) }

    private func checkRegion(_ count: Int, _ line: Int, _ regionEnd: Int) -> Bool {
        if count <= 0 || line < 0 || regionEnd > size.rows || line >= regionEnd {
            violations.append("bad line shift: \(count) at \(line) in a region ending at \(regionEnd)")
            return false
        }
        return true
    }

    /// Overwriting half of a wide character blanks its other half, as terminals do.
    private func clearHalves(line: Int, column: Int, width: Int) {
        if cells[line][column].text.isEmpty, column > 0 { cells[line][column - 1] = .blank }
        let end = column + width
        if end < size.columns, cells[line][end].text.isEmpty { cells[line][end] = .blank }
    }
}
