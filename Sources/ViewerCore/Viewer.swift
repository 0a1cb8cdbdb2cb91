// The viewer: a live table of one location of a JSON file, bound to the store's query.
import StoreInterface
import JSONTree
import LiveQuery
import SyncedArray
import TableUI

/// What to show (from the command line, or a program's own choice).
public struct ViewerOptions {
    /// The file, as given (shown in the status bar); "-" for standard input.
    public var file: String
    /// How the file is read (JSON Lines: a log, followed at its end).
    public var format: SourceFormat
    /// The location whose children are the rows.
    public var location: Path
    public var query: ViewQuery
    /// The columns after the key, for the starting location; nil: inferred.
    public var columns: [Path]?
    /// Rows per page (0: no paging), also for locations opened with Enter.
    public var pageSize: Int
    public var animations: Bool
    /// Where the starting location's first page is kept between runs (nil: no cache).
    public var cache: FirstPageCache?
    /// The keys: dispatch and the help screen both read this table.
    public var keyBindings: [KeyBinding]
    /// Columns not to show (`--columns -name`), for the starting location.
    public var hiddenColumns: [Path] = []
    /// Keys may write to the file (`--edit`). Off by default: a viewer is a guest of the program
    /// that owns the file, and a single key must not change it unasked. A file the user cannot
    /// write stays read-only even with it.
    public var edit = false
    /// The opposite of `edit`, as programs written when writing was the default set it.
    @available(*, deprecated, message: "a viewer is read-only unless `edit` is set: set edit = true to allow writes")
    public var readOnly: Bool {
        get { !edit }
        set { edit = !newValue }
    }
    /// Styles from the configuration, over the terminal's standard theme.
    public var styles = ThemeStyles()
    /// Trend columns (`--spark score`): each row's recent values of these paths as sparklines.
    public var sparkColumns: [Path] = []
    /// Computed columns (`--computed 'ratio = .score / .level'`), after the others, for the starting location.
    public var computedColumns: [ComputedColumn] = []
    /// How many revisions of the rows the time machine keeps (`--history N`), and in how many bytes.
    public var history = HistoryLimits()

    public init(file: String, format: SourceFormat = .json, location: Path = .root, query: ViewQuery? = nil,
                columns: [Path]? = nil, pageSize: Int = 200, animations: Bool = true,
                cache: FirstPageCache? = nil, keyBindings: [KeyBinding] = standardKeyBindings) {
        self.file = file
        self.format = format
        self.location = location
        self.query = query ?? ViewQuery(flags: Query(), pageSize: pageSize)
        self.columns = columns
        self.pageSize = pageSize
        self.animations = animations
        self.cache = cache
        self.keyBindings = keyBindings
    }
}

/// The viewer's state and its binding of a synced array to the table.
///
/// It draws into any `Canvas` and is driven from outside: `handle(_:)` for each key, `tick()`
/// when the clock moves (animation frames, the next page), and the store's loop for revisions.
/// The program's run loop, or a test, owns the thread.
///
/// One thread (the caller's) owns everything here: the canvas, the table, the store (whose
/// loop the caller drives) and the synced array of the location shown. The array calls back on
/// this thread — from `processPendingChanges()`, from a query replacement or a page more, from
/// the store's own writes — with one `BatchDiff` per update, which becomes one batch for the
/// table. When the display order flipped, or updates were paused, the batch is computed from
/// the rows on screen to the array's rows instead, so rows still animate to their places.
public final class Viewer: SyncedArrayBatchDelegate {
    let options: ViewerOptions
    let store: any LiveStore
    let canvas: Canvas
    let environment: ViewerEnvironment
    public let table: TableView
    let rows: RowSource

    /// The location shown, and how it is queried.
    var location: Path
    var query: ViewQuery
    /// The rows of `location` under `query`.
    var array: SyncedArray?
    /// Where Enter came from, for Backspace.
    var trail: [Breadcrumb] = []
    /// Derived sheets shown above the location's table (Shift-F, Shift-I), bottom first.
    var sheets: [SheetFrame] = []

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

