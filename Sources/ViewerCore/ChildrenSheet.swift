// The location's own table as a sheet: the children of one location bound to the store's
// query through a synced array, with the columns, paging, trail, counts and time machine.
import StoreInterface
import JSONTree
import LiveQuery
import SyncedArray
import TableUI

/// The bottom sheet of the viewer's stack: a live table of the children of one location
/// (`location`, moved by Enter and Backspace) under a query.
///
/// The synced array calls back on the viewer's thread — from `processPendingChanges()`, from a
/// query replacement or a page more, from the store's own writes — with one `BatchDiff` per
/// update, which becomes one batch for the table. When the display order flipped, or updates
/// were paused, the batch is computed from the rows on screen to the array's rows instead, so
/// rows still animate to their places.
///
/// Its keys are in the `ChildrenSheet+…` files; what it says goes to the viewer's message line
/// and prompts (`message`, `mode`).
final class ChildrenSheet: StackSheet, SyncedArrayBatchDelegate {
    typealias Message = Viewer.Message
    let options: ViewerOptions
    let store: any LiveStore
    let environment: ViewerEnvironment
    let table: TableView
    let rows: RowSource
    /// The viewer showing it (set once, at the viewer's start).
    weak var viewer: Viewer?

    /// The location shown, and how it is queried.
    var location: Path
    var query: ViewQuery
    /// The rows of `location` under `query`.
    var array: SyncedArray?
    /// Where Enter came from, for Backspace.
    var trail: [Breadcrumb] = []
    /// The rows on screen are the array's rows before its next update (its batches apply to them).
    var inSync = false
    /// The next update is the user's own (a new query, a page more): shown even while paused.
    /// Over a large location it arrives later, from the store's worker (see `ownUpdateRequested`).
    var applyNextUpdate = false
    /// A key to select when its row appears (after Enter, Backspace, `a`).
    var pendingSelection: String?
    var paused = false
    /// Updates held back while paused.
    var waiting = 0
    /// The revision whose rows the table shows (behind the latest while paused).
    var shownRevision: Int?
    var childCount: (revision: Int, path: Path, count: Int)?
    /// The children the query's range selects, per revision and query (`selectedChildCount`).
    var selectedCount: (revision: Int, query: Query, count: Int)?
    /// The selected children without a value for the sort column (`valuelessChildCount`).
    var valuelessCount: (revision: Int, query: Query, count: Int)?
    /// `G` asked for every page to the end: the last row is selected when they arrive.
    var selectLastWhenLoaded = false
    /// The log's restarts (`LinesStatus.restarts`) as of the rows last shown.
    var shownRestarts = 0
    /// The past revision shown (the time machine), or nil for the present.
    var travel: HistoryCursor?
    /// `/` search: the pattern, its matches, a search running on another thread.
    var search = SearchState()
    /// The `w` expressions typed, oldest first, for ↑ and ↓ at its prompt.
    var conditionHistory: [String] = []
    /// The `=` definitions typed, oldest first, for ↑ and ↓ at its prompt.
    var computedHistory: [String] = []

    /// A location left with Enter.
    struct Breadcrumb {
        var path: Path
        var query: ViewQuery
        var columns: ColumnSet
        var cursor: ColumnSpec
        var selectedKey: String
    }

    init(options: ViewerOptions, store: any LiveStore, environment: ViewerEnvironment) {
        self.options = options
        self.store = store
        self.environment = environment
        location = options.location
        query = options.query
        shownRestarts = store.status.lines?.restarts ?? 0
        rows = RowSource(unicode: environment.unicode)
        var settings = TableSettings(theme: options.styles.applied(to: environment.theme, colors: environment.colors))
        settings.animationsEnabled = options.animations
        table = TableView(dataSource: rows, settings: settings)
        table.selectColumn(0)
        var columns = options.columns.map { ColumnSet(fixed: $0) } ?? ColumnSet(inferredFrom: [])
        columns.addComputed(options.computedColumns)
        columns.hide(options.hiddenColumns.map { $0.isRoot ? .value : .member($0) })
        for path in options.sparkColumns { columns.toggleSpark(path) }
        rows.setColumns(columns)
        rows.trend = { [unowned self] key, value, path in trendText(key: key, value: value, path: path) }
        // The key column stays on screen while the others scroll.
        table.settings.frozenColumns = 1
    }

    // MARK: - The viewer's screen, which the sheet speaks through

