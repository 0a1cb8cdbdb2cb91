// The revisions a synced array went through, kept as their changes, bounded by count and bytes.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface
import JSONTree
import LiveQuery

/// The changes of a synced array's rows, one record per revision that changed them, oldest
/// first: enough to show the rows as they were at any kept revision, by applying the records in
/// reverse to the present rows (`HistoryCursor`).
///
/// ```swift
/// let players = SyncedArray(try store.reference(Path("/players")).orderByChild(Path("score")))
/// players.history = RevisionHistory(limits: HistoryLimits(revisions: 1_000, bytes: 64 << 20))
/// players.startSync()
/// // … revisions arrive …
/// var cursor = HistoryCursor(history: players.history!, present: Array(players.rows))
/// cursor.stepBack()                          // the rows one revision ago: cursor.rows
/// for change in players.history!.records.last!.changes { print(change.kind, change.key) }
/// ```
///
/// A record holds keys, indexes and the bytes of what changed (a changed child's changed fields,
/// an added or removed child's value), never a row that did not change nor the revision's
/// document: a one-value edit of a file of a million children costs about what the value costs.
/// The oldest records go first when there are more than `limits.revisions` or they take more
/// than `limits.bytes`.
///
/// A new query for the array (a sort, a filter, a page more) does not throw the records away:
/// it begins a new *segment*, and the rows of the one before are kept as they were then (a copy
/// of the rows shown, counted in the bytes). The records of an older segment describe the rows
/// of its own query, so a cursor shows them under the present query only where they allow
/// (`reachSequence`): a segment whose rows were every child of the location is re-evaluated
/// under the present query; one of the same query with other pages is shown with the pages it
/// had; any other is where stepping back stops (its records stay in the change log and timelines).
public final class RevisionHistory {
    public let limits: HistoryLimits
    /// The records kept, oldest first.
    public internal(set) var records: [RevisionRecord] = []
    /// The sequence number of `records.first` (records are numbered 1, 2, … as they come, the
    /// numbering kept when old ones go).
    public internal(set) var firstSequence = 1
    /// The revision of the rows before the first record kept (nil before the first rows).
    public internal(set) var baseRevision: Int?
    /// The bytes the records (and the rows kept at segments' ends) take, approximately.
    public internal(set) var byteCount = 0
    /// Says who wrote a record's revision (the viewer knows its own writes); unknown without it.
    public var attribute: ((RevisionRecord) -> RevisionWriter)?
    /// Incremented when a segment begins (cursors made before are no longer valid: their rows
    /// are of the query before).
    public private(set) var generation = 0
    /// The queries the records were made under, oldest first; the last is the present one.
    public internal(set) var segments: [HistorySegment] = []
    /// The sequence numbers of the records that name each key, oldest first (records dropped
    /// since are skipped when read).
    var sequencesOfKey: [JSONKey: [Int]] = [:]
    /// Where the revisions before the oldest record come from, made when a cursor steps to them
    /// (`loadEarlier`): a journal replayed publishes only its last revision. Set before the first
    /// rows: the records are then numbered so that the oldest the archive can give is 1.
    public var earlier: (any RevisionArchive)? {
        didSet { if records.isEmpty, let earlier { firstSequence = max(firstSequence, earlier.archivedRevisions.count) } }
    }
    /// The rows of `baseRevision` under the oldest segment's query, once a record was loaded from `earlier`.
    var oldestRows: [SyncedRow]?
    /// Told after each record kept, trim and segment begun (a change log that follows the history).
    private var observers: [(token: Int, handler: () -> Void)] = []
    private var nextToken = 0
    private var nextSegmentID = 0

    public init(limits: HistoryLimits = HistoryLimits()) {
        self.limits = limits
    }

    /// The sequence number of the present rows (the last record; `firstSequence - 1` when none).
    public var lastSequence: Int { firstSequence + records.count - 1 }

