// The location's table's own keys (the viewer handles those every sheet shares).
import JSONTree
import LiveQuery
import TableUI

extension ChildrenSheet {
    /// A key that is not shared among sheets; false when it means nothing here.
    func perform(_ action: ViewerAction) -> Bool {
        if action.changesQuery, let refusal = historyRefusal(action.name) {
            message = Message(text: refusal, isError: true)
            return true
        }
        if let opener = registeredSheets.first(where: { $0.opening == action }) {
            open(opener)
            return true
        }
        if let hint = registeredSheets.lazy.compactMap({ $0.hint(onTable: action) }).first {
            message = Message(text: hint, isError: false)
            return true
        }
        return performColumnKey(action) || performRowKey(action) || performHistoryKey(action)
    }

    /// Opens a registered sheet over this table.
    private func open(_ opener: any SheetOpener.Type) {
        switch opener.open(from: self) {
        case .table(let sheet): viewer?.push(sheet)
        case .drawn(let sheet): viewer?.push(shown: sheet)
        case .message(let text): message = Message(text: text, isError: false)
        case .said: break
        }
    }

    /// The keys of the columns, the query and the location.
    private func performColumnKey(_ action: ViewerAction) -> Bool {
        switch action {
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
        case .numberFormat: startNumberFormat()
        case .expandColumn: expandColumn()
        case .collapseColumn: collapseColumn()
        case .sparkColumn: toggleSparkColumn()
        case .rateColumn: addRateColumn()
        case .clearFilter: clearLastFilter()
        default: return false
        }
        return true
    }

    /// The keys of the rows: the last, pausing, the problem pane, copying and writing.
    private func performRowKey(_ action: ViewerAction) -> Bool {
        guard let viewer else { return false }
        switch action {
        case .last: selectLastChild()
        case .pause:
            if paused { resume() } else { paused = true }
        case .showProblem:
            if viewer.paneOpen && viewer.paneShowsProblem {
                viewer.closePane()
            } else {
                (viewer.paneOpen, viewer.paneShowsProblem, viewer.paneFocused) = (true, true, false)
            }
        case .copyPath: copySelectedPath()
        case .copyValue: copySelectedValue()
        case .edit: startEdit()
        case .increment: increment(by: 1)
        case .decrement: increment(by: -1)
        case .delete: askToDelete()
        case .add: startAdd()
        case .undo: viewer.undo()
        case .redo: viewer.redo()
        default: return false
        }
        return true
    }

    /// The time machine's keys.
    private func performHistoryKey(_ action: ViewerAction) -> Bool {
        switch action {
        case .historyBack: stepHistory(back: true)
        case .historyForward: stepHistory(back: false)
        case .historyPresent: returnToPresent()
        case .rowChangePrevious: jumpToRowChange(previous: true)
        case .rowChangeNext: jumpToRowChange(previous: false)
        default: return false
        }
        return true
    }

    /// Esc: the past first, then the last `w` filter, the `f` filter, the search, the pane.
    private func clearLastFilter() {
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
        } else if viewer?.paneOpen == true {
            viewer?.closePane()
        }
    }

    // MARK: Columns and sorting

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
