// Applying a change to the rows: new rows and one batch, then the delegates and typed views.
import StoreInterface
import JSONTree
import LiveQuery

extension SyncedArray {
    var isUpdating: Bool { updateDepth > 0 }

    /// Runs `body` as one update; calls deferred meanwhile run when the outermost update ends.
    func whileUpdating(_ body: () -> Void) {
        updateDepth += 1
        body()
        updateDepth -= 1
        while updateDepth == 0 && !deferredWhileUpdating.isEmpty {
            deferredWhileUpdating.removeFirst()()
        }
    }

    /// The rows of a window of `count` rows that the array shows: all of them, or with paging the
    /// pages shown from the paging's edge.
    func shownRange(ofCount count: Int) -> Range<Int> {
        guard let paging else { return 0..<count }
        let n = paging.rowCount(pages: pages)
        guard count > n else { return 0..<count }
        return paging.edge == .start ? 0..<n : (count - n)..<count
    }

    /// A change from the store for the current observer.
    ///
    /// When the rows are the change's old window (this observer's earlier changes were applied),
    /// the store's batch says which rows were kept and changed: used as it is when the whole
    /// window is shown, or cut to the rows shown when paged. Otherwise (a first change, a
    /// replaced query, the cache) the rows shown are matched by key with the rows held.
    /// - Complexity: O(rows shown); matching by key also compares the values of kept rows.
    func apply(_ change: WindowChange) {
        whileUpdating {
            let start = monotonicNanoseconds()
            let window = change.new
            let shown = shownRange(ofCount: window.count)
            let batch = change.batch
            let fromOldWindow = !awaitingFirstChange && change.old?.count == batch.oldCount
                && batch.newCount == window.count && rows.count == shownRange(ofCount: batch.oldCount).count
                && batch.oldCount - batch.deletes.count + batch.inserts.count == batch.newCount
            var newRows = [SyncedRow]()
            newRows.reserveCapacity(shown.count)
            let update: BatchDiff
            if fromOldWindow {
                // Kept rows keep their key strings; every row takes its value from the new revision.
                let oldOfNew = batch.oldIndexOfNew()
                let oldShown = shownRange(ofCount: batch.oldCount)
                if shown.count == window.count && oldShown.count == batch.oldCount {
                    for j in 0..<window.count {
                        let i = oldOfNew[j]
                        newRows.append(SyncedRow(key: i >= 0 ? rows[i].key : window.key(at: j), value: window.value(at: j)))
                    }
                    update = batch
                } else {
                    var reloaded = [Bool](repeating: false, count: window.count)
                    for r in batch.reloads { reloaded[r.to] = true }
                    for j in shown {
                        let i = oldOfNew[j]
                        let key = oldShown.contains(i) ? rows[i - oldShown.lowerBound].key : window.key(at: j)
                        newRows.append(SyncedRow(key: key, value: window.value(at: j)))
                    }
                    update = BatchDiff(from: rows.map(\.key), to: newRows.map(\.key)) { _, n in reloaded[shown.lowerBound + n] }
                }
                statistics.storeBatches += 1
            } else {
                for j in shown { newRows.append(SyncedRow(key: window.key(at: j), value: window.value(at: j))) }
                update = keyedBatch(to: newRows)
                statistics.keyedBatches += 1
            }
            awaitingFirstChange = false
            self.window = window
            hasMore = shown.count < window.count
            // Real rows replacing the cache are reported even when the cache was exactly right.
            let replacesCache = isShowingCache
            isShowingCache = false
            if let history {
                let revision = store.currentRevision?.number ?? 0
                let view = HistoryView(location: location, query: query, paging: paging, pages: pages)
                let everyChild = view.selectsEveryChild && !hasMore
                if !fromOldWindow {
                    history.begin(view, at: revision, previous: rows, everyChild: everyChild)
                } else if !update.isEmpty {
                    history.record(revision: revision, old: rows, new: newRows, batch: update, everyChild: everyChild,
                                   time: store.currentRevision?.time)
                } else if !everyChild {
                    history.noteRowsMissChildren()
                }
            }
            statistics.applyNanoseconds += monotonicNanoseconds() - start
            commit(newRows, update, reportEmpty: replacesCache)
            if cacheNeedsWrite {
                cacheNeedsWrite = false
                writeCache()
            }
        }
    }

