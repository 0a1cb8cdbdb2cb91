// The sheet stack: derived sheets opened above the location's table, and their keys.
import JSONTree
import LiveQuery
import LiveViews
import TableUI

/// A sheet on the stack, with the table that shows it.
final class SheetFrame {
    let sheet: any Sheet
    let rows: SheetRows
    let table: TableView
    /// The table has shown the sheet's first rows (they arrive as a reload, later ones as batches).
    var filled = false
    /// `/` on this sheet: the text searched for.
    var search: String?

    init(sheet: any Sheet, rows: SheetRows, table: TableView) {
        self.sheet = sheet
        self.rows = rows
        self.table = table
    }
}

extension Viewer {
    /// The table on screen: the top sheet's, or the location's.
    var activeTable: TableView { sheets.last?.table ?? table }

    /// The sheet shown, as export and other readers of what is on screen see it: the top
    /// derived sheet, or nil for the location's table (whose rows are the synced array's).
    public var shownSheet: (any Sheet)? { sheets.last?.sheet }

    /// The sheets above the location's table, bottom first (the status bar's trail).
    public var sheetTitles: [String] { sheets.map(\.sheet.title) }

    /// Opens `sheet` on top of the stack: it starts following the store at once.
    public func push(_ sheet: any Sheet) {
        let rows = SheetRows(sheet: sheet, unicode: environment.unicode)
        let table = TableView(dataSource: rows, settings: self.table.settings)
        table.settings.frozenColumns = 1
        table.selectColumn(0)
        let frame = SheetFrame(sheet: sheet, rows: rows, table: table)
        sheet.onBatch = { [unowned self, unowned frame] batch in sheetChanged(frame, batch) }
        sheets.append(frame)
        closePane()
        sheet.start()
        if !sheet.isLoading && !frame.filled { fill(frame) }
        redrawAll()
    }

    /// Closes the top sheet; the one below (or the location's table) is shown again.
    func popSheet() {
        guard let frame = sheets.popLast() else { return }
        frame.sheet.stop()
        frame.sheet.onBatch = nil
        closePane()
        redrawAll()
    }

    /// A sheet's rows changed: the first rows are a reload, later ones the sheet's batch.
    private func sheetChanged(_ frame: SheetFrame, _ batch: BatchDiff) {
        guard frame.filled else { return fill(frame) }
        let tableBatch = frame.rows.tableBatch(for: batch)
        do {
            try frame.table.performBatchUpdates(tableBatch, now: environment.clock.now())
        } catch {
            frame.table.reloadData()
        }
    }

    private func fill(_ frame: SheetFrame) {
        frame.filled = true
        frame.table.reloadData()
        frame.table.selectFirst()
    }

    /// Shift-F: the frequency table of the column under the cursor.
    func openFrequency() {
        let spec = cursorSpec
        guard spec != .key else {
            message = Message(text: "every key is distinct: F counts the values of another column", isError: false)
            return
        }
        guard let selection = currentSelection else { return }
        push(FrequencySheet(selection: selection, spec: spec))
    }

    /// Shift-I: the statistics of the table's visible columns.
    func openStatistics() {
        let specs = rows.columnSet.specs.filter { $0 != .key }
        guard !specs.isEmpty else {
            message = Message(text: "no columns besides the key yet", isError: false)
            return
        }
        guard let selection = currentSelection else { return }
        push(StatisticsSheet(selection: selection, specs: specs))
    }

    /// The children the derived sheets count: the table's query over its whole range (the
    /// pages not loaded too; a limit given by the user still applies).
    private var currentSelection: Selection? {
        do {
            return Selection(store: store, location: location, query: try query.makeQuery(), columns: rows.columnSet,
                             unicode: environment.unicode)
        } catch {
            message = Message(text: "bad query: \(error)", isError: true)
            return nil
        }
    }

    /// The selected row of the top sheet, as the JSON pane and copying read it: its key, its
    /// value, and its location when it is a child.
    var selectedSheetRow: (key: String, value: JSON, path: Path?)? {
        guard let frame = sheets.last, let row = frame.table.state.selection, row < frame.rows.numberOfRows else { return nil }
        let i = frame.rows.sheetRow(row)
        return (frame.sheet.key(ofRow: i), frame.sheet.value(ofRow: i), frame.sheet.path(ofRow: i))
    }

