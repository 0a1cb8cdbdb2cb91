// Where each row goes through a batch: old index ↔ new index, without building arrays of
// the table's size (a batch against a million rows costs the size of the batch).

/// Index arithmetic for a valid `TableBatch`.
struct BatchMapping {
    /// Old indexes leaving their place (deletes and move sources), ascending.
    let removed: [Int]
    /// New indexes filled by something other than a kept row (inserts and move destinations), ascending.
    let added: [Int]
    let deleted: Set<Int>
    let inserted: Set<Int>
    private let deletesSorted: [Int]
    private let insertsSorted: [Int]
    let moveTo: [Int: Int]
    let moveFrom: [Int: Int]
    let oldCount: Int
    let newCount: Int

    init(_ batch: TableBatch) {
        deleted = Set(batch.deletes)
        inserted = Set(batch.inserts)
        var to = [Int: Int]()
        var from = [Int: Int]()
        for m in batch.moves {
            to[m.from] = m.to
            from[m.to] = m.from
        }
        moveTo = to
        moveFrom = from
        removed = (batch.deletes + batch.moves.map(\.from)).sorted()
        added = (batch.inserts + batch.moves.map(\.to)).sorted()
        deletesSorted = batch.deletes.sorted()
        insertsSorted = batch.inserts.sorted()
        oldCount = batch.oldCount
        newCount = batch.newCount
    }

    /// Rows that stay in place relative to each other (neither deleted nor moved).
    var keptCount: Int { oldCount - removed.count }

    /// The new index of old row `old`, or nil when it is deleted.
    /// - Complexity: O(log b + b) in the size of the batch.
    func newIndex(ofOld old: Int) -> Int? {
        if deleted.contains(old) { return nil }
        if let to = moveTo[old] { return to }
        return slot(ofKept: old - countBelow(old, in: removed))
    }

    /// The old index of new row `new`, or nil when it is inserted.
    /// - Complexity: O(log b + b).
    func oldIndex(ofNew new: Int) -> Int? {
        if inserted.contains(new) { return nil }
        if let from = moveFrom[new] { return from }
        return nth(new - countBelow(new, in: added), skipping: removed)
    }

    /// The new index of the `kept`-th row that neither moved nor was deleted (counting
    /// from 0); for `kept == keptCount`, the index just after the last one.
    func slot(ofKept kept: Int) -> Int { nth(kept, skipping: added) }

    /// Where a deleted old row's closing line goes: right above the next row that stays.
    func closingPosition(ofDeleted old: Int) -> Int {
        min(slot(ofKept: old - countBelow(old, in: removed)), newCount)
    }

    /// Where the selection goes when its row is deleted: the next row that stays, else
    /// the one before it, else row 0 (nil when the table is empty).
    func neighbour(ofDeleted old: Int) -> Int? {
        guard newCount > 0 else { return nil }
        let kept = old - countBelow(old, in: removed)
        if kept < keptCount { return slot(ofKept: kept) }
        if kept > 0 { return slot(ofKept: kept - 1) }
        return min(old, newCount - 1)
    }

    /// Whether a moved row went up among the rows around it (its rank among the rows that
    /// survive the batch dropped).
    func movedUp(from: Int, to: Int) -> Bool {
        let oldRank = from - countBelow(from, in: deletesSorted)
        let newRank = to - countBelow(to, in: insertsSorted)
        return newRank < oldRank
    }

    /// How many elements of the ascending `sorted` are below `value`.
    private func countBelow(_ value: Int, in sorted: [Int]) -> Int {
        var lo = 0
        var hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The `n`-th (from 0) non-negative integer not in the ascending `skipped`.
    private func nth(_ n: Int, skipping skipped: [Int]) -> Int {
        var index = n
        for s in skipped {
            if s <= index { index += 1 } else { break }
        }
        return index
    }
}
