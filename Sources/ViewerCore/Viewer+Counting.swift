// How many children the query selects, its pages aside, and `G` to the last of them.
import LiveQuery

extension Viewer {
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
