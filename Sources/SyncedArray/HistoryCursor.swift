// Stepping through a revision history: the rows as they were, rebuilt from the present rows.
import JSONTree
import LiveQuery

/// A place in a `RevisionHistory` and the rows as they were there, rebuilt from the present rows
/// by applying the records in reverse (and forward again): a step costs the rows' count plus
/// what the record changed, never a read of the revision's document.
///
/// Across a segment's beginning (the query changed) it goes on from the rows the older segment
/// ended with, shown as the segment allows (`HistorySegment`): re-evaluated under the present
/// query when they were every child of the location (a step then costs the rows' bytes), as
/// they were when they are the same query's other pages. It stops where neither holds
/// (`history.reachSequence`).
///
/// The rows it holds stay as they were while new records arrive; its place stays valid until
/// a new segment begins (`isValid`), and it can step back as far as the oldest record kept, and
/// on into the history's archive (`RevisionHistory.earlier`), one record made per step.
public struct HistoryCursor {
    public let history: RevisionHistory
    /// The rows after record `sequence`, as shown under the present query.
    public private(set) var rows: [SyncedRow]
    /// The record whose rows these are (`history.firstSequence - 1`: before the first kept).
    public private(set) var sequence: Int
    /// The store revision of the rows held.
    public private(set) var revision: Int?
    /// What `rows` are: the present segment's query and pages, or an older segment's (the same
    /// query with other pages) when shown as they were.
    public private(set) var view: HistoryView?
    /// The rows in the terms of the segment `segmentID` (its own query and pages).
    private var segmentRows: [SyncedRow]
    private var segmentID: Int?
    /// The rows each newer segment began with, for stepping forward into it again.
    private var crossed: [(id: Int, rows: [SyncedRow])] = []
    private let generation: Int

    /// A cursor at the present: `present` must be the rows after the history's last record
    /// (the synced array's rows).
    public init(history: RevisionHistory, present: [SyncedRow]) {
        self.history = history
        rows = present
        segmentRows = present
        segmentID = history.segments.last?.id
        view = history.segments.last?.view
        sequence = history.lastSequence
        revision = history.revision(atSequence: sequence)
        generation = history.generation
    }

    /// Whether the history still describes these rows (no segment has begun since).
    public var isValid: Bool { generation == history.generation }
    /// Whether the records next to the rows held are gone (the oldest go first): the cursor
    /// can step neither way, and `HistoryCursor(…).move(to: history.firstSequence - 1)` is as
    /// far back as the history now reaches.
    public var isBehind: Bool { sequence < history.firstSequence - 1 }
    /// The record that made these rows (nil before the first kept record).
    public var record: RevisionRecord? { history.record(sequence) }
    /// The rows one step back and the batch from them to `rows` (the record's change to the
    /// rows shown), or nil when no step back can be shown.
    public var recordOnRows: (before: [SyncedRow], batch: BatchDiff)? {
        var back = self
        guard let record, back.stepBack(loadingAhead: false) else { return nil }
        if back.segmentID == segmentID, case .asRecorded? = presentation { return (back.rows, record.batch) }
        let before = back.rows, after = rows
        return (before, BatchDiff(from: before.map(\.key), to: after.map(\.key)) { o, n in !before[o].value.valueEquals(after[n].value) })
    }
    public var canStepBack: Bool {
        isValid && (sequence >= history.firstSequence ? sequence > history.reachSequence : atOldestLoadable)
    }
    /// At the oldest record kept, in the oldest segment, with an earlier one to be made (`loadEarlier`).
    private var atOldestLoadable: Bool {
        sequence == history.firstSequence - 1 && history.reachSequence == sequence && segmentID == history.segments.first?.id
            && history.canLoadEarlier
    }
    public var canStepForward: Bool { isValid && !isBehind && sequence < history.lastSequence }
    /// Records newer than the rows held.
    public var newerCount: Int { history.lastSequence - sequence }

    /// How the rows of the segment the cursor is in are shown.
    private var presentation: SegmentPresentation? {
        guard let id = segmentID, let segment = history.segment(id: id), let present = history.segments.last else { return nil }
        return segment.presentation(under: present.view)
    }

    /// Steps one record back; false when none is kept or it cannot be shown. From the history's
    /// archive, the record that made the rows it arrives at is made too (their change is shown).
    @discardableResult
    public mutating func stepBack() -> Bool {
        stepBack(loadingAhead: true)
    }

