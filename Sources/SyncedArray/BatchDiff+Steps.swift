// A batch (old/new coordinates) as a sequence of single-row steps (each index relative to the
// array after the previous step), for per-event delegates.
import LiveQuery

/// One single-row operation on an array.
enum RowStep: Equatable {
    /// Remove the row at this index.
    case remove(Int)
    /// Take the row at `from` out, then put it at `to` (an index in the array without it).
    case move(from: Int, to: Int)
    /// Insert new row `index` at `index`.
    case insert(Int)
    /// Replace the row at `index` with new row `index`.
    case change(Int)
}

extension BatchDiff {
    /// For each new index, the old index of the row kept there, or -1 where a row was inserted.
    /// - Complexity: O(oldCount + newCount).
    func oldIndexOfNew() -> [Int] {
        var leaves = [Bool](repeating: false, count: oldCount)
        for i in deletes { leaves[i] = true }
        var result = [Int](repeating: -2, count: newCount)
        for j in inserts { result[j] = -1 }
        for m in moves {
            leaves[m.from] = true
            result[m.to] = m.from
        }
        var next = 0
        for j in 0..<newCount where result[j] == -2 {
            while next < oldCount && leaves[next] { next += 1 }
            result[j] = next
            next += 1
        }
        return result
    }

    /// The batch as single-row steps: removes (descending), the batch's moves, inserts
    /// (ascending), then changes (final indexes).
    ///
    /// Each mover, taken in order of its new index, goes right after its predecessor among the
    /// kept rows in the new order; the kept rows that do not move, and movers already placed,
    /// are always in their new relative order, so after the last move the kept rows are in new
    /// order, and inserting at ascending new indexes completes the new array.
    /// - Complexity: O(old + new) plus O(kept) per move.
    func steps() -> [RowStep] {
        var steps = [RowStep]()
        steps.reserveCapacity(deletes.count + moves.count + inserts.count + reloads.count)
        for i in deletes.reversed() { steps.append(.remove(i)) }
        if !moves.isEmpty {
            let oldOfNew = oldIndexOfNew()
            // The kept rows by old index, in old order (the array after the removes)…
            var deleted = [Bool](repeating: false, count: oldCount)
            for i in deletes { deleted[i] = true }
            var current = (0..<oldCount).filter { !deleted[$0] }
            // …and each kept row's predecessor among kept rows in new order.
            var predecessor = [Int](repeating: -1, count: oldCount)
            var previous = -1
            for j in 0..<newCount where oldOfNew[j] >= 0 {
                predecessor[oldOfNew[j]] = previous
                previous = oldOfNew[j]
            }
            for m in moves {
                let from = current.firstIndex(of: m.from)!
                current.remove(at: from)
                let p = predecessor[m.from]
                let to = p < 0 ? 0 : current.firstIndex(of: p)! + 1
                current.insert(m.from, at: to)
                steps.append(.move(from: from, to: to))
            }
        }
        for j in inserts { steps.append(.insert(j)) }
        for r in reloads { steps.append(.change(r.to)) }
        return steps
    }
}