    private var host: Viewer { viewer! }
    var message: Message? {
        get { host.message }
        set { host.message = newValue }
    }
    var mode: Viewer.Mode {
        get { host.mode }
        set { host.mode = newValue }
    }
    var canvas: Canvas { host.canvas }
    var storeStatus: StoreStatus { host.storeStatus }
    var lastRevision: (number: Int, time: String)? { host.lastRevision }
    /// Writes go through the viewer, which keeps them for `u`.
    func mayWrite(_ what: String, changes: Bool = true) -> Bool { host.mayWrite(what, changes: changes) }
    func recordedWrite(_ writes: [JSONWrite], at path: Path, ifStill expected: JSON?? = nil,
                       describe: @escaping (JSON?, JSON?) -> String) {
        host.recordedWrite(writes, at: path, ifStill: expected, describe: describe)
    }
    func keyLabel(of action: ViewerAction) -> String? { host.keyLabel(of: action) }

    // MARK: - As a sheet on the stack

    var title: String { location.description }
    var tableView: TableView? { table }

    /// Subscribes (the store answers with its current rows when it has a revision).
    func start() { start(cache: nil) }

    func start(cache: FirstPageCache?) { subscribe(cache: cache) }

    func stop() {
        array?.stopSync()
        array = nil
    }

    func render(into canvas: Canvas, lines: Range<Int>) {
        let empty = emptyText
        if table.settings.emptyText != empty { table.settings.emptyText = empty }
        table.render(into: canvas, lines: lines)
    }

    func tick(now: Double) {
        // In the past the marks are held.
        if !inHistory { table.tick(now: now) }
    }

    var keyHint: [(ViewerAction, String)]? { nil }

    var selectedRow: SelectedRow? {
        guard let row = table.state.selection, let shown = rows.row(row) else { return nil }
        return SelectedRow(key: shown.key, value: shown.value, path: location.child(shown.key))
    }

    /// The selected row's key and value.
    var selectedChild: (key: String, value: JSONNode)? { selectedRow.map { ($0.key, $0.value) } }

    /// What the table says when it has no rows.
    var emptyText: String {
        if store.currentRevision == nil {
            switch storeStatus.problem {
            case .missing?: return "\(options.file) does not exist yet: waiting for it"
            case .invalidJSON?: return "\(options.file) is not valid JSON yet: waiting for a valid save"
            case .unreadable?: return "\(options.file) cannot be read: waiting"
            case .runFailed(let what)?: return sanitize(what) + ": running it again"
            case .warning(let what)?: return sanitize(what)
            case nil: return storeStatus.connection.flatMap(\.problemText) ?? store.loadingMessage
            }
        }
        if rows.rows == nil { return "reading…" }
        if query.filter != nil { return "no children match the filter (Esc clears it)" }
        return "no children at \(location)"
    }

    // MARK: - The binding

    /// A new synced array for the current location and query (replacing the previous one).
    /// The store answers at once with the current rows when it has a revision.
    func subscribe(cache: FirstPageCache? = nil) {
        array?.stopSync()
        array = nil
        inSync = false
        rows.setSort(query.sortSpec, descending: query.displayReversed)
        let built: Query
        do {
            built = try query.makeQuery()
        } catch {
            message = Message(text: "bad query: \(error)", isError: true)
            return
        }
        let synced = SyncedArray(store.reference(location).withQuery(built), paging: query.paging, cache: cache)
        synced.batchDelegate = self
        synced.history = makeHistory()
        synced.onCacheWarning = { [unowned self] warning in
            switch warning {
            case .missing, .stale, .unavailable: break  // a first run, a changed file: expected
            default: message = Message(text: warning.description, isError: true)
            }
        }
        array = synced
        ownUpdateRequested(synced) { synced.startSync() }
    }

    /// Runs `request` (a new query, a page more) so that the update it causes is shown even
    /// while paused: during the call, or — when the rows are evaluated on the store's worker —
    /// when they arrive.
    func ownUpdateRequested(_ array: SyncedArray, _ request: () -> Void) {
        applyNextUpdate = true
        request()
        applyNextUpdate = array.isAwaitingRows
    }

