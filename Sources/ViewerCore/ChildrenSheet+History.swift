// The time machine: the table as it was at a past revision, rebuilt from the synced array's
// history, with that revision's changes marked and held; the present goes on being recorded.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface
import JSONTree
import LiveQuery
import SyncedArray
import TableUI

extension ChildrenSheet {
    /// Whether the table shows a past revision (writes and query changes are off).
    var inHistory: Bool { travel != nil }

    /// A history for a new synced array: its revisions are told apart by who wrote them.
    func makeHistory() -> RevisionHistory {
        let history = RevisionHistory(limits: options.history)
        // A journal replayed: its past is read from it when the time machine steps there.
        history.earlier = store as? any RevisionArchive
        let remote = store.isRemote
        history.attribute = { [unowned self] _ in
            // A recorded writer (a journal replayed) is the one that wrote it.
            if let recorded = store.currentRevision?.writer.flatMap(RevisionWriter.init(rawValue:)) { return recorded }
            return store.hasWritesInProgress ? .this : remote ? .network : .otherProcess
        }
        return history
    }

    /// `[` / `]`: one revision back, or forward (past the newest kept: the present).
    func stepHistory(back: Bool) {
        guard let array, let history = array.history else { return }
        var cursor = travel ?? HistoryCursor(history: history, present: Array(array.rows))
        guard cursor.isValid else { return returnToPresent() }
        if back {
            guard cursor.stepBack() else {
                message = Message(text: olderRevisionsRefusal(history, at: cursor.sequence), isError: false)
                return
            }
        } else {
            guard cursor.stepForward() else { return returnToPresent() }
        }
        showPast(cursor)
    }

    /// `{` / `}`: the previous or next kept revision that changed the selected row.
    func jumpToRowChange(previous: Bool) {
        guard let array, let history = array.history, let (key, _) = selectedChild else { return }
        history.loadAllEarlier()
        let current = travel?.sequence ?? history.lastSequence
        let sequences = history.changes(ofKey: key).map(\.sequence)
        let target = previous
            ? sequences.last { travel == nil ? $0 <= current : $0 < current }
            : sequences.first { $0 > current }
        guard let target else {
            if !previous && inHistory { return returnToPresent() }
            message = Message(text: "no \(previous ? "earlier" : "later") change of \(key) kept", isError: false)
            return
        }
        var cursor = travel ?? HistoryCursor(history: history, present: Array(array.rows))
        guard cursor.isValid else { return returnToPresent() }
        cursor.move(to: target)
        showPast(cursor)
        if cursor.sequence != target { message = Message(text: notShownUnderThisQuery(cursor), isError: false) }
    }

    /// Enter on a change: the sheets close, and the table shows revision `sequence` with `key`
    /// selected; returns why not, when it was kept under a query this one cannot show.
    func goToRevision(_ sequence: Int, selecting key: String) -> String? {
        viewer?.popToChildren()
        guard let array, let history = array.history else { return nil }
        var cursor = travel ?? HistoryCursor(history: history, present: Array(array.rows))
        guard cursor.isValid else {
            returnToPresent()
            return nil
        }
        cursor.move(to: sequence)
        showPast(cursor)
        if let row = rows.tableRow(ofKey: key) { table.select(row: row) }
        return cursor.sequence != sequence ? notShownUnderThisQuery(cursor) : nil
    }

    /// Why the cursor stopped short of a revision asked for: it was recorded under a query
    /// whose rows cannot be shown under this one.
    private func notShownUnderThisQuery(_ cursor: HistoryCursor) -> String {
        let shown = cursor.revision.map { "rev \($0)" } ?? "the oldest"
        return "that revision was kept under another sort, filter or page and cannot be shown under this one: "
            + "\(shown) is as far back as this query reaches"
    }

    /// Back to the live table: what arrived meanwhile animates in as one batch.
    func returnToPresent() {
        guard travel != nil else { return }
        travel = nil
        rows.notes = [:]
        table.finishAnimations()
        guard let array, rows.rows != nil else { return }
        show(Array(array.rows), incremental: nil)
        inSync = true
        waiting = 0
    }

