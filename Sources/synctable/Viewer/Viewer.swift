// The viewer: a live table of one location of a JSON file, bound to the store's query.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import TableUI

/// What to show, from the command line.
struct ViewerOptions {
    /// The file, as given (shown in the status bar).
    var file: String
    /// The location whose children are the rows.
    var location: Path
    var query: ViewQuery
    /// --columns, for the starting location; nil: inferred.
    var columns: [Path]?
    /// Rows per page (0: no paging), also for locations opened with Enter.
    var pageSize: Int
    var animations = true
}

/// The viewer's state and its binding of the store to the table.
///
/// One thread (the caller's) owns everything here: the terminal, the table and the store,
/// whose loop it drives (`run`). The store calls back on this thread from
/// `processPendingChanges()` or from its own writes; every revision that changes the window
/// becomes one batch for the table — or, when the query was replaced or updates were paused,
/// one batch from the window on screen to the new one, so rows animate to their places.
final class Viewer {
    let options: ViewerOptions
    let store: FileStore
    let terminal: Terminal
    let signals: SignalWatch
    let table: TableView
    let rows: RowSource

    /// The location shown, and how it is queried.
    var location: Path
    var query: ViewQuery
    var reference: StoreReference?
    /// Where Enter came from, for Backspace.
    var trail: [Breadcrumb] = []

    /// The newest window the store delivered (ahead of the screen while paused).
    var latest: Window?
    /// The window on screen is the one the store delivered last (its batches apply to it).
    var inSync = false
    /// The next delivery is the first for a new query: shown even while paused.
    var awaitingFirst = true
    /// A key to select when its row appears (after Enter, Backspace, `a`).
    var pendingSelection: String?
    var paused = false
    /// Window changes held back while paused.
    var waiting = 0
    /// The window size when the last page was asked for (so a short last page is not asked again).
    var requestedMoreAt: Int?

    var storeStatus: StoreStatus
    /// The latest revision's number and wall-clock time.
    var lastRevision: (number: Int, time: String)?
    var childCount: (revision: Int, path: Path, count: Int)?

    var mode: Mode = .table
    var paneOpen = false
    var message: Message?
    var running = true
    var exitStatus: Int32 = 0
    var screen = ScreenLines()
    var lastLayout: Layout?

    enum Mode {
        case table
        case help
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

    init(options: ViewerOptions, store: FileStore, terminal: Terminal, signals: SignalWatch) {
        self.options = options
        self.store = store
        self.terminal = terminal
        self.signals = signals
        location = options.location
        query = options.query
        storeStatus = store.status
        rows = RowSource(unicode: terminal.isUTF8)
        var settings = TableSettings(theme: terminal.theme)
        settings.animationsEnabled = options.animations
        table = TableView(dataSource: rows, settings: settings)
        if let columns = options.columns { rows.setColumns(ColumnSet(fixed: columns)) }
        store.observeStatus { [unowned self] status in storeStatus = status }
        store.observeRevisions { [unowned self] revision in
            lastRevision = (revision.number, wallClockTime())
        }
        subscribe()
    }

    /// Stops listening (the store may outlive the viewer).
    func stop() {
        reference?.removeAllObservers()
        reference = nil
    }

    // MARK: - The binding

    /// Listens to the current query at the current location (replacing the previous listener).
    /// The store answers at once with the current window when it has a revision.
    func subscribe() {
        reference?.removeAllObservers()
        reference = nil
        awaitingFirst = true
        inSync = false
        rows.setSort(query.sortSpec, descending: query.fromEnd)
        let built: Query
        do {
            built = try query.makeQuery()
        } catch {
            message = Message(text: "bad query: \(error)", isError: true)
            return
        }
        let ref = store.reference(location).withQuery(built)
        reference = ref
        ref.observeChanges { [unowned self] change in received(change) }
    }

    /// Replaces the query if it is valid (else says why and keeps the old one).
    @discardableResult
    func replaceQuery(_ new: ViewQuery) -> Bool {
        do {
            _ = try new.makeQuery()
        } catch {
            message = Message(text: "\(error)", isError: true)
            return false
        }
        query = new
        requestedMoreAt = nil
        subscribe()
        return true
    }

    /// A window change from the store.
    private func received(_ change: WindowChange) {
        latest = change.new
        if paused && !awaitingFirst {
            waiting += 1
            inSync = false
            return
        }
        let incremental = inSync && change.old != nil ? change.batch : nil
        awaitingFirst = false
        show(change.new, incremental: incremental)
        inSync = true
    }

