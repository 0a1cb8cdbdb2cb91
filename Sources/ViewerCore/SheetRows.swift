// A sheet as the table's data source: its rows in its own order, or sorted by a column.
import JSONTree
import LiveQuery
import TableUI

/// The table's view of a sheet: the sheet's rows in its own order, or — after `s` — sorted by
/// one column (cells that are numbers first, by value — `12.5%` too —, then text by UTF-16 code
/// units; ties in the sheet's order).
///
/// In the sheet's order a sheet's batch goes to the table as it is. Sorted, the rows are sorted
/// again after each batch and the table gets the batch between the two orders by row key, so a
/// row whose count changed still moves to its place and flashes.
final class SheetRows: TableDataSource {
    let sheet: any Sheet
    private let unicode: Bool
    /// The sort: a column and its direction; nil: the sheet's own order.
    private(set) var sort: (column: Int, descending: Bool)?
    /// Sorted: the sheet row shown on each table row, and its key.
    private var order: [Int] = []
    private var orderKeys: [JSONKey] = []

    init(sheet: any Sheet, unicode: Bool) {
        self.sheet = sheet
        self.unicode = unicode
    }

    var columns: [TableColumn] {
        var columns = sheet.columns
        if let sort, sort.column < columns.count {
            columns[sort.column].title += sort.descending ? (unicode ? "↓" : "v") : (unicode ? "↑" : "^")
        }
        return columns
    }

    var numberOfRows: Int { sort == nil ? sheet.rowCount : order.count }

    /// The sheet's row shown on table row `row`.
    func sheetRow(_ row: Int) -> Int { sort == nil ? row : order[row] }

    func cells(ofRow row: Int) -> [String] {
        guard row >= 0, row < numberOfRows else { return [] }
        return sheet.cells(ofRow: sheetRow(row))
    }

    /// Sorts by `column` (again on the same column: the other direction); returns the batch from
    /// the rows shown to the sorted ones.
    func sort(by column: Int) -> TableBatch {
        let before = shownKeys
        let descending = sort?.column == column ? !(sort!.descending) : false
        sort = (column, descending)
        resort()
        return TableBatch(from: before, to: orderKeys)
    }

    /// The table's batch for a batch of the sheet (whose rows have changed already).
    func tableBatch(for batch: BatchDiff) -> TableBatch {
        guard sort != nil else { return TableBatch(batch, reversed: false) }
        let before = orderKeys
        resort()
        let changed = Set(batch.reloads.map { JSONKey($0.key) })
        return TableBatch(from: before, to: orderKeys) { changed.contains($0) }
    }

    private var shownKeys: [JSONKey] {
        sort == nil ? (0..<sheet.rowCount).map { JSONKey(sheet.key(ofRow: $0)) } : orderKeys
    }

    private func resort() {
        guard let sort else { return }
        let n = sheet.rowCount
        let cells = (0..<n).map { row -> String in
            let all = sheet.cells(ofRow: row)
            return sort.column < all.count ? all[sort.column] : ""
        }
        let numbers = cells.map { Double(stripPercent($0)) }
        func less(_ a: Int, _ b: Int) -> Bool {
            switch (numbers[a], numbers[b]) {
            case let (x?, y?) where x != y: return x < y
            case (_?, nil): return true
            case (nil, _?): return false
            default: break
            }
            let c = utf16Compare(cells[a], cells[b])
            return c != 0 ? c < 0 : false
        }
        // A stable sort: ties keep the sheet's order, in either direction.
        order = (0..<n).sorted { a, b in
            let forward = sort.descending ? less(b, a) : less(a, b)
            let backward = sort.descending ? less(a, b) : less(b, a)
            return forward || (!backward && a < b)
        }
        orderKeys = order.map { JSONKey(sheet.key(ofRow: $0)) }
    }
}

/// `12.5%` → `12.5` (a percentage column sorts by its number).
private func stripPercent(_ s: String) -> String {
    s.hasSuffix("%") ? String(s.dropLast()) : s
}