    /// The revision shown was dropped (the oldest go first): the oldest kept is shown instead.
    func showOldestKept() {
        guard let array, let history = array.history else { return }
        var cursor = HistoryCursor(history: history, present: Array(array.rows))
        cursor.move(to: history.firstSequence - 1)
        showPast(cursor)
        let revision = cursor.revision.map { "rev \($0)" } ?? "the oldest"
        message = Message(text: "the revision shown is no longer kept (--history N keeps more): now \(revision)", isError: false)
    }

    /// Shows the cursor's rows with its record's changes marked as a batch's animations mark
    /// them, held (the table's clock does not move while in the past).
    private func showPast(_ cursor: HistoryCursor) {
        let key = selectedChild?.key
        travel = cursor
        inSync = false
        table.finishAnimations()
        let reversed = query.displayReversed
        if let record = cursor.record, let (before, batch) = cursor.recordOnRows {
            rows.notes = [:]
            rows.setRows(before, reversed: reversed)
            table.reloadData()
            if let key, let row = rows.tableRow(ofKey: key) { table.select(row: row) }
            // The rows before, laid out (not flushed): a removed row's line is then marked where it was.
            if !batch.deletes.isEmpty, let lines = viewer?.layout(canvas.size)?.table { table.render(into: canvas, lines: lines) }
            rows.setRows(cursor.rows, reversed: reversed)
            rows.notes = changedCellNotes(record, before: before, after: cursor.rows)
            rows.extendColumns(at: batch.inserts + batch.reloads.map(\.to))
            // Marked even with --no-animation: the marks are what the past view is for.
            let animates = table.settings.animationsEnabled
            table.settings.animationsEnabled = true
            try? table.performBatchUpdates(TableBatch(batch, reversed: reversed), now: environment.clock.now())
            table.settings.animationsEnabled = animates
        } else {
            rows.notes = [:]
            rows.setRows(cursor.rows, reversed: reversed)
            table.reloadData()
        }
        if let key, let row = rows.tableRow(ofKey: key) { table.select(row: row) }
    }

    /// The changed cells of a record's changed rows shown: each cell's text before, by key and
    /// column (rows found by key: the rows shown may be the record's re-evaluated under another query).
    private func changedCellNotes(_ record: RevisionRecord, before: [SyncedRow], after: [SyncedRow]) -> [JSONKey: [ColumnSpec: String]] {
        let changed = Set(record.changes.filter { $0.kind == .changed }.map { JSONKey($0.key) })
        guard !changed.isEmpty else { return [:] }
        let old = Dictionary(before.filter { changed.contains($0.jsonKey) }.map { ($0.jsonKey, $0.value) }, uniquingKeysWith: { a, _ in a })
        var notes = [JSONKey: [ColumnSpec: String]]()
        for row in after {
            guard let value = old[row.jsonKey] else { continue }
            var cells = [ColumnSpec: String]()
            for spec in rows.columnSet.specs where spec != .key {
                let text = spec.cell(key: row.key, child: value)
                if text != spec.cell(key: row.key, child: row.value) { cells[spec] = text }
            }
            notes[row.jsonKey] = cells
        }
        return notes
    }

    /// Why `[` goes no further back from `sequence`: nothing older kept, or the older records
    /// were made under a query whose rows cannot be shown under this one.
    private func olderRevisionsRefusal(_ history: RevisionHistory, at sequence: Int) -> String {
        let hidden = sequence - (history.firstSequence - 1)
        guard hidden > 0 else {
            let reach = history.baseRevision.map { ": the history reaches back to rev \($0)" } ?? ""
            return "no older revision kept\(reach) (--history N keeps more)"
        }
        let changeLog = options.keyBindings.first { $0.action == .changeLog }?.label ?? "C"
        return "the \(hidden) older revision\(hidden == 1 ? " was" : "s were") kept under another sort, filter or page "
            + "and cannot be shown under this one; the change log (\(changeLog)) lists them"
    }

