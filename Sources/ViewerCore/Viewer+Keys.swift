// What the viewer's keys do (the bindings are in KeyBindings.swift).
import JSONTree
import LiveQuery
import TableUI

extension Viewer {
    /// Handles one key: the help screen, prompt or question first, then the bindings.
    public func handle(_ key: Key) {
        if key == .resize {
            redrawAll()
            return
        }
        switch mode {
        case .help(let top):
            scrollHelp(from: top, key)
            return
        case .prompt(var prompt):
            switch prompt.handle(key) {
            case .editing: mode = .prompt(prompt)
            case .reload: mode = .prompt(reloaded(prompt))
            case .cancelled: mode = .table
            case .accepted:
                mode = .table
                if case .search = prompt.purpose, !sheets.isEmpty { searchSheet(prompt.text) } else { accept(prompt) }
            }
            return
        case .confirm(let question):
            mode = .table
            let yes = key == .character("y") || key == .character("Y")
            switch question.action {
            case .delete(let path):
                if yes { remove(path) } else { message = Message(text: "nothing deleted", isError: false) }
            case .overwrite(let file, let format):
                if yes { export(to: file, format: format) } else { message = Message(text: "nothing written", isError: false) }
            }
            return
        case .table:
            break
        }
        message = nil
        if key == .escape, interrupt() { return }
        if paneOpen && paneFocused, scrollPane(key) { return }
        if case .mouse = key {
            activeTable.handle(key)
            return
        }
        guard let action = viewerAction(for: key, in: options.keyBindings) else { return }
        if !sheets.isEmpty { return performOnSheet(action) }
        perform(action)
        loadMoreIfNeeded()
    }

    func perform(_ action: ViewerAction) {
        if action.changesQuery, let refusal = historyRefusal(action.name) {
            message = Message(text: refusal, isError: true)
            return
        }
        switch action {
        case .down: table.moveSelection(by: 1)
        case .up: table.moveSelection(by: -1)
        case .pageDown: table.page(1)
        case .pageUp: table.page(-1)
        case .first: table.selectFirst()
        case .last: selectLastChild()
        case .columnLeft: moveColumnCursor(by: -1)
        case .columnRight: moveColumnCursor(by: 1)
        case .hideColumn: hideColumn()
        case .showColumns: startShowColumn()
        case .widenColumn: resizeColumn(by: Self.widthStep)
        case .narrowColumn: resizeColumn(by: -Self.widthStep)
        case .moveColumnLeft: moveColumn(by: -1)
        case .moveColumnRight: moveColumn(by: 1)
        case .open: openSelected()
        case .back: goBack()
        case .sortByColumn: sort(by: cursorSpec)
        case .sortByKey: sort(by: .key)
        case .reverse:
            var next = query
            next.reverse()
            replaceQuery(next)
        case .filter: startFilter()
        case .search: startSearch()
        case .searchNext: stepSearch(.next)
        case .searchPrevious: stepSearch(.previous)
        case .whereFilter: startCondition()
        case .export: startExport()
        case .computedColumn: startComputedColumn()
        case .expandColumn: expandColumn()
        case .collapseColumn: collapseColumn()
        case .clearFilter:
            if inHistory {
                returnToPresent()
            } else if !query.conditions.isEmpty {
                dropCondition()
            } else if query.filter != nil {
                var next = query
                next.clearFilter()
                replaceQuery(next)
            } else if search.pattern != nil {
                acceptSearch("")
            } else if paneOpen {
                closePane()
            }
        case .pause:
            if paused { resume() } else { paused = true }
        case .showJSON:
            if paneOpen && !paneShowsProblem { closePane() } else { (paneOpen, paneShowsProblem) = (true, false) }
        case .focusJSON:
            paneOpen = true
            paneFocused = true
            paneShowsProblem = false
        case .showProblem:
            if paneOpen && paneShowsProblem { closePane() } else { (paneOpen, paneShowsProblem, paneFocused) = (true, true, false) }
        case .copyPath: copySelectedPath()
        case .copyValue: copySelectedValue()
        case .edit: startEdit()
        case .increment: increment(by: 1)
        case .decrement: increment(by: -1)
        case .delete: askToDelete()
        case .add: startAdd()
        case .undo: undo()
        case .sparkColumn: toggleSparkColumn()
        case .rateColumn: addRateColumn()
        case .changeLog: openChangeLog()
        case .timeline: openTimeline()
        case .historyBack: stepHistory(back: true)
        case .historyForward: stepHistory(back: false)
        case .historyPresent: returnToPresent()
        case .rowChangePrevious: jumpToRowChange(previous: true)
        case .rowChangeNext: jumpToRowChange(previous: false)
        case .redo: redo()
        case .help: mode = .help(top: 0)
        case .repaint:
            environment.perform(.repaintFully)
            redrawAll()
        case .quit: isRunning = false
        case .frequency: openFrequency()
        case .statistics: openStatistics()
        case .toggleBinning: message = Message(text: "b counts numbers in ranges on a frequency sheet (F opens one)", isError: false)
        }
    }

