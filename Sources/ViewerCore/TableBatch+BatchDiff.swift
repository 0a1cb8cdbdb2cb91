// A synced array's batch (query order) as the table's batch (display order).
import LiveQuery
import TableUI

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
