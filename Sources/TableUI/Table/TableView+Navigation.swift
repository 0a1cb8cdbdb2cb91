// Moving the selection and scrolling, by keys, wheel and clicks.

extension TableView {
    /// Handles the table's own keys: arrows, Page Up/Down, Home/End, the wheel and clicks.
    /// Returns false for keys the table does not use (the program's bindings).
    @discardableResult
    public func handle(_ key: Key) -> Bool {
        switch key {
        case .up: moveSelection(by: -1)
        case .down: moveSelection(by: 1)
        case .pageUp: page(-1)
        case .pageDown: page(1)
        case .home: selectFirst()
        case .end: selectLast()
        case .left: state.selectedColumn == nil ? scrollColumns(by: -1) : moveColumnSelection(by: -1)
        case .right: state.selectedColumn == nil ? scrollColumns(by: 1) : moveColumnSelection(by: 1)
        case .mouse(let event):
            switch event.action {
            case .wheelUp: scroll(by: -settings.wheelLines)
            case .wheelDown: scroll(by: settings.wheelLines)
            case .press:
                guard let r = row(atCanvasLine: event.line) else { return false }
                select(row: r)
            }
        default: return false
        }
        return true
    }

    /// Selects `row` (clamped to the rows) and scrolls it into view.
    public func select(row: Int) {
        guard rowCount > 0 else { return }
        state.selection = min(max(0, row), rowCount - 1)
        scrollToSelection()
    }

    /// Moves the selection `delta` rows down (up when negative).
    public func moveSelection(by delta: Int) {
        select(row: (state.selection ?? 0) + delta)
    }

    public func selectFirst() { select(row: 0) }

    public func selectLast() { select(row: rowCount - 1) }

    /// Pages down (`pages` > 0) or up: the view and the selection move by a screenful,
    /// so the selection keeps its line where it can.
    public func page(_ pages: Int) {
        let h = max(1, bodyHeight)
        setOffset(state.offset + pages * h)
        moveSelection(by: pages * h)
    }

    /// Scrolls the view by `lines` without moving the selection (the wheel).
    public func scroll(by lines: Int) {
        setOffset(state.offset + lines)
    }

    /// Scrolls the columns left or right, stopping when the last column is in view.
    public func scrollColumns(by delta: Int) {
        let limit = viewport.map { TableLayout.lastFirstColumn(widths: columnWidths(width: $0.width), width: $0.width, frozen: settings.frozenColumns) }
            ?? max(0, knownColumns.count - 1)
        state.firstColumn = max(0, min(state.firstColumn + delta, limit))
    }

    /// Puts the column cursor on `column` (clamped to the columns); the next render scrolls
    /// the columns so that it is in view. nil removes the cursor.
    public func selectColumn(_ column: Int?) {
        let count = dataSource.columns.count
        state.selectedColumn = column.map { max(0, min($0, count - 1)) }
        if let c = state.selectedColumn, c >= settings.frozenColumns, c < state.firstColumn { state.firstColumn = c }
    }

    /// Moves the column cursor `delta` columns right (left when negative).
    public func moveColumnSelection(by delta: Int) {
        selectColumn((state.selectedColumn ?? 0) + delta)
    }
}

extension TableView {
    /// The width column `column` had in the latest render (before a cut at the right edge); nil
    /// before the first render.
    public func shownWidth(ofColumn column: Int) -> Int? {
        guard let viewport else { return nil }
        let widths = columnWidths(width: viewport.width)
        return column >= 0 && column < widths.count ? widths[column] : nil
    }
}