    /// Replaces the query if it is valid (else says why and keeps the old one); the rows
    /// animate to their places as one batch.
    @discardableResult
    func replaceQuery(_ new: ViewQuery) -> Bool {
        needEveryRecord()
        let built: Query
        do {
            built = try new.makeQuery()
        } catch {
            message = Message(text: "\(error)", isError: true)
            return false
        }
        query = new
        rows.setSort(query.sortSpec, descending: query.displayReversed)
        guard let array else {
            subscribe()
            return true
        }
        ownUpdateRequested(array) { array.replaceQuery(built, paging: query.paging) }
        if rows.rows != nil, rows.reversed != query.displayReversed, !array.isAwaitingRows {
            // Only the display order flipped (the same rows), so the array reported nothing.
            show(Array(array.rows), incremental: nil)
            inSync = true
            waiting = 0
        }
        return true
    }

    /// An update of the synced array.
    public func syncedArray(_ array: SyncedArray, didApply batch: BatchDiff) {
        guard array === self.array else { return }
        if let travel {
            // In the past: the present is recorded, and counted in the badge, until the user returns.
            inSync = false
            if !travel.isValid {
                returnToPresent()
            } else if travel.isBehind {
                showOldestKept()
            }
            return
        }
        if paused && !applyNextUpdate && rows.rows != nil {
            waiting += 1
            inSync = false
            return
        }
        show(Array(array.rows), incremental: inSync ? batch : nil)
        inSync = true
        waiting = 0
        applyNextUpdate = false
    }

    /// Puts `newRows` on screen: a reload when nothing was shown (a new location), else one
    /// batch from the rows shown — the array's own batch when it starts from them and the display
    /// order did not flip, otherwise a batch computed between the two lists by key.
    func show(_ newRows: [SyncedRow], incremental: BatchDiff?) {
        shownRevision = store.currentRevision?.number
        let reversed = query.displayReversed
        guard let old = rows.rows else {
            rows.setRows(newRows, reversed: reversed)
            var columns = rows.columnSet.reinferred(from: newRows)
            columns.recomputeNumeric(newRows)
            setColumns(columns, cursorOn: nil)
            table.reloadData()
            warnOfUnknownColumns(newRows)
            warnOfUnknownOrder(newRows)
            if let key = pendingSelection, let row = rows.tableRow(ofKey: key) {
                table.select(row: row)
                pendingSelection = nil
            } else if query.tail {
                table.selectLast()  // a log opens at its newest line, following it
            } else {
                table.selectFirst()
            }
            return
        }
        let follow = isFollowing
        let selectedKey = selectedChild?.key
        var batch: TableBatch
        let touched: [Int]
        // Rows that left because they moved further down the order close as moves.
        let movedOut = incremental.map { rowsMovedOut($0.deletes.map { (index: $0, row: old[$0]) }) } ?? []
        if let incremental, rows.reversed == reversed {
            batch = TableBatch(incremental, reversed: reversed)
            touched = incremental.inserts + incremental.reloads.map(\.to)
        } else {
            batch = keyedBatch(from: old, reversed: rows.reversed, to: newRows, reversed: reversed)
            let n = newRows.count
            touched = (batch.inserts + batch.reloads.map(\.new)).map { reversed ? n - 1 - $0 : $0 }
        }
        for move in movedOut { batch.departures[rows.reversed ? old.count - 1 - move.index : move.index] = move.words }
        rows.setRows(newRows, reversed: reversed)
        if logStartedOver() {
            // A new file: the old one's columns would stay, and its own be added after them.
            setColumns(rows.columnSet.forNewFile(newRows), cursorOn: nil)
        } else {
            rows.extendColumns(at: touched)
        }
        do {
            try table.performBatchUpdates(batch, now: environment.clock.now())
        } catch {
            message = Message(text: "table reloaded: \(error)", isError: true)
        }
        if let key = pendingSelection, let row = rows.tableRow(ofKey: key) {
            table.select(row: row)
            pendingSelection = nil
        } else if follow {
            table.selectLast()
        } else if selectLastWhenLoaded, array?.hasMore == false {
            selectLastWhenLoaded = false
            table.selectLast()
        }
        if !movedOut.isEmpty { followRowsMovedOut(movedOut, selected: selectedKey) }
    }

    /// Says which columns given by name no shown child has (a typo in `--columns` shows as an
    /// empty column, so it is named in the message line).
    private func warnOfUnknownColumns(_ shown: [SyncedRow]) {
        guard rows.columnSet.isFixed, !shown.isEmpty else { return }
        let unknown = rows.columnSet.specs.filter { spec in
            if case .computed = spec { return false }
            return spec != .key && !shown.contains { spec.node(in: $0.value) != nil }
        }
        guard !unknown.isEmpty else { return }
        let names = unknown.map { JSON.string($0.title).serializedString() }.joined(separator: ", ")
        message = Message(text: "no child here has \(names) (--columns)", isError: true)
    }

