// A chart's picture in character cells, before it reaches a canvas.
import TableUI

/// One character cell of a chart: a cell of the screen, so a grid's lines are drawn through
/// the screen as they are.
public typealias ChartCell = ScreenCell

/// A rectangle of single-width cells. Charts write labels and marks here; `ChartView` draws
/// them through the screen, which passes on only the cells that changed.
public struct CellGrid: Hashable, Sendable {
    public let size: CanvasSize
    public private(set) var cells: [ChartCell]

    public init(size: CanvasSize) {
        self.size = CanvasSize(rows: max(0, size.rows), columns: max(0, size.columns))
        cells = Array(repeating: .blank, count: self.size.rows * self.size.columns)
    }

    public subscript(line: Int, column: Int) -> ChartCell {
        get { cells[line * size.columns + column] }
        set {
            guard line >= 0, line < size.rows, column >= 0, column < size.columns else { return }
            cells[line * size.columns + column] = newValue
        }
    }

    /// Writes `text` from `column` of `line`, one cell a character, cut at the right edge.
    /// Text is sanitised and characters wider than a cell become `?`: a grid cell is one column.
    public mutating func write(_ text: String, line: Int, column: Int, style: CellStyle = .plain) {
        guard line >= 0, line < size.rows else { return }
        var x = column
        for character in sanitize(text) where x < size.columns {
            if x >= 0 { self[line, x] = ChartCell(displayWidth(character) == 1 ? character : "?", style: style) }
            x += 1
        }
    }

    /// The text of `line` (tests and the headless command read it).
    public func text(line: Int) -> String {
        String(cells[line * size.columns..<(line + 1) * size.columns].map(\.text))
    }

    /// Every line, trailing blanks removed.
    public var lines: [String] {
        (0..<size.rows).map { line in
            var text = self.text(line: line)
            while text.last == " " { text.removeLast() }
            return text
        }
    }
}