    /// A key on a derived sheet: the same meaning as on the location's table where it has one.
    func performOnSheet(_ action: ViewerAction) {
        guard let frame = sheets.last else { return }
        let table = frame.table
        switch action {
        case .down: table.moveSelection(by: 1)
        case .up: table.moveSelection(by: -1)
        case .pageDown: table.page(1)
        case .pageUp: table.page(-1)
        case .first: table.selectFirst()
        case .last: table.selectLast()
        case .columnLeft: table.moveColumnSelection(by: -1)
        case .columnRight: table.moveColumnSelection(by: 1)
        case .open:
            guard let row = table.state.selection, row < frame.rows.numberOfRows else { return }
            switch frame.sheet.open(row: frame.rows.sheetRow(row)) {
            case .sheet(let next): push(next)
            case .message(let text): message = Message(text: text, isError: false)
            }
        case .back, .quit: popSheet()
        case .sortByColumn, .reverse:
            let column = action == .reverse ? frame.rows.sort?.column : Optional(table.state.selectedColumn ?? 0)
            guard let column else {
                message = Message(text: "s sorts by the column under the cursor first", isError: false)
                return
            }
            do {
                try table.performBatchUpdates(frame.rows.sort(by: column), now: environment.clock.now())
            } catch {
                table.reloadData()
            }
        case .search: mode = .prompt(Prompt(purpose: .search, label: "find in this sheet (lower case ignores case): ", text: ""))
        case .searchNext: stepSheetSearch(frame, by: 1)
        case .searchPrevious: stepSheetSearch(frame, by: -1)
        case .showJSON:
            if paneOpen { closePane() } else { paneOpen = true }
        case .focusJSON:
            paneOpen = true
            paneFocused = true
        case .clearFilter: if paneOpen { closePane() }
        case .copyPath:
            guard let path = selectedSheetRow?.path else {
                message = Message(text: "the rows of the \(frame.sheet.title) are not children: Y copies the row as JSON", isError: false)
                return
            }
            let text = path.description
            if let refusal = clipboardRefusal(text) {
                message = Message(text: refusal, isError: true)
                return
            }
            environment.perform(.copyToClipboard(text))
            message = Message(text: "copied \(text)", isError: false)
        case .copyValue:
            guard let (_, value, _) = selectedSheetRow else { return }
            let text = value.serializedString(.compact, escaping: .invisibles)
            environment.perform(.copyToClipboard(text))
            message = Message(text: "copied the row as JSON (\(text.utf8.count) bytes)", isError: false)
        case .help: mode = .help(top: 0)
        case .repaint:
            environment.perform(.repaintFully)
            redrawAll()
        default:
            if let text = frame.sheet.perform(action) {
                message = Message(text: text, isError: false)
            } else {
                message = Message(text: "not on the \(frame.sheet.title): q or Backspace goes back to \(sheets.count > 1 ? sheets[sheets.count - 2].sheet.title : "the table")", isError: false)
            }
        }
    }

    /// `/` on a sheet: the first row from the selection on whose cells hold the text.
    func searchSheet(_ text: String) {
        guard let frame = sheets.last else { return }
        frame.search = text.isEmpty ? nil : text
        if text.isEmpty { return }
        stepSheetSearch(frame, by: 0)
    }

    /// Selects the next (`by` 1), previous (-1) or first from here (0) row matching the search.
    private func stepSheetSearch(_ frame: SheetFrame, by step: Int) {
        guard let text = frame.search else {
            message = Message(text: "/ first: no search on this sheet", isError: false)
            return
        }
        let n = frame.rows.numberOfRows
        guard n > 0 else { return }
        // Smart case, as the table's search: lower case ignores case.
        let ignoreCase = text == text.lowercased()
        let needle = ignoreCase ? text.lowercased() : text
        let from = frame.table.state.selection ?? 0
        for k in 0..<n {
            let row = ((from + (step == 0 ? k : step * (k + 1))) % n + n) % n
            let cells = frame.rows.cells(ofRow: row)
            if let column = cells.firstIndex(where: { (ignoreCase ? $0.lowercased() : $0).contains(needle) }) {
                frame.table.select(row: row)
                frame.table.selectColumn(column)
                return
            }
        }
        message = Message(text: "no row of the \(frame.sheet.title) holds \(JSON.string(text).serializedString())", isError: false)
    }
}

extension Viewer {
    /// The message line's reminder of a sheet's keys, as bound: `q back  Enter open  s sort  …`.
    func sheetKeyHint(_ sheet: any Sheet) -> String {
        var shown: [(ViewerAction, String)] = [(.quit, "back"), (.open, "open"), (.sortByColumn, "sort"), (.search, "search"),
                                               (.showJSON, "JSON"), (.copyValue, "copy")]
        if sheet is FrequencySheet { shown.append((.toggleBinning, "ranges")) }
        return shown.compactMap { action, word in
            options.keyBindings.first { $0.action == action && !$0.keys.isEmpty }
                .map { "\($0.label.split(separator: " ").first.map(String.init) ?? $0.label) \(word)" }
        }.joined(separator: "  ")
    }
}
