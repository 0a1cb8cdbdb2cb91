// What the viewer's keys do (the bindings are in KeyBindings.swift).
import JSONTree
import LiveQuery
import TableUI

extension Viewer {
    /// Handles one key: the help screen, prompt or question first, then the bindings.
    func handle(_ key: Key) {
        if key == .resize {
            redrawAll()
            return
        }
        switch mode {
        case .help:
            mode = .table
            redrawAll()
            return
        case .prompt(var prompt):
            switch prompt.handle(key) {
            case .editing: mode = .prompt(prompt)
            case .cancelled: mode = .table
            case .accepted:
                mode = .table
                accept(prompt)
            }
            return
        case .confirm(let question):
            mode = .table
            if key == .character("y") || key == .character("Y") {
                remove(question.path)
            } else {
                message = Message(text: "nothing deleted", isError: false)
            }
            return
        case .table:
            break
        }
        message = nil
        if case .mouse = key {
            table.handle(key)
            return
        }
        guard let action = viewerAction(for: key) else { return }
        perform(action)
        loadMoreIfNeeded()
    }

    func perform(_ action: ViewerAction) {
        switch action {
        case .down: table.moveSelection(by: 1)
        case .up: table.moveSelection(by: -1)
        case .pageDown: table.page(1)
        case .pageUp: table.page(-1)
        case .first: table.selectFirst()
        case .last: table.selectLast()
        case .columnLeft: moveColumnCursor(by: -1)
        case .columnRight: moveColumnCursor(by: 1)
        case .open: openSelected()
        case .back: goBack()
        case .sortByColumn: sort(by: rows.cursorSpec)
        case .sortByKey: sort(by: .key)
        case .reverse:
            var next = query
            next.reverse()
            replaceQuery(next)
        case .filter: startFilter()
        case .clearFilter:
            if query.filter != nil {
                var next = query
                next.clearFilter()
                replaceQuery(next)
            } else if paneOpen {
                paneOpen = false
            }
        case .pause:
            if paused { resume() } else { paused = true }
        case .showJSON: paneOpen.toggle()
        case .copyPath: copySelectedPath()
        case .edit: startEdit()
        case .increment: increment(by: 1)
        case .decrement: increment(by: -1)
        case .delete: askToDelete()
        case .add: startAdd()
        case .help: mode = .help
        case .repaint:
            terminal.repaintFully()
            redrawAll()
        case .quit: running = false
        }
    }

    /// Forgets what the screen shows, so the next render draws every line (after a resize or
    /// the help screen).
    func redrawAll() {
        screen.invalidate()
        table.invalidate()
    }

    // MARK: Columns and sorting

    /// Moves the column cursor and scrolls the columns so that it stays in view.
    private func moveColumnCursor(by delta: Int) {
        guard rows.moveCursor(by: delta) else { return }
        let first = table.state.firstColumn
        if rows.cursor < first {
            table.scrollColumns(by: rows.cursor - first)
            return
        }
        let width = terminal.canvas.size.columns
        while table.state.firstColumn < rows.cursor, !cursorColumnFits(width: width) {
            let before = table.state.firstColumn
            table.scrollColumns(by: 1)
            if table.state.firstColumn == before { break }
        }
    }

    /// Whether the cursor's column is fully shown from the table's first column, by the widths
    /// the table gives columns (header and the visible rows' text, within each column's bounds).
    private func cursorColumnFits(width: Int) -> Bool {
        let columns = rows.columns
        let visible = table.state.offset..<min(rows.numberOfRows, table.state.offset + max(1, table.bodyHeight))
        let cells = visible.map { rows.cells(ofRow: $0).map { displayWidth(sanitize($0)) } }
        var x = 3  // the table's gutter: selection glyph, change marker, space
        for i in table.state.firstColumn...rows.cursor {
            let content = cells.reduce(displayWidth(sanitize(columns[i].title))) { max($0, i < $1.count ? $1[i] : 0) }
            let w = min(columns[i].maxWidth, max(columns[i].minWidth, content))
            if i == rows.cursor { return x + w + 1 <= width }
            x += w + 2
        }
        return true
    }

    private func ordering(for spec: ColumnSpec) -> Query.Ordering {
        switch spec {
        case .key: .key
        case .value: .value
        case .member(let path): .child(path)
        }
    }

    private func sort(by spec: ColumnSpec) {
        var next = query
        next.sort(by: ordering(for: spec))
        replaceQuery(next)
    }

    /// `/`: a prompt for a filter on the column under the cursor, which becomes the sort column
    /// (a filter is a range of the order: equalTo, or startAt/endAt for a prefix).
    private func startFilter() {
        let spec = rows.cursorSpec
        var text = ""
        if spec == query.sortSpec {
            switch query.filter {
            case .equal(_, let typed)?: text = typed
            case .prefix(let prefix)?: text = prefix + "*"
            case nil: break
            }
        }
        mode = .prompt(Prompt(purpose: .filter(spec: spec, ordering: ordering(for: spec)),
                              label: "filter \(spec.title) = (a value, or text* for a prefix; empty clears): ", text: text))
    }

    // MARK: Moving between locations

    /// Enter: the selected child's children become the table.
    private func openSelected() {
        guard let (key, value) = selectedChild else { return }
        guard value.isContainer, value.members.contains(where: { _ in true }) || value.elements.contains(where: { _ in true })
        else {
            message = Message(text: "\(location.child(key)) has no children (v shows its value)", isError: false)
            return
        }
        trail.append(Breadcrumb(path: location, query: query, columns: rows.columnSet, cursor: rows.cursorSpec, selectedKey: key))
        location = location.child(key)
        query = ViewQuery(flags: Query(), pageSize: options.pageSize)
        enterLocation(columns: ColumnSet(inferredFrom: []), cursor: .key, selecting: nil)
    }

    /// Backspace: back to where Enter came from, or to the parent location.
    private func goBack() {
        if let crumb = trail.popLast() {
            location = crumb.path
            query = crumb.query
            enterLocation(columns: crumb.columns, cursor: crumb.cursor, selecting: crumb.selectedKey)
        } else if let parent = location.parent {
            let key = location.lastKey
            location = parent
            query = ViewQuery(flags: Query(), pageSize: options.pageSize)
            enterLocation(columns: ColumnSet(inferredFrom: []), cursor: .key, selecting: key)
        } else {
            message = Message(text: "already at the root", isError: false)
        }
    }

    private func copySelectedPath() {
        guard let (key, _) = selectedChild else { return }
        let path = location.child(key).description
        if let refusal = copyToClipboard(path, fd: 1) {
            message = Message(text: refusal, isError: true)
        } else {
            message = Message(text: "copied \(path)", isError: false)
        }
    }
}