    /// The record with sequence number `sequence`, if kept.
    public func record(_ sequence: Int) -> RevisionRecord? {
        let i = sequence - firstSequence
        return records.indices.contains(i) ? records[i] : nil
    }

    /// The revision of the rows after record `sequence` (`baseRevision` before the first); where
    /// a segment begins, the revision of its first rows.
    public func revision(atSequence sequence: Int) -> Int? {
        if let segment = segments.last(where: { $0.baseSequence == sequence }), sequence >= firstSequence - 1 {
            return segment.baseRevision
        }
        return sequence < firstSequence ? baseRevision : record(sequence)?.revision
    }

    /// Records `batch` (from the store's revision `revision`) turning `old` rows into `new`.
    /// - Parameter everyChild: whether `new` are every child of the location (the array's
    ///   query selects all and it shows all).
    /// - Parameter time: when the revision was made (`Revision.time`); nil: now.
    public func record(revision: Int, old: [SyncedRow], new: [SyncedRow], batch: BatchDiff, everyChild: Bool = false,
                       time: Double? = nil) {
        if baseRevision == nil { baseRevision = revision - 1 }
        var record = RevisionRecord(revision: revision, time: time ?? wallClockSeconds(), writer: .unknown, old: old, new: new, batch: batch)
        if let attribute { record.writer = attribute(record) }
        records.append(record)
        for change in record.changes { sequencesOfKey[JSONKey(change.key), default: []].append(lastSequence) }
        byteCount += record.byteCount
        if !everyChild { noteRowsMissChildren() }
        trim()
        tellObservers()
    }

    /// The present rows are no longer every child of the location (a child beyond the pages
    /// shown): the present segment's records can no longer be shown under another query.
    public func noteRowsMissChildren() {
        if !segments.isEmpty { segments[segments.count - 1].holdsEveryChild = false }
    }

    /// Begins a segment: the rows are now `view`'s, of `revision`; `previous` are the rows they
    /// replace (the end of the segment before, kept as a copy when it has records).
    /// - Parameter everyChild: whether the new rows are every child of the location.
    public func begin(_ view: HistoryView, at revision: Int?, previous: [SyncedRow], everyChild: Bool) {
        if let last = segments.last {
            if last.baseSequence >= lastSequence {
                // No record of its own: nothing to step through.
                segments.removeLast()
            } else if previous.reduce(0, { $0 + $1.value.rawBytes.count }) <= limits.bytes / 2 {
                let end = copiedRows(previous)
                segments[segments.count - 1].endRows = end.rows
                segments[segments.count - 1].endByteCount = end.byteCount
                byteCount += end.byteCount
            }
            // Rows too large to copy within the budget are not kept: the segment's records stay
            // in the change log, and stepping back stops where it ends.
        }
        if records.isEmpty { baseRevision = revision }
        nextSegmentID += 1
        segments.append(HistorySegment(id: nextSegmentID, view: view, baseSequence: lastSequence, baseRevision: revision,
                                       holdsEveryChild: everyChild && view.selectsEveryChild))
        generation += 1
        trim()
        tellObservers()
    }

    /// The segment `id`, if kept.
    public func segment(id: Int) -> HistorySegment? { segments.first { $0.id == id } }

    /// The segment whose records include `sequence` (or, at a segment's base, the segment
    /// that begins there).
    public func segment(atSequence sequence: Int) -> HistorySegment? {
        segments.last { $0.baseSequence <= sequence }
    }

    /// How far back a cursor can show the rows under the present query: the oldest position
    /// (`firstSequence - 1` when every record kept can be shown).
    public var reachSequence: Int {
        guard let present = segments.last else { return firstSequence - 1 }
        var reach = max(present.baseSequence, firstSequence - 1)
        for segment in segments.dropLast().reversed() {
            guard segment.endRows != nil, segment.presentation(under: present.view) != nil else { break }
            reach = max(segment.baseSequence, firstSequence - 1)
        }
        return reach
    }