    /// The status bar's note of how far back the history reaches under the query shown, long
    /// and short: `history 40 revs since 14:02:11` and `↶40`; when older records were made under
    /// a query that cannot be shown under this one, `history 12 of 40 revs for this query since
    /// 14:05:00` and `↶12 of 40` (`history 40 revs, none for this query` when none). Nil while
    /// nothing is kept.
    var historyReach: (long: String, short: String)? {
        guard let history = array?.history, !history.records.isEmpty else { return nil }
        let reach = history.reachSequence
        let shown = history.lastSequence - reach, kept = history.records.count
        let since = history.record(reach + 1).map { " since " + localTimeWithMilliseconds($0.time).prefix(8) } ?? ""
        let revs = kept == 1 ? "rev" : "revs"
        let arrow = environment.unicode ? "↶" : "history "
        if shown == kept { return ("history \(kept) \(revs)\(since)", "\(arrow)\(kept)") }
        if shown == 0 { return ("history \(kept) \(revs), none for this query", "\(arrow)0 of \(kept)") }
        return ("history \(shown) of \(kept) \(revs) for this query\(since)", "\(arrow)\(shown) of \(kept)")
    }

    /// The status bar's badge in the past: `HISTORY rev 12 of 40 · 14:02:11.352 · 3 changed · 5 newer`.
    var historyBadge: String? {
        guard let travel else { return nil }
        var parts = ["HISTORY rev \(travel.revision.map(String.init) ?? "?") of \(lastRevision?.number ?? travel.history.records.last?.revision ?? 0)"]
        if let record = travel.record {
            parts.append(localTimeWithMilliseconds(record.time))
            parts.append("\(record.changes.count) changed")
            if record.writer != .unknown { parts.append("by \(record.writer == .this ? "this viewer" : record.writer.rawValue)") }
        } else {
            parts.append("oldest kept")
        }
        parts.append("\(travel.newerCount) newer")
        return " " + parts.joined(separator: " · ") + " "
    }

    /// The most values a trend cell shows.
    static let trendLength = 8

    /// A trend cell: the row's values at `path` after each kept revision that changed it, up to
    /// the revision shown, the latest last.
    func trendText(key: String, value: JSONNode, path: Path) -> String {
        guard let history = array?.history else { return "" }
        let timeline = history.timeline(ofKey: key, value: value, through: travel?.sequence)
        var values = timeline.suffix(Self.trendLength).map { $0.value?[path: path]?.doubleValue }
        if values.isEmpty { values = [value.node(at: path)?.doubleValue] }
        return values.allSatisfy { $0 == nil } ? "" : sparkline(values)
    }

    /// `~`: a trend column for the column under the cursor, or none.
    func toggleSparkColumn() {
        let path: Path
        switch cursorSpec {
        case .member(let p), .spark(let p): path = p
        case .value: path = .root
        case .computed:
            message = Message(text: "the history keeps stored values: a computed column has no trend", isError: true)
            return
        case .key:
            message = Message(text: "a key has no trend: move the column cursor (← →) to a number", isError: true)
            return
        }
        var set = rows.columnSet
        let shown = set.toggleSpark(path)
        setColumns(set, cursorOn: shown ? .spark(path) : .member(path))
        let title = path.isRoot ? "value" : path.keys.joined(separator: "/")
        message = Message(text: shown ? "trend of \(title): its values in the kept revisions (\(Self.trendLength) newest)" : "trend of \(title) removed", isError: false)
    }

    /// Why a key does nothing in the past, or nil when it may go on.
    func historyRefusal(_ what: String) -> String? {
        guard inHistory else { return nil }
        let present = options.keyBindings.first { $0.action == .historyPresent }?.label ?? "P"
        return "in the past (HISTORY): \(what) is off; \(present) returns to the present"
    }
}

extension ViewerAction {
    /// Actions that change the query or the location: off in the past, whose rows are the
    /// query's as it was.
    var changesQuery: Bool {
        switch self {
        case .open, .back, .sortByColumn, .sortByKey, .reverse, .filter, .search, .searchNext, .searchPrevious, .pause: true
        default: false
        }
    }
}

/// Local time of day to the millisecond: `14:02:11.352`.
func localTimeWithMilliseconds(_ seconds: Double) -> String {
    var t = time_t(seconds.rounded(.down))
    var parts = tm()
    localtime_r(&t, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let ms = Int((seconds - seconds.rounded(.down)) * 1000)
    return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms < 10 ? "00" : ms < 100 ? "0" : "")\(ms)"
}
