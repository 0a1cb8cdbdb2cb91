// One update of a table's rows, read the way a list view reads a batch: deletes and move
// sources in old indexes, inserts and move destinations in new ones, all at once.

/// The change from the rows the table shows to the data source's new rows.
///
/// Taking the old rows, dropping `deletes` and move sources, then placing move
/// destinations and `inserts` at their new indexes (ascending) gives the new rows.
/// Rows not named keep their order. `reloads` name rows whose content changed (a moved
/// row that also changed is both moved and reloaded, with its old and new index).
public struct TableBatch: Sendable, CustomStringConvertible {
    /// How many rows the batch starts from (the table's row count before it).
    public var oldCount: Int
    /// Old indexes of removed rows.
    public var deletes: [Int]
    /// New indexes of added rows.
    public var inserts: [Int]
    /// Rows that changed place: old index → new index.
    public var moves: [(from: Int, to: Int)]
    /// Rows whose content changed: old index and new index.
    public var reloads: [(old: Int, new: Int)]
    /// Deleted rows that left for a place past the rows shown (old index → where, such as
    /// `moved to row 212`): their closing line says so, marked as a move down.
    public var departures: [Int: String] = [:]

    public init(oldCount: Int, deletes: [Int] = [], inserts: [Int] = [],
                moves: [(from: Int, to: Int)] = [], reloads: [(old: Int, new: Int)] = []) {
        self.oldCount = oldCount
        self.deletes = deletes
        self.inserts = inserts
        self.moves = moves
        self.reloads = reloads
    }

    /// The row count after the batch: old - deletes + inserts (moves keep the count).
    public var newCount: Int { oldCount - deletes.count + inserts.count }

    public var isEmpty: Bool { deletes.isEmpty && inserts.isEmpty && moves.isEmpty && reloads.isEmpty }

    public var description: String {
        "TableBatch(old \(oldCount), deletes \(deletes), inserts \(inserts), moves \(moves.map { "\($0.from)→\($0.to)" }), "
            + "reloads \(reloads.map { "\($0.old)→\($0.new)" }))"
    }
}

extension TableBatch: Equatable {
    public static func == (a: TableBatch, b: TableBatch) -> Bool {
        a.oldCount == b.oldCount && a.deletes == b.deletes && a.inserts == b.inserts
            && a.moves.map { [$0.from, $0.to] } == b.moves.map { [$0.from, $0.to] }
            && a.reloads.map { [$0.old, $0.new] } == b.reloads.map { [$0.old, $0.new] }
    }
}

/// Why a batch cannot be applied; the message names the numbers.
public struct TableBatchError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension TableBatch {
    /// Checks the batch against the table's row count before it (`tableCount`) and the
    /// data source's row count now (`newCount`).
    /// - Complexity: O(b log b) in the size of the batch.
    public func validate(tableCount: Int, newCount: Int) throws(TableBatchError) {
        if oldCount != tableCount {
            throw TableBatchError("the batch starts from \(oldCount) rows but the table shows \(tableCount)")
        }
        let balance = oldCount - deletes.count - moves.count + inserts.count + moves.count
        if balance != newCount {
            throw TableBatchError("row counts do not balance: \(oldCount) old - \(deletes.count) deleted"
                + " + \(inserts.count) inserted = \(balance), but the data source has \(newCount) rows")
        }
        var leaving = Set<Int>()
        for i in deletes {
            guard (0..<oldCount).contains(i) else {
                throw TableBatchError("delete of old row \(i) is out of range (the batch starts from \(oldCount) rows)")
            }
            guard leaving.insert(i).inserted else { throw TableBatchError("old row \(i) is deleted twice") }
        }
        for m in moves {
            guard (0..<oldCount).contains(m.from) else {
                throw TableBatchError("move from old row \(m.from) is out of range (the batch starts from \(oldCount) rows)")
            }
            guard leaving.insert(m.from).inserted else {
                throw TableBatchError("old row \(m.from) is named twice among deletes and move sources")
            }
        }
        var arriving = Set<Int>()
        for i in inserts {
            guard (0..<newCount).contains(i) else {
                throw TableBatchError("insert at new row \(i) is out of range (the data source has \(newCount) rows)")
            }
            guard arriving.insert(i).inserted else { throw TableBatchError("new row \(i) is inserted twice") }
        }
        for m in moves {
            guard (0..<newCount).contains(m.to) else {
                throw TableBatchError("move to new row \(m.to) is out of range (the data source has \(newCount) rows)")
            }
            guard arriving.insert(m.to).inserted else {
                throw TableBatchError("new row \(m.to) is named twice among inserts and move destinations")
            }
        }
        let mapping = BatchMapping(self)
        for r in reloads {
            guard (0..<oldCount).contains(r.old), (0..<newCount).contains(r.new) else {
                throw TableBatchError("reload of old row \(r.old) as new row \(r.new) is out of range"
                    + " (\(oldCount) old rows, \(newCount) new)")
            }
            guard let target = mapping.newIndex(ofOld: r.old) else {
                throw TableBatchError("old row \(r.old) is both deleted and reloaded")
            }
            guard target == r.new else {
                throw TableBatchError("reload says old row \(r.old) becomes new row \(r.new), but the batch puts it at \(target)")
            }
        }
    }
}