    /// Says when no shown child has the path the rows are ordered by (`--order-by-child vists`
    /// orders every child as missing), naming the paths they have.
    private func warnOfUnknownOrder(_ shown: [SyncedRow]) {
        guard case .child(let path)? = query.ordering, !shown.isEmpty, !shown.contains(where: { $0.value.node(at: path) != nil })
        else { return }
        let names = rows.columnSet.specs.filter { $0 != .key }.map(\.title).joined(separator: ", ")
        message = Message(text: "no child here has \(JSON.string(path.keys.joined(separator: "/")).serializedString()), the order's child: "
                              + "all are ordered as missing, by key (the children have \(names))", isError: true)
    }

    /// The column under the cursor (the table owns the cursor).
    var cursorSpec: ColumnSpec {
        let specs = rows.columnSet.specs
        return specs[min(table.state.selectedColumn ?? 0, specs.count - 1)]
    }

    /// Replaces the columns; the cursor goes to `spec` (by default the column it is on) if it
    /// is there, else stays at its index (clamped).
    func setColumns(_ set: ColumnSet, cursorOn spec: ColumnSpec?) {
        let spec = spec ?? cursorSpec
        let index = table.state.selectedColumn ?? 0
        rows.setColumns(set)
        table.selectColumn(set.specs.firstIndex(of: spec) ?? index)
    }

    /// The batch between two lists of rows shown in the given orders, rows matched by key
    /// (code units); a kept row whose value differs is reloaded.
    /// - Complexity: O(n log n) in the rows of both.
    private func keyedBatch(from old: [SyncedRow], reversed oldReversed: Bool, to new: [SyncedRow],
                            reversed newReversed: Bool) -> TableBatch {
        var oldValues: [JSONKey: JSONNode] = [:]
        for row in old { oldValues[row.jsonKey] = row.value }
        var newValues: [JSONKey: JSONNode] = [:]
        for row in new { newValues[row.jsonKey] = row.value }
        return TableBatch(from: rows.tableKeys(old, reversed: oldReversed), to: rows.tableKeys(new, reversed: newReversed)) { key in
            guard let a = oldValues[key], let b = newValues[key] else { return false }
            return !(a.hasSameBytes(as: b) || a.valueEquals(b))
        }
    }

    /// Shows the location `location` afresh (after Enter or Backspace): no rows until the
    /// store answers, then a reload, selecting `key` if it is there.
    func enterLocation(columns: ColumnSet, cursor: ColumnSpec?, selecting key: String?) {
        rows.setRows(nil, reversed: query.displayReversed)
        setColumns(columns, cursorOn: cursor)
        table.reloadData()
        waiting = 0
        pendingSelection = key
        subscribe()
    }

    /// Applies what waited while paused, as one batch.
    func resume() {
        paused = false
        waiting = 0
        guard !inSync, let array else { return }
        show(Array(array.rows), incremental: nil)
        inSync = true
    }

    /// Asks for the next page when the selection is within a screenful of the end of a paged
    /// array that has more.
    func loadMoreIfNeeded() {
        // Not while a page (or query) asked for is still being evaluated: its rows are not here yet.
        guard !inHistory, let array, array.hasMore, !array.isAwaitingRows, let selection = table.state.selection,
            nearOlderEnd(selection)
        else { return }
        needEveryRecord()
        query.loadMore()
        ownUpdateRequested(array) { array.loadMore() }
    }

    /// Asks the store for the records it left unread (a large log's older lines), which
    /// anything but watching the newest rows may need: an older page, another order or filter,
    /// a search. They arrive as a revision with the same keys, so nothing on screen moves.
    func needEveryRecord() {
        store.readEveryRecord()
    }

    // MARK: - Facts for the status bar

    /// The number of children at the location in the current revision (cached per revision).
    var currentChildCount: Int? {
        guard let revision = store.currentRevision else { return nil }
        if let c = childCount, c.revision == revision.number, c.path == location { return c.count }
        // The window of that revision counted them already, off the loop thread (a million
        // members take tens of milliseconds to count again).
        let n: Int
        if let window = array?.window, window.document === revision.document, window.path == location {
            n = window.childCount
        } else {
            n = revision.root.node(at: location).map(childCount(of:)) ?? 0
        }
        childCount = (revision.number, location, n)
        return n
    }
}