    /// The help screen's keys: they scroll it; q, Esc and ? close it.
    private func scrollHelp(from top: Int, _ key: Key) {
        let page = max(1, canvas.size.rows - 3)
        switch key {
        case .escape, .character("q"), .character("?"):
            mode = .table
            redrawAll()
        case .down, .character("j"): mode = .help(top: top + 1)
        case .up, .character("k"): mode = .help(top: max(0, top - 1))
        case .pageDown, .character(" "): mode = .help(top: top + page)
        case .pageUp: mode = .help(top: max(0, top - page))
        case .home, .character("g"): mode = .help(top: 0)
        case .end, .character("G"): mode = .help(top: Int.max / 2)
        default: break
        }
    }

    /// The focused JSON pane's keys; false for keys it leaves to the table (q, ?, …).
    private func scrollPane(_ key: Key) -> Bool {
        let page = max(1, (lastLayout?.pane.count ?? 2) - 2)
        switch key {
        case .down, .character("j"): paneTop += 1
        case .up, .character("k"): paneTop = max(0, paneTop - 1)
        case .pageDown, .character(" "): paneTop += page
        case .pageUp: paneTop = max(0, paneTop - page)
        case .home, .character("g"): paneTop = 0
        case .end, .character("G"): paneTop = Int.max / 2
        case .escape, .character("V"), .tab: paneFocused = false
        default: return false
        }
        return true
    }

    func closePane() {
        paneOpen = false
        paneFocused = false
        paneShowsProblem = false
        paneTop = 0
    }

    /// Forgets what the screen shows, so the next render draws every line (after a resize or
    /// the help screen).
    func redrawAll() {
        screen.invalidate()
        table.invalidate()
        for frame in sheets { frame.table.invalidate() }
    }

    // MARK: Columns and sorting

    /// Moves the column cursor; the table keeps its column in view.
    private func moveColumnCursor(by delta: Int) {
        table.moveColumnSelection(by: delta)
    }

    private func ordering(for spec: ColumnSpec) -> Query.Ordering {
        switch spec {
        case .key: .key
        case .value: .value
        case .member(let path), .spark(let path): .child(path)
        case .computed(let column): .computed(column.childValue)
        }
    }

    private func sort(by spec: ColumnSpec) {
        var next = query
        next.sort(by: ordering(for: spec))
        guard replaceQuery(next) else { return }
        // The database orders all objects (and arrays) as equal: the order is then the keys'.
        let values = (rows.rows ?? []).lazy.compactMap { spec.node(in: $0.value) }.filter { !$0.isNull }
        if spec != .key, !values.isEmpty, values.allSatisfy(\.isContainer) {
            message = Message(text: "every \(spec.title) is an object, and objects sort as equal (the database's rule): by key within them",
                              isError: false)
        }
    }

    /// `/`: a prompt for a filter on the column under the cursor, which becomes the sort column
    /// (a filter is a range of the order: equalTo, or startAt/endAt for a prefix).
    private func startFilter() {
        let spec = cursorSpec
        // The prompt starts empty (typing replaces the filter); the one in force is named.
        let now = spec == query.sortSpec ? query.filter.map { " (now \($0.words(column: spec.title)))" } ?? "" : ""
        mode = .prompt(Prompt(purpose: .filter(spec: spec, ordering: ordering(for: spec)),
                              label: "filter \(spec.title)\(now): 42, text*, >= 10, < 5, 10..20 — exact and case-sensitive (/ finds any case); empty clears: ", text: ""))
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
        trail.append(Breadcrumb(path: location, query: query, columns: rows.columnSet, cursor: cursorSpec, selectedKey: key))
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
        if let refusal = clipboardRefusal(path) {
            message = Message(text: refusal, isError: true)
            return
        }
        environment.perform(.copyToClipboard(path))
        message = Message(text: "copied \(path)", isError: false)
    }
}
