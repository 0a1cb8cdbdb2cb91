// Cells by line and column, for comparing grids and counting what a canvas was asked to write.
import TableUI
@testable import Charts

/// A cell of a grid or canvas, by its line and column.
struct Position: Hashable, CustomStringConvertible {
    var line: Int
    var column: Int
    init(_ line: Int, _ column: Int) {
        self.line = line
        self.column = column
    }
    var description: String { "(\(line), \(column))" }
}

/// The cells where two grids of one size differ.
func differences(_ a: CellGrid, _ b: CellGrid) -> Set<Position> {
    var out = Set<Position>()
    for line in 0..<a.size.rows {
        for column in 0..<a.size.columns where a[line, column] != b[line, column] { out.insert(Position(line, column)) }
    }
    return out
}

/// The canvas cells written by `draw` since the operations were last cleared (every chart
/// character is one cell wide).
func writtenCells(_ canvas: MemoryCanvas) -> Set<Position> {
    var out = Set<Position>()
    for case .draw(let line, let column, let text) in canvas.operations {
        for i in 0..<text.count { out.insert(Position(line, column + i)) }
    }
    return out
}