    private mutating func stepBack(loadingAhead: Bool) -> Bool {
        guard canStepBack else { return false }
        if sequence < history.firstSequence { history.loadEarlier(rows: segmentRows) }
        guard let record = history.record(sequence) else { return false }
        if let id = segmentID, let segment = history.segment(id: id), segment.baseSequence == sequence {
            // The record is the older segment's: go on from the rows it ended with.
            guard let older = history.segment(atSequence: sequence - 1), let end = older.endRows else { return false }
            crossed.append((id, segmentRows))
            segmentRows = end
            segmentID = older.id
        }
        segmentRows = Self.unapply(record, to: segmentRows)
        sequence -= 1
        if loadingAhead && sequence < history.firstSequence && canStepBack { history.loadEarlier(rows: segmentRows) }
        revision = history.revision(atSequence: sequence)
        showSegmentRows()
        return true
    }

    /// Steps one record forward; false at the present.
    @discardableResult
    public mutating func stepForward() -> Bool {
        guard canStepForward, let record = history.record(sequence + 1) else { return false }
        segmentRows = Self.apply(record, to: segmentRows)
        sequence += 1
        revision = history.revision(atSequence: sequence)
        if let newer = crossed.last, history.segment(id: newer.id)?.baseSequence == sequence {
            // A newer segment begins here: its own first rows.
            crossed.removeLast()
            segmentRows = newer.rows
            segmentID = newer.id
        }
        showSegmentRows()
        return true
    }

    private mutating func showSegmentRows() {
        switch presentation {
        case .evaluated(let present)?:
            rows = present.rows(of: segmentRows)
            view = present
        case .asRecorded?, nil:
            rows = segmentRows
            view = segmentID.flatMap { history.segment(id: $0)?.view } ?? view
        }
    }

    /// Steps to record `target` (clamped to what is kept); returns the steps taken.
    @discardableResult
    public mutating func move(to target: Int) -> Int {
        var steps = 0
        while sequence > target && stepBack() { steps += 1 }
        while sequence < target && stepForward() { steps += 1 }
        return steps
    }

    /// The rows before `record`, from the rows after it.
    /// - Complexity: O(rows + changed bytes).
    static func unapply(_ record: RevisionRecord, to rows: [SyncedRow]) -> [SyncedRow] {
        let b = record.batch
        if b.deletes.isEmpty && b.inserts.isEmpty && b.moves.isEmpty {
            // Values changed in place (the usual edit): only those rows are rebuilt.
            var rows = rows
            for change in record.changes where change.kind == .changed {
                rows[change.oldIndex!] = SyncedRow(key: change.key, value: changedValue(rows[change.newIndex!].value, change.fields, reverse: true))
            }
            return rows
        }
        let inverse = BatchDiff(
            oldCount: b.newCount, newCount: b.oldCount, deletes: b.inserts, inserts: b.deletes,
            moves: b.moves.map { BatchDiff.Move(from: $0.to, to: $0.from) },
            reloads: b.reloads.map { BatchDiff.Reload(key: $0.key, from: $0.to, to: $0.from) })
        var arriving = [Int: ChildChange]()
        for change in record.changes {
            switch change.kind {
            case .removed, .changed: arriving[change.oldIndex!] = change
            case .added, .moved: break
            }
        }
        return inverse.apply(to: rows) { i in
            let change = arriving[i]!
            if change.kind == .removed { return SyncedRow(key: change.key, value: node(change.value!)) }
            return SyncedRow(key: change.key, value: changedValue(rows[change.newIndex!].value, change.fields, reverse: true))
        }
    }

    /// The rows after `record`, from the rows before it.
    static func apply(_ record: RevisionRecord, to rows: [SyncedRow]) -> [SyncedRow] {
        let b = record.batch
        if b.deletes.isEmpty && b.inserts.isEmpty && b.moves.isEmpty {
            var rows = rows
            for change in record.changes where change.kind == .changed {
                rows[change.newIndex!] = SyncedRow(key: change.key, value: changedValue(rows[change.oldIndex!].value, change.fields, reverse: false))
            }
            return rows
        }
        var arriving = [Int: ChildChange]()
        for change in record.changes {
            switch change.kind {
            case .added, .changed: arriving[change.newIndex!] = change
            case .removed, .moved: break
            }
        }
        return record.batch.apply(to: rows) { j in
            let change = arriving[j]!
            if change.kind == .added { return SyncedRow(key: change.key, value: node(change.value!)) }
            return SyncedRow(key: change.key, value: changedValue(rows[change.oldIndex!].value, change.fields, reverse: false))
        }
    }

    private static func changedValue(_ value: JSONNode, _ fields: [FieldChange], reverse: Bool) -> JSONNode {
        if fields.count == 1 && fields[0].path.isEmpty, let bytes = reverse ? fields[0].old : fields[0].new {
            return node(bytes)
        }
        return JSONDocument(applying(fields, to: value.json, reverse: reverse)).root
    }

    /// A value from bytes the history copied out of a parsed document (so they parse).
    private static func node(_ bytes: [UInt8]) -> JSONNode {
        try! JSONDocument(parsing: bytes).root
    }
}
