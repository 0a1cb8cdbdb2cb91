// How many children the query selects, its pages aside, and `G` to the last of them.
import LiveQuery

extension ChildrenSheet {
    /// How many children the query's range (a filter, the flags' bounds) selects, whatever its
    /// limit or pages; nil when nothing narrows it. Counted once per revision and query (a pass
    /// over the children when only some of them are loaded).
    var selectedChildCount: Int? {
        guard query.filter != nil || !query.conditions.isEmpty || query.start != nil || query.end != nil, let window = array?.window
        else { return nil }
        guard let revision = store.currentRevision, window.document === revision.document else { return selectedCount?.count }
        if let c = selectedCount, c.revision == revision.number, c.query == window.query { return c.count }
        let n = window.selectedCount()
        selectedCount = (revision.number, window.query, n)
        return n
    }

    /// With rows without a value for the sort column shown after the others (`s`), how many
    /// there are among the selected children; nil otherwise. Counted once per revision and query.
    var valuelessChildCount: Int? {
        guard query.valuesFirst, let window = array?.window, let revision = store.currentRevision,
              window.document === revision.document
        else { return nil }
        switch window.query.ordering {
        case .child, .value, .computed: break
        case .key, .priority: return nil
        }
        if let c = valuelessCount, c.revision == revision.number, c.query == window.query { return c.count }
        let n = window.valuelessCount()
        valuelessCount = (revision.number, window.query, n)
        return n
    }

    /// `G`: the last row the query selects, loading every page up to it (the last row shown
    /// when the rows are not paged, or a log's newest line).
    func selectLastChild() {
        table.selectLast()
        guard !query.tail, let array, array.hasMore, let window = array.window else { return }
        needEveryRecord()
        let total = selectedChildCount ?? currentChildCount ?? window.selectedCount()
        guard let pages = query.showRows(total) else { return }
        selectLastWhenLoaded = true
        ownUpdateRequested(array) { array.showPages(pages) }
    }
}

extension ChildrenSheet {
    /// The status bar's account of the rows: `20 rows of 45`, `3 of 12 matching rows of 45`,
    /// `5 rows of 900 lines`; a large log's counts while it is read are floors (`≥`), said as such.
    var status: SheetStatus {
        let shown = rows.numberOfRows
        let noun = shown == 1 ? "row" : "rows"
        var count = "\(shown) \(noun)"
        // The revision holds only a large log's newest lines while the whole file is read:
        // its counts are floors, said as such, never as the total.
        let partial = storeStatus.lines?.isPartial == true
        let floor = partial ? "≥ " : ""
        if let lines = storeStatus.lines, lines.olderUnread {
            // Only the newest lines were read: how many lines there are, not how many children.
            count += " of \(lines.records) lines"
        } else if let matched = selectedChildCount {
            // A filter or bounds: how many children they select, then how many there are.
            let total = currentChildCount.map { $0 != matched || partial ? " of \(floor)\($0)" : "" } ?? ""
            count = matched != shown || partial ? "\(shown) of \(floor)\(matched) matching \(noun)\(total)"
                : "\(shown) matching \(noun)\(total)"
        } else if query.limitCount != nil || partial, let total = currentChildCount, total != shown || partial {
            count += " of \(floor)\(total)"
        }
        if partial { count += " · counting lines…" }
        var words = query.words, shortWords = query.shortWords
        if let n = valuelessChildCount, n > 0 {
            // Rows without a value are after the others (`s`): how many, so none is thought lost.
            let without = "\(n) without a value last"
            words += ", " + without
            shortWords += ", " + without
        }
        return SheetStatus(count: count, words: words, shortWords: shortWords, reach: historyReach)
    }
}
