// The table's data source: the window on screen, its columns, and the column cursor.
import JSONTree
import LiveQuery
import TableUI

/// The rows the table shows: one query window, in query order or reversed (limit-to-last
/// shown highest first), with the columns of a `ColumnSet`.
///
/// Change `window` first, then tell the table (a batch or a reload), as the table expects.
final class RowSource: TableDataSource {
    /// The window on screen; nil before the first one (or after moving to another location).
    private(set) var window: Window?
    /// Rows are shown last-first.
    private(set) var reversed = false
    private(set) var columnSet = ColumnSet(inferredFrom: nil)
    /// The column the cursor is on (an index into the columns).
    private(set) var cursor = 0
    /// The column the order is by, and whether it is shown descending (marked in its title).
    private(set) var sort: (spec: ColumnSpec?, descending: Bool) = (nil, false)
    private(set) var columns: [TableColumn] = [TableColumn("key")]
    private let unicode: Bool

    init(unicode: Bool) { self.unicode = unicode }

    var numberOfRows: Int { window?.count ?? 0 }

    /// The window index of table row `row`.
    func windowIndex(ofRow row: Int) -> Int { reversed ? numberOfRows - 1 - row : row }

    /// The table row of window index `index` (the mapping is its own inverse).
    func row(ofWindowIndex index: Int) -> Int { windowIndex(ofRow: index) }

    func key(ofRow row: Int) -> String? {
        guard let window, row >= 0, row < window.count else { return nil }
        return window.key(at: windowIndex(ofRow: row))
    }

    func value(ofRow row: Int) -> JSONNode? {
        guard let window, row >= 0, row < window.count else { return nil }
        return window.value(at: windowIndex(ofRow: row))
    }

    /// The row of the child with exactly this key (code units), if on screen.
    func row(ofKey key: String) -> Int? {
        window?.index(ofKey: key).map { row(ofWindowIndex: $0) }
    }

    /// Every row's key as bytes, in table order (identities for a batch between two windows).
    func keyBytes(of window: Window, reversed: Bool) -> [[UInt8]] {
        let keys = (0..<window.count).map { i in window.withKeyBytes(at: i) { Array($0) } }
        return reversed ? keys.reversed() : keys
    }

    func cells(ofRow row: Int) -> [String] {
        guard let window, row >= 0, row < window.count else { return [] }
        let i = windowIndex(ofRow: row)
        let key = window.key(at: i)
        let child = window.value(at: i)
        return columnSet.specs.map { $0.cell(key: key, child: child) }
    }

    /// The column under the cursor.
    var cursorSpec: ColumnSpec { columnSet.specs[cursor] }

    // MARK: Changing what is shown

    /// Shows `window` (nil: nothing).
    func setWindow(_ window: Window?, reversed: Bool) {
        self.window = window
        self.reversed = reversed
    }

    /// Replaces the columns (a new location, a reload); the cursor goes to `spec` (by default
    /// the column it is on) if it is there.
    func setColumns(_ set: ColumnSet, cursorOn spec: ColumnSpec? = nil) {
        let spec = spec ?? cursorSpec
        columnSet = set
        cursor = set.specs.firstIndex(of: spec) ?? min(cursor, set.specs.count - 1)
        rebuildColumns()
    }

    /// Adds columns for members first seen in rows `rows` (window indexes) of the window.
    func extendColumns(rows: some Sequence<Int>) {
        guard let window, columnSet.extend(from: window, rows: rows) else { return }
        rebuildColumns()
    }

    /// Moves the column cursor by `delta` (clamped). Returns whether it moved.
    @discardableResult
    func moveCursor(by delta: Int) -> Bool {
        let target = max(0, min(columnSet.specs.count - 1, cursor + delta))
        guard target != cursor else { return false }
        cursor = target
        rebuildColumns()
        return true
    }

    func setSort(_ spec: ColumnSpec?, descending: Bool) {
        guard sort.spec != spec || sort.descending != descending else { return }
        sort = (spec, descending)
        rebuildColumns()
    }

    /// Column titles show the cursor as `[title]` and the sort column with ↑ (ascending) or ↓.
    private func rebuildColumns() {
        columns = columnSet.specs.enumerated().map { i, spec in
            var title = spec.title
            if spec == sort.spec { title += sort.descending ? (unicode ? "↓" : "v") : (unicode ? "↑" : "^") }
            if i == cursor { title = "[" + title + "]" }
            return TableColumn(title, numeric: columnSet.numeric[i], minWidth: i == 0 ? 3 : 1, maxWidth: i == 0 ? 24 : 40)
        }
    }
}