    /// Puts `window` on screen: a reload when nothing was shown (a new location), else one batch
    /// from the window shown — the store's own batch when it starts from the window shown and the
    /// display order did not flip, otherwise a batch computed between the two windows by key.
    func show(_ window: Window, incremental: BatchDiff?) {
        let reversed = query.fromEnd
        guard let old = rows.window else {
            rows.setWindow(window, reversed: reversed)
            var columns = rows.columnSet.isFixed ? rows.columnSet : ColumnSet(inferredFrom: window)
            columns.recomputeNumeric(window)
            rows.setColumns(columns)
            table.reloadData()
            if let key = pendingSelection, let row = rows.row(ofKey: key) {
                table.select(row: row)
                pendingSelection = nil
            } else {
                table.selectFirst()
            }
            return
        }
        let batch: TableBatch
        let touched: [Int]
        if let incremental, rows.reversed == reversed {
            batch = TableBatch(incremental, reversed: reversed)
            touched = incremental.inserts + incremental.reloads.map(\.to)
        } else {
            batch = tableBatch(from: old, reversed: rows.reversed, to: window, reversed: reversed)
            let n = window.count
            touched = (batch.inserts + batch.reloads.map(\.new)).map { reversed ? n - 1 - $0 : $0 }
        }
        rows.setWindow(window, reversed: reversed)
        rows.extendColumns(rows: touched)
        do {
            try table.performBatchUpdates(batch, now: TableClock.now())
        } catch {
            message = Message(text: "table reloaded: \(error)", isError: true)
        }
        if let key = pendingSelection, let row = rows.row(ofKey: key) {
            table.select(row: row)
            pendingSelection = nil
        }
    }

    /// The batch between two windows shown in the given orders, rows matched by key bytes.
    /// - Complexity: O(n log n) in the rows of both.
    private func tableBatch(from old: Window, reversed oldReversed: Bool, to new: Window, reversed newReversed: Bool) -> TableBatch {
        let oldKeys = rows.keyBytes(of: old, reversed: oldReversed)
        let newKeys = rows.keyBytes(of: new, reversed: newReversed)
        var oldValues: [[UInt8]: JSONNode] = [:]
        for (row, key) in oldKeys.enumerated() {
            oldValues[key] = old.value(at: oldReversed ? old.count - 1 - row : row)
        }
        var newValues: [[UInt8]: JSONNode] = [:]
        for (row, key) in newKeys.enumerated() {
            newValues[key] = new.value(at: newReversed ? new.count - 1 - row : row)
        }
        return TableBatch(from: oldKeys, to: newKeys) { key in
            guard let a = oldValues[key], let b = newValues[key] else { return false }
            return !(a.hasSameBytes(as: b) || a.valueEquals(b))
        }
    }

    /// Shows the location `location` afresh (after Enter or Backspace): no rows until the
    /// store answers, then a reload, selecting `key` if it is there.
    func enterLocation(columns: ColumnSet, cursor: ColumnSpec?, selecting key: String?) {
        rows.setWindow(nil, reversed: query.fromEnd)
        rows.setColumns(columns, cursorOn: cursor)
        table.reloadData()
        latest = nil
        waiting = 0
        requestedMoreAt = nil
        pendingSelection = key
        subscribe()
    }

    /// Applies what waited while paused, as one batch.
    func resume() {
        paused = false
        waiting = 0
        guard !inSync, let latest else { return }
        show(latest, incremental: nil)
        inSync = true
    }

    /// Asks for the next page when the selection is within a screenful of the end of a full,
    /// paged window.
    func loadMoreIfNeeded() {
        guard query.isPaged, let window = rows.window, let limit = query.limitCount, window.count >= limit,
            let selection = table.state.selection, selection >= window.count - max(1, table.bodyHeight),
            requestedMoreAt != window.count
        else { return }
        var next = query
        next.loadMore()
        let before = window.count
        if replaceQuery(next) { requestedMoreAt = before }
    }

    // MARK: - Facts for the status bar

    /// The number of children at the location in the current revision (cached per revision).
    var currentChildCount: Int? {
        guard let revision = store.currentRevision else { return nil }
        if let c = childCount, c.revision == revision.number, c.path == location { return c.count }
        let n = revision.root.node(at: location).map { node in node.isContainer ? node.count : 0 } ?? 0
        childCount = (revision.number, location, n)
        return n
    }

    /// The selected row's key and value.
    var selectedChild: (key: String, value: JSONNode)? {
        guard let row = table.state.selection, let key = rows.key(ofRow: row), let value = rows.value(ofRow: row) else {
            return nil
        }
        return (key, value)
    }
}

extension TableBatch {
    /// A store batch (window order) as a table batch, with rows shown last-first when `reversed`
    /// (reversing both sides keeps the moves minimal: an increasing run stays one).
    init(_ diff: BatchDiff, reversed: Bool) {
        let o = diff.oldCount
        let n = diff.newCount
        func old(_ i: Int) -> Int { reversed ? o - 1 - i : i }
        func new(_ j: Int) -> Int { reversed ? n - 1 - j : j }
        self.init(
            oldCount: o,
            deletes: diff.deletes.map(old).sorted(),
            inserts: diff.inserts.map(new).sorted(),
            moves: diff.moves.map { (from: old($0.from), to: new($0.to)) }.sorted { $0.to < $1.to },
            reloads: diff.reloads.map { (old: old($0.from), new: new($0.to)) }.sorted { $0.new < $1.new })
    }
}

/// The local time of day, `HH:MM:SS`.
func wallClockTime() -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
}
