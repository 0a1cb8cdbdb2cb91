// Stepping through a revision history: the rows as they were, rebuilt from the present rows.
import JSONTree
import LiveQuery

/// A place in a `RevisionHistory` and the rows as they were there, rebuilt from the present rows
/// by applying the records in reverse (and forward again): a step costs the rows' count plus
/// what the record changed, never a read of the revision's document.
///
/// The rows it holds stay as they were while new records arrive; its place stays valid until
/// the history starts over (`isValid`), and it can step back as far as the oldest record kept.
public struct HistoryCursor {
    public let history: RevisionHistory
    /// The rows after record `sequence`.
    public private(set) var rows: [SyncedRow]
    /// The record whose rows these are (`history.firstSequence - 1`: before the first kept).
    public private(set) var sequence: Int
    /// The store revision of the rows held.
    public private(set) var revision: Int?
    private let generation: Int

    /// A cursor at the present: `present` must be the rows after the history's last record
    /// (the synced array's rows).
    public init(history: RevisionHistory, present: [SyncedRow]) {
        self.history = history
        rows = present
        sequence = history.lastSequence
        revision = history.revision(atSequence: sequence)
        generation = history.generation
    }

    /// Whether the history still describes these rows (it has not started over since).
    public var isValid: Bool { generation == history.generation }
    /// Whether the records next to the rows held are gone (the oldest go first): the cursor
    /// can step neither way, and `HistoryCursor(…).move(to: history.firstSequence - 1)` is as
    /// far back as the history now reaches.
    public var isBehind: Bool { sequence < history.firstSequence - 1 }
    /// The record that made these rows (nil before the first kept record).
    public var record: RevisionRecord? { history.record(sequence) }
    /// The rows before `record` (nil before the first kept record).
    public var rowsBeforeRecord: [SyncedRow]? { record.map { Self.unapply($0, to: rows) } }
    public var canStepBack: Bool { isValid && sequence >= history.firstSequence }
    public var canStepForward: Bool { isValid && !isBehind && sequence < history.lastSequence }
    /// Records newer than the rows held.
    public var newerCount: Int { history.lastSequence - sequence }

    /// Steps one record back; false when none is kept.
    @discardableResult
    public mutating func stepBack() -> Bool {
        guard canStepBack, let record = history.record(sequence) else { return false }
        rows = Self.unapply(record, to: rows)
        sequence -= 1
        revision = history.revision(atSequence: sequence)
        return true
    }

    /// Steps one record forward; false at the present.
    @discardableResult
    public mutating func stepForward() -> Bool {
        guard canStepForward, let record = history.record(sequence + 1) else { return false }
        rows = Self.apply(record, to: rows)
        sequence += 1
        revision = record.revision
        return true
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