    /// The batch from the rows held to `newRows`, matching rows by key (code units); a kept row
    /// whose value differs (`JSONNode.valueEquals`: formatting is not a change) is reloaded.
    /// - Complexity: O(rows) hashing, O(bytes of kept rows) comparing, O(n log n) at worst for moves.
    func keyedBatch(to newRows: [SyncedRow]) -> BatchDiff {
        let old = rows
        return BatchDiff(from: old.map(\.key), to: newRows.map(\.key)) { o, n in
            !old[o].value.valueEquals(newRows[n].value)
        }
    }

    /// Makes `newRows` the rows and tells the typed views and delegates, as steps when there is an
    /// event delegate (the rows pass through each intermediate state), else as one batch.
    /// - Parameter reportEmpty: tell the delegates even when the batch is empty.
    /// - Precondition: `batch` turns the rows held into `newRows` (same keys, in order).
    func commit(_ newRows: [SyncedRow], _ batch: BatchDiff, reportEmpty: Bool = false) {
        if batch.isEmpty && !reportEmpty {
            rows = newRows  // same keys in the same places; values from the newest revision
            return
        }
        statistics.updates += 1
        let mirrors = self.mirrors
        if let delegate = eventDelegate {
            delegate.syncedArrayWillUpdate(self)
            for step in batch.steps() {
                switch step {
                case .remove(let i):
                    let row = rows.remove(at: i)
                    indexOfKey[row.jsonKey] = nil
                    reindex(i..<rows.count)
                    for m in mirrors { m.remove(at: i) }
                    delegate.syncedArray(self, didRemove: row, at: i)
                case .move(let from, let to):
                    let row = rows.remove(at: from)
                    rows.insert(row, at: to)
                    reindex(Swift.min(from, to)..<(Swift.max(from, to) + 1))
                    for m in mirrors { m.move(from: from, to: to) }
                    delegate.syncedArray(self, didMove: row, from: from, to: to)
                case .insert(let j):
                    rows.insert(newRows[j], at: j)
                    reindex(j..<rows.count)
                    for m in mirrors { m.insert(newRows[j], at: j) }
                    delegate.syncedArray(self, didAdd: newRows[j], at: j)
                case .change(let j):
                    rows[j] = newRows[j]
                    for m in mirrors { m.change(newRows[j], at: j) }
                    delegate.syncedArray(self, didChange: newRows[j], at: j)
                }
            }
            assert(rows.count == newRows.count && zip(rows, newRows).allSatisfy { $0.jsonKey == $1.jsonKey },
                   "SyncedArray: steps did not rebuild the new rows")
            rows = newRows
            for m in mirrors { m.finishUpdate() }
            delegate.syncedArrayDidUpdate(self)
        } else {
            let old = rows
            rows = newRows
            reindex(after: batch, old: old)
            for m in mirrors {
                m.apply(batch, newRows)
                m.finishUpdate()
            }
        }
        #if DEBUG
        if let problem = invariantViolations().first { assertionFailure("SyncedArray: \(problem)") }
        #endif
        batchDelegate?.syncedArray(self, didApply: batch)
    }

    /// Points the keys of `rows[range]` at their indexes.
    func reindex(_ range: Range<Int>) {
        for k in range { indexOfKey[rows[k].jsonKey] = k }
    }

    /// Updates the key index after `batch` replaced `old` with `rows`: rows before the first
    /// index the batch touches keep their places; deleted keys go, the rest are re-pointed.
    /// - Complexity: O(rows after the first row touched).
    func reindex(after batch: BatchDiff, old: [SyncedRow]) {
        var first = rows.count
        if let i = batch.deletes.first { first = Swift.min(first, i) }
        if let j = batch.inserts.first { first = Swift.min(first, j) }
        for m in batch.moves { first = Swift.min(first, m.from, m.to) }
        if batch.deletes.isEmpty && batch.inserts.isEmpty && batch.moves.isEmpty { return }
        for i in batch.deletes { indexOfKey[old[i].jsonKey] = nil }
        reindex(first..<rows.count)
    }
}
