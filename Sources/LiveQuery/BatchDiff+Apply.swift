// Replaying a batch on an array, as a list view would.

extension BatchDiff {
    /// The new rows, rebuilt from the old ones: deleted and moved-away rows dropped, moved rows
    /// and inserted rows placed at their new indexes (ascending), the rest kept in order;
    /// `element(newIndex)` supplies inserted and reloaded rows.
    /// - Precondition: `old.count == oldCount`.
    /// - Complexity: O(old + new).
    public func apply<T>(to old: [T], element: (_ newIndex: Int) -> T) -> [T] {
        precondition(old.count == oldCount, "BatchDiff.apply: \(old.count) rows, the batch expects \(oldCount)")
        var leaves = [Bool](repeating: false, count: oldCount)
        for i in deletes { leaves[i] = true }
        // What arrives at each new index: -1 none, -2 an insert, else the old index moved there.
        var arriving = [Int](repeating: -1, count: newCount)
        for j in inserts { arriving[j] = -2 }
        for m in moves {
            leaves[m.from] = true
            arriving[m.to] = m.from
        }
        var result = [T]()
        result.reserveCapacity(newCount)
        var next = 0
        for j in 0..<newCount {
            switch arriving[j] {
            case -2:
                result.append(element(j))
            case -1:
                while next < oldCount && leaves[next] { next += 1 }
                precondition(next < oldCount, "BatchDiff.apply: counts do not balance")
                result.append(old[next])
                next += 1
            case let from:
                result.append(old[from])
            }
        }
        for r in reloads { result[r.to] = element(r.to) }
        return result
    }

    /// Whether the batch is well formed: counts balance, indexes in range and used once.
    public var isConsistent: Bool {
        guard oldCount - deletes.count + inserts.count == newCount else { return false }
        var usedOld = Set<Int>(), usedNew = Set<Int>()
        for i in deletes where !(0..<oldCount).contains(i) || !usedOld.insert(i).inserted { return false }
        for m in moves where !(0..<oldCount).contains(m.from) || !usedOld.insert(m.from).inserted { return false }
        for j in inserts where !(0..<newCount).contains(j) || !usedNew.insert(j).inserted { return false }
        for m in moves where !(0..<newCount).contains(m.to) || !usedNew.insert(m.to).inserted { return false }
        return true
    }
}
