// The revisions before the oldest record, made one at a time when a cursor steps to them: a
// journal replayed opens at its last revision, and its past is read from the journal on request.
import JSONTree
import LiveQuery
import StoreInterface

extension RevisionHistory {
    /// Whether a record older than the first kept can be made from `earlier`: the archive holds
    /// the revision before the oldest rows, the oldest segment begins there, and the limits
    /// (`--history N`, the bytes) leave room for it.
    public var canLoadEarlier: Bool {
        guard let earlier, let base = baseRevision, let first = segments.first, first.baseSequence == firstSequence - 1 else {
            return false
        }
        return earlier.archivedRevisions.contains(base) && base > earlier.archivedRevisions.lowerBound
            && records.count < limits.revisions && byteCount < limits.bytes
    }

    /// Makes the record before the oldest kept from `earlier`: the rows of the revision before it
    /// under the oldest segment's query, against the rows after it. A revision that changed none
    /// of those rows (a live history keeps no record of it) gets an empty record, so that every
    /// revision of the archive is a step. False when no earlier record can be made.
    /// - Complexity: the revision's document made and the query evaluated on it.
    /// - Parameter rows: the rows after the oldest record under the oldest segment's query, when
    ///   the caller holds them (a cursor there); else they are made from the archive.
    @discardableResult
    public func loadEarlier(rows: [SyncedRow]? = nil) -> Bool {
        guard canLoadEarlier, let earlier, let base = baseRevision else { return false }
        let view = segments[0].view
        let newer = rows ?? oldestRows ?? view.rows(in: earlier.archivedDocument(base))
        let older = rowsBefore(base, from: newer, view: view, earlier) ?? view.rows(in: earlier.archivedDocument(base - 1))
        let batch = BatchDiff(from: older.map(\.key), to: newer.map(\.key)) { o, n in !older[o].value.valueEquals(newer[n].value) }
        let stamp = earlier.archivedStamp(base)
        let writer = stamp.writer.flatMap(RevisionWriter.init(rawValue:)) ?? .unknown
        oldestRows = older
        baseRevision = base - 1
        segments[0].baseRevision = base - 1
        prepend(RevisionRecord(revision: base, time: stamp.time, writer: writer, old: older, new: newer, batch: batch))
        return true
    }

    /// Loads every earlier record the archive and the limits allow (what a change log or a
    /// row's timeline lists).
    public func loadAllEarlier() {
        while loadEarlier() {}
    }

    /// The rows of revision `base - 1` made from `newer` (revision `base`'s) and the children the
    /// revision changed, when the query keeps every such child in its place (key or priority
    /// order, no filter): only the changed rows are made, not the revision's whole document.
    private func rowsBefore(_ base: Int, from newer: [SyncedRow], view: HistoryView, _ earlier: any RevisionArchive) -> [SyncedRow]? {
        let query = view.query
        guard query.ordering == .key || query.ordering == .priority, query.filters.isEmpty,
              let changed = earlier.archivedChildChanges(base, under: view.location.keys) else { return nil }
        var rows = newer
        let indexOfKey = Dictionary(newer.enumerated().map { ($1.jsonKey, $0) }, uniquingKeysWith: { a, _ in a })
        for (key, before) in changed {
            if let i = indexOfKey[JSONKey(key)] { rows[i] = SyncedRow(key: rows[i].key, value: before.root) }
        }
        return rows
    }

    private func prepend(_ record: RevisionRecord) {
        records.insert(record, at: 0)
        firstSequence -= 1
        segments[0].baseSequence = firstSequence - 1
        for change in record.changes { sequencesOfKey[JSONKey(change.key), default: []].insert(firstSequence, at: 0) }
        byteCount += record.byteCount
        tellObservers()
    }
}