    /// Calls `handler` after every change of the records; returns a token for `removeObserver`.
    public func addObserver(_ handler: @escaping () -> Void) -> Int {
        nextToken += 1
        observers.append((nextToken, handler))
        return nextToken
    }

    public func removeObserver(_ token: Int) {
        observers.removeAll { $0.token == token }
    }

    func tellObservers() {
        for observer in observers { observer.handler() }
    }

    /// Drops the oldest records beyond the limits, and the segments left without records.
    private func trim() {
        while records.count > limits.revisions || (byteCount > limits.bytes && !records.isEmpty) {
            let dropped = records.removeFirst()
            oldestRows = nil
            byteCount -= dropped.byteCount
            baseRevision = dropped.revision
            firstSequence += 1
            for change in dropped.changes {
                let key = JSONKey(change.key)
                sequencesOfKey[key]?.removeAll { $0 < firstSequence }
                if sequencesOfKey[key]?.isEmpty == true { sequencesOfKey[key] = nil }
            }
            // A segment whose records are all gone: the next begins where the kept ones start.
            while segments.count > 1 && segments[1].baseSequence <= firstSequence - 1 {
                byteCount -= segments.removeFirst().endByteCount
            }
            if let first = segments.first, first.baseSequence < firstSequence - 1 {
                segments[0].baseSequence = firstSequence - 1
                segments[0].baseRevision = baseRevision
            }
        }
    }

    // MARK: Reading

    /// The kept records that changed the child `key`, with their sequence numbers, oldest first.
    /// - Complexity: O(records that changed it).
    public func changes(ofKey key: String) -> [(sequence: Int, record: RevisionRecord, change: ChildChange)] {
        var result = [(sequence: Int, record: RevisionRecord, change: ChildChange)]()
        var last = -1
        for sequence in sequencesOfKey[JSONKey(key)] ?? [] where sequence != last {
            last = sequence
            guard let record = record(sequence) else { continue }
            for change in record.changes where codeUnitsEqual(change.key, key) {
                result.append((sequence, record, change))
            }
        }
        return result
    }

    /// The child `key`'s value after each kept record that changed it, oldest first, rebuilt
    /// from its value in the rows after record `through` (nil: not in those rows) by undoing
    /// the newer changes; nil where the child was not in the rows. Changes after `through` are
    /// left out. Into an older segment it goes on from the child's value in the rows that
    /// segment ended with (its changes under the newer query's rows may not be recorded), and
    /// stops at a segment whose rows were not kept.
    /// - Complexity: O(changes of the key × their bytes), plus the rows of each segment crossed.
    public func timeline(ofKey key: String, value: JSONNode?, through: Int? = nil)
        -> [(sequence: Int, record: RevisionRecord, change: ChildChange, value: JSON?)]
    {
        let through = through ?? lastSequence
        let changes = self.changes(ofKey: key).filter { $0.sequence <= through }
        var current: JSON? = value?.json
        var segmentID = segment(atSequence: through)?.id
        var result = [(sequence: Int, record: RevisionRecord, change: ChildChange, value: JSON?)]()
        for (sequence, record, change) in changes.reversed() {
            if let owner = segment(atSequence: sequence - 1), owner.id != segmentID {
                guard owner.endRows != nil else { break }
                current = owner.endValue(ofKey: key)?.json
                segmentID = owner.id
            }
            result.append((sequence, record, change, current))
            switch change.kind {
            case .added: current = nil
            case .removed: current = change.value.flatMap(parsedJSON)
            case .changed: current = current.map { applying(change.fields, to: $0, reverse: true) }
            case .moved: break
            }
        }
        return result.reversed()
    }
}

/// How much history to keep.
public struct HistoryLimits: Sendable, Equatable {
    /// The most revisions kept (`--history N`).
    public var revisions: Int
    /// The most bytes the records may take.
    public var bytes: Int

    public init(revisions: Int = 1_000, bytes: Int = 64 << 20) {
        self.revisions = revisions
        self.bytes = bytes
    }
}
