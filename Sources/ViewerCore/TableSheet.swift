// A derived sheet's rows as a table on the viewer's stack: the keys of a table (open, sort,
// search, copy) over any `Sheet`.
import JSONTree
import LiveQuery
import TableUI

/// A `Sheet` on the stack, with the table that shows it.
final class TableSheet: StackSheet {
    let sheet: any Sheet
    let rows: SheetRows
    let table: TableView
    unowned let viewer: Viewer
    /// The table has shown the sheet's first rows (they arrive as a reload, later ones as batches).
    private var filled = false
    /// `/` on this sheet: the text searched for.
    private var search: String?

    init(_ sheet: any Sheet, viewer: Viewer, settings: TableSettings) {
        self.sheet = sheet
        self.viewer = viewer
        rows = SheetRows(sheet: sheet, unicode: viewer.environment.unicode)
        table = TableView(dataSource: rows, settings: settings)
        table.settings.frozenColumns = 1
        table.selectColumn(0)
    }

    var title: String { sheet.title }
    var tableView: TableView? { table }

    func start() {
        sheet.onBatch = { [unowned self] batch in changed(batch) }
        sheet.start()
        if !sheet.isLoading && !filled { fill() }
    }

    func stop() {
        sheet.stop()
        sheet.onBatch = nil
    }

    func render(into canvas: Canvas, lines: Range<Int>) {
        let empty = emptyText
        if table.settings.emptyText != empty { table.settings.emptyText = empty }
        table.render(into: canvas, lines: lines)
    }

    /// The rows changed: the first rows are a reload, later ones the sheet's batch.
    private func changed(_ batch: BatchDiff) {
        guard filled else { return fill() }
        do {
            try table.performBatchUpdates(rows.tableBatch(for: batch), now: viewer.environment.clock.now())
        } catch {
            table.reloadData()
        }
    }

    private func fill() {
        filled = true
        table.reloadData()
        table.selectFirst()
    }

    var derivedSheet: (any Sheet)? { sheet }
    var emptyText: String { sheet.isLoading ? "counting…" : "no rows" }

    var status: SheetStatus {
        let n = rows.numberOfRows
        return SheetStatus(count: "\(n) \(n == 1 ? "row" : "rows")")
    }

    var keyHint: [(ViewerAction, String)]? {
        [(.quit, "back"), (.open, "open"), (.sortByColumn, "sort"), (.search, "search"), (.showJSON, "JSON"), (.copyValue, "copy")]
            + sheet.ownKeys
    }

    /// The selected row: its key, its value, and its location when it is a child (else named
    /// by the sheet's title, for the pane's title).
    var selectedRow: SelectedRow? {
        guard let row = table.state.selection, row < rows.numberOfRows else { return nil }
        let i = rows.sheetRow(row)
        let key = sheet.key(ofRow: i)
        guard let node = try? JSONDocument(parsing: sheet.value(ofRow: i).serialized()).root else { return nil }
        return SelectedRow(key: key, value: node, path: sheet.path(ofRow: i))
    }

    /// The keys of a table whose meaning differs from the location's table; the sheet's own
    /// (`b` on a frequency table) go to it.
    func perform(_ action: ViewerAction) -> Bool {
        switch action {
        case .last: table.selectLast()
        case .open: open()
        case .sortByColumn, .reverse: sort(reversing: action == .reverse)
        case .search: viewer.mode = .prompt(Prompt(purpose: .search, label: "find in this sheet (lower case ignores case): ", text: ""))
        case .searchNext: step(by: 1)
        case .searchPrevious: step(by: -1)
        case .clearFilter: if viewer.paneOpen { viewer.closePane() }
        case .copyPath: copyPath()
        case .copyValue: copyValue()
        default:
            guard let text = sheet.perform(action) else { return false }
            viewer.message = Viewer.Message(text: text, isError: false)
        }
        return true
    }

    private func open() {
        guard let row = table.state.selection, row < rows.numberOfRows else { return }
        switch sheet.open(row: rows.sheetRow(row)) {
        case .sheet(let next): viewer.push(next)
        case .message(let text): viewer.message = Viewer.Message(text: text, isError: false)
        }
    }

    private func sort(reversing: Bool) {
        let column = reversing ? rows.sort?.column : Optional(table.state.selectedColumn ?? 0)
        guard let column else {
            viewer.message = Viewer.Message(text: "s sorts by the column under the cursor first", isError: false)
            return
        }
        do {
            try table.performBatchUpdates(rows.sort(by: column), now: viewer.environment.clock.now())
        } catch {
            table.reloadData()
        }
    }

    private func copyPath() {
        guard let path = selectedRow?.path else {
            viewer.message = Viewer.Message(text: "the rows of the \(sheet.title) are not children: Y copies the row as JSON", isError: false)
            return
        }
        viewer.copyText(path.description, saying: "copied \(path)")
    }

    private func copyValue() {
        guard let row = table.state.selection, row < rows.numberOfRows else { return }
        let text = sheet.value(ofRow: rows.sheetRow(row)).serializedString(.compact, escaping: .invisibles)
        viewer.environment.perform(.copyToClipboard(text))
        viewer.message = Viewer.Message(text: "copied the row as JSON (\(text.utf8.count) bytes)", isError: false)
    }

    /// `/` on a sheet: the first row from the selection on whose cells hold the text.
    func accept(_ prompt: Prompt) {
        guard case .search = prompt.purpose else { return }
        search = prompt.text.isEmpty ? nil : prompt.text
        if prompt.text.isEmpty { return }
        step(by: 0)
    }

    /// Selects the next (`by` 1), previous (-1) or first from here (0) row matching the search.
    private func step(by step: Int) {
        guard let text = search else {
            viewer.message = Viewer.Message(text: "/ first: no search on this sheet", isError: false)
            return
        }
        let n = rows.numberOfRows
        guard n > 0 else { return }
        // Smart case, as the table's search: lower case ignores case.
        let ignoreCase = text == text.lowercased()
        let needle = ignoreCase ? text.lowercased() : text
        let from = table.state.selection ?? 0
        for k in 0..<n {
            let row = ((from + (step == 0 ? k : step * (k + 1))) % n + n) % n
            let cells = rows.cells(ofRow: row)
            if let column = cells.firstIndex(where: { (ignoreCase ? $0.lowercased() : $0).contains(needle) }) {
                table.select(row: row)
                table.selectColumn(column)
                return
            }
        }
        viewer.message = Viewer.Message(text: "no row of the \(sheet.title) holds \(JSON.string(text).serializedString())", isError: false)
    }
}