    var storeStatus: StoreStatus
    /// The viewer's status and revision observers on the store.
    var storeObservers: [ObserverHandle] = []
    /// The latest revision's number and wall-clock time.
    var lastRevision: (number: Int, time: String)?
    /// The revision whose rows the table shows (behind `lastRevision` while paused).
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
    var mode: Mode = .table
    var paneOpen = false
    /// The pane shows the store's or the connection's problem in full (`m`), not the JSON.
    var paneShowsProblem = false
    /// The JSON pane has the keys (j/k/PgDn/PgUp scroll it); the table waits.
    var paneFocused = false
    /// The pane's first line shown (its scroll), for the child at `paneChild`.
    var paneTop = 0
    var paneChild: Path?
    var message: Message?
    /// `/` search: the pattern, its matches, a search running on another thread.
    var search = SearchState()
    /// The `w` expressions typed, oldest first, for ↑ and ↓ at its prompt.
    var conditionHistory: [String] = []
    /// The `=` definitions typed, oldest first, for ↑ and ↓ at its prompt.
    var computedHistory: [String] = []
    /// Why no key writes; nil: keys write.
    var readOnlyReason: ReadOnlyReason?
    /// The viewer's own writes, latest last, for `u`.
    var undoSteps: [UndoStep] = []
    /// Steps `u` undid, latest last, for `U` (a new write forgets them).
    var redoSteps: [UndoStep] = []
    /// False once the user quit (`q`).
    public internal(set) var isRunning = true
    var screen = ScreenLines()
    var lastLayout: Layout?
    /// The past revision shown (the time machine), or nil for the present.
    var travel: HistoryCursor?

    enum Mode {
        case table
        /// The help screen, scrolled to its line `top`.
        case help(top: Int)
        case prompt(Prompt)
        case confirm(Confirmation)
    }

    struct Message {
        var text: String
        var isError: Bool
    }

    /// A location left with Enter.
    struct Breadcrumb {
        var path: Path
        var query: ViewQuery
        var columns: ColumnSet
        var cursor: ColumnSpec
        var selectedKey: String
    }

    /// A viewer of `store` drawing into `canvas`; it subscribes at once (the store answers with
    /// its current rows when it has a revision).
    public init(options: ViewerOptions, store: any LiveStore, canvas: Canvas, environment: ViewerEnvironment = ViewerEnvironment()) {
        self.options = options
        self.store = store
        self.canvas = canvas
        self.environment = environment
        location = options.location
        query = options.query
        storeStatus = store.status
        shownRestarts = store.status.lines?.restarts ?? 0
        readOnlyReason = Viewer.readOnlyReason(options: options)
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
        storeObservers = [
            store.observeStatus { [unowned self] status in storeStatus = status },
            store.observeRevisions { [unowned self] revision in
                let time = self.environment.clock.timeOfDay()
                lastRevision = (revision.number, time)
                noteUndoChanges(revision, time: time)
            },
        ]
        subscribe(cache: options.cache)
    }

    /// The revisions of the rows kept for the time machine (`[`, `]`), nil before the first rows.
    public var history: RevisionHistory? { array?.history }

    /// The next moment an animation frame is due (the caller's wait ends then); nil: none.
    public var nextDeadline: Double? {
        // In the past the marks are held: no frame is due.
        [inHistory ? nil : activeTable.nextDeadline, searchDeadline].compactMap { $0 }.min()
    }

    /// The clock moved: animations advance, and the next page loads when the selection is near
    /// the end of the rows.
    public func tick() {
        if !inHistory { table.tick(now: environment.clock.now()) }
        if activeTable !== table { activeTable.tick(now: environment.clock.now()) }
        collectSearch()
        loadMoreIfNeeded()
    }

    /// Stops listening (the store may outlive the viewer).
    public func stop() {
        while !sheets.isEmpty { popSheet() }
        array?.stopSync()
        array = nil
        for handle in storeObservers { store.removeObserver(handle) }
        storeObservers = []
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

    /// The selected row's key and value.
    var selectedChild: (key: String, value: JSONNode)? {
        if !sheets.isEmpty {
            return selectedSheetRow.flatMap { row in
                (try? JSONDocument(parsing: row.value.serialized())).map { (row.key, $0.root) }
            }
        }
        guard let row = table.state.selection, let shown = rows.row(row) else { return nil }
        return (shown.key, shown.value)
    }
}

/// The children of a location as the database counts them: members and elements that are not
/// null, without metadata members (`.priority`).
/// - Complexity: O(members or elements).
func childCount(of node: JSONNode) -> Int {
    switch node.kind {
    case .object:
        node.members.reduce(0) { n, member in
            n + (member.value.isNull || member.key.stringValue?.hasPrefix(".") != false ? 0 : 1)
        }
    case .array: node.elements.reduce(0) { n, element in n + (element.isNull ? 0 : 1) }
    default: 0
    }
}
