// A data source for tests: rows with ids, changed in place and turned into batches.
@testable import TableUI

final class TestRows: TableDataSource {
    var columns: [TableColumn]
    /// Each row: its id and its cells.
    var rows: [(id: Int, cells: [String])]

    init(columns: [TableColumn] = [TableColumn("name"), TableColumn("n", numeric: true)],
         rows: [(id: Int, cells: [String])]) {
        self.columns = columns
        self.rows = rows
    }

    /// `count` rows "r0", "r1"… with their index as the number.
    convenience init(count: Int) {
        self.init(rows: (0..<count).map { (id: $0, cells: ["r\($0)", "\($0)"]) })
    }

    var numberOfRows: Int { rows.count }
    func cells(ofRow row: Int) -> [String] { rows[row].cells }

    /// Replaces the rows and returns the batch from the old ones (ids compared; cells
    /// compared for reloads).
    func update(_ change: (inout [(id: Int, cells: [String])]) -> Void) -> TableBatch {
        let old = rows
        change(&rows)
        let oldCells = Dictionary(uniqueKeysWithValues: old.map { ($0.id, $0.cells) })
        let newCells = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.cells) })
        return TableBatch(from: old.map(\.id), to: rows.map(\.id), changed: { oldCells[$0] != newCells[$0] })
    }
}

/// A table on a memory canvas, with a fixed clock.
func makeTable(_ rows: TestRows, lines: Int = 10, columns: Int = 40,
               theme: TableTheme = .standard(colors: .none), animations: Bool = true) -> (TableView, MemoryCanvas) {
    var settings = TableSettings(theme: theme)
    settings.animationsEnabled = animations
    let table = TableView(dataSource: rows, settings: settings)
    let canvas = MemoryCanvas(rows: lines, columns: columns)
    table.render(into: canvas)
    return (table, canvas)
}

extension MemoryCanvas {
    /// The canvas line whose first cell (after the gutter) is `name`.
    func line(showing name: String) -> Int? {
        lines.firstIndex { $0.dropFirst(TableLayout.gutter).hasPrefix(name + " ") }
    }
}
