// The table's data source: the rows on screen and their columns.
import JSONTree
import LiveQuery
import SyncedArray
import TableUI

/// The rows the table shows: a snapshot of a synced array's rows (query order), shown in that
/// order or reversed (limit-to-last shown highest first), with the columns of a `ColumnSet`.
///
/// The snapshot is the table's own: while updates are paused the array moves on and the table
/// keeps showing this. Change the rows first, then tell the table (a batch or a reload), as the
/// table expects.
final class RowSource: TableDataSource {
    /// The rows on screen in query order; nil before the first ones (or after moving to
    /// another location).
    private(set) var rows: [SyncedRow]?
    /// Rows are shown last-first.
    private(set) var reversed = false
    private var indexOfKey: [JSONKey: Int] = [:]
    private(set) var columnSet = ColumnSet(inferredFrom: [])
    /// The column the order is by, and whether it is shown descending (marked in its title).
    private(set) var sort: (spec: ColumnSpec?, descending: Bool) = (nil, false)
    private(set) var columns: [TableColumn] = [TableColumn("key")]
    private let unicode: Bool
    /// The search's test for a cell: matching cells are highlighted (nil: no search).
    var highlight: ((String) -> Bool)?
    /// A trend cell: a row's recent values at a path (the viewer reads them from the history).
    var trend: ((_ key: String, _ value: JSONNode, _ path: Path) -> String)?
    /// A past revision's changed cells, by row key and column: the text before (shown `old → new`).
    var notes: [JSONKey: [ColumnSpec: String]] = [:]

    init(unicode: Bool) { self.unicode = unicode }

    var numberOfRows: Int { rows?.count ?? 0 }

    /// The index in `rows` of table row `row`.
    func rowIndex(ofTableRow row: Int) -> Int { reversed ? numberOfRows - 1 - row : row }

    /// The table row of `rows[index]` (the mapping is its own inverse).
    func tableRow(ofRowIndex index: Int) -> Int { rowIndex(ofTableRow: index) }

    /// The row shown on table row `row`.
    func row(_ row: Int) -> SyncedRow? {
        guard let rows, row >= 0, row < rows.count else { return nil }
        return rows[rowIndex(ofTableRow: row)]
    }

    /// The table row of the child with exactly this key (code units), if on screen.
    /// - Complexity: O(1) expected.
    func tableRow(ofKey key: String) -> Int? {
        indexOfKey[JSONKey(key)].map { tableRow(ofRowIndex: $0) }
    }

    /// The rows' keys in table order (identities for a batch between two lists of rows).
    func tableKeys(_ rows: [SyncedRow], reversed: Bool) -> [JSONKey] {
        let keys = rows.map(\.jsonKey)
        return reversed ? keys.reversed() : keys
    }

    func cells(ofRow row: Int) -> [String] {
        guard let shown = self.row(row) else { return [] }
        // A line of a log that is not JSON: its key, and its error across the row (`spanningText`).
        if errorRowText(shown.value) != nil {
            return columnSet.specs.map { $0 == .key ? shown.key : "" }
        }
        let notes = self.notes.isEmpty ? nil : self.notes[shown.jsonKey]
        return columnSet.specs.map { spec in
            if case .spark(let path) = spec { return trend?(shown.key, shown.value, path) ?? "" }
            let text = spec.cell(key: shown.key, child: shown.value, format: columnSet.formats[spec])
            guard let old = notes?[spec] else { return text }
            return old + (unicode ? " → " : " -> ") + text
        }
    }

    func spanningText(ofRow row: Int) -> String? {
        self.row(row).flatMap { errorRowText($0.value) }
    }

    func highlightedColumns(ofRow row: Int) -> Set<Int> {
        guard let highlight, let shown = self.row(row) else { return [] }
        var found = Set<Int>()
        for (i, spec) in columnSet.specs.enumerated() where highlight(spec.cell(key: shown.key, child: shown.value)) {
            found.insert(i)
        }
        return found
    }

    // MARK: Changing what is shown

    /// Shows `rows` (nil: nothing yet).
    /// - Complexity: O(rows) to index the keys.
    func setRows(_ rows: [SyncedRow]?, reversed: Bool) {
        self.rows = rows
        self.reversed = reversed
        indexOfKey.removeAll(keepingCapacity: true)
        for (i, row) in (rows ?? []).enumerated() { indexOfKey[row.jsonKey] = i }
    }

    /// Replaces the columns (a new location, a reload).
    func setColumns(_ set: ColumnSet) {
        columnSet = set
        rebuildColumns()
    }

    /// Adds columns for members first seen in `rows[indexes]`.
    func extendColumns(at indexes: some Sequence<Int>) {
        guard let rows, columnSet.extend(from: rows, at: indexes) else { return }
        rebuildColumns()
    }

    func setSort(_ spec: ColumnSpec?, descending: Bool) {
        guard sort.spec != spec || sort.descending != descending else { return }
        sort = (spec, descending)
        rebuildColumns()
    }

    /// Column titles show the sort column with ↑ (ascending) or ↓.
    private func rebuildColumns() {
        columns = columnSet.specs.enumerated().map { i, spec in
            var title = spec.title
            if spec == sort.spec { title += sort.descending ? (unicode ? "↓" : "v") : (unicode ? "↑" : "^") }
            if let width = columnSet.widths[spec] {
                var column = TableColumn(title, numeric: columnSet.numeric[i], minWidth: width, maxWidth: width)
                column.isFixedWidth = true
                return column
            }
            return TableColumn(title, numeric: columnSet.numeric[i], minWidth: i == 0 ? 3 : 1, maxWidth: i == 0 ? 24 : 40)
        }
    }
}
