// Events and batch of an unlimited window from its member patch: work in the size of the change.

extension WindowChange {
    /// The change between two unlimited windows (rows are all members) of one query, from the
    /// patch that made the new members from the old: O(changes · log n) instead of O(rows).
    ///
    /// Under one query, kept members whose sort value did not change keep their order, so the
    /// only moves the database sends are for re-sorted members, kept members whose sort value
    /// changed as JSON but not in order (two objects), and added members right after a moved one.
    init(old: Window, new: Window, patch: MemberPatch) {
        guard let batch = BatchDiff(oldCount: old.count, newCount: new.count, patch: patch, key: { new.key(at: $0) }) else {
            // Too many re-sorted members for the sparse batch: go through every row.
            let (previous, changed) = patch.expanded(newCount: new.count)
            self.init(old: old, new: new, oldRowOfNew: previous, changed: changed)
            return
        }
        var removed = [ChildEvent](), added = [ChildEvent](), moved = [ChildEvent](), changes = [ChildEvent]()
        for i in patch.removed {
            removed.append(ChildEvent(.childRemoved, old.children, old.ordinal(at: Int(i)), previous: -1, index: Int(i), fromIndex: nil))
        }
        // Arrivals and changed kept members, in new order.
        var a = 0, c = 0
        var movedAt = -2
        while a < patch.arrivals.count || c < patch.changedKept.count {
            let takeArrival = c == patch.changedKept.count
                || (a < patch.arrivals.count && patch.arrivals[a].at < patch.changedKept[c].at)
            let (at, previous) = takeArrival ? patch.arrivals[a] : patch.changedKept[c]
            if takeArrival { a += 1 } else { c += 1 }
            let j = Int(at), i = Int(previous)
            let n = new.ordinal(at: j), p = j > 0 ? new.ordinal(at: j - 1) : -1
            let isMoved: Bool
            if i < 0 {
                if movedAt == j - 1 {
                    // Added right after a moved child: whether it needs a move too (and which
                    // is the fewest set of moves) depends on every row.
                    let (previous, changed) = patch.expanded(newCount: new.count)
                    self.init(old: old, new: new, oldRowOfNew: previous, changed: changed)
                    return
                }
                added.append(ChildEvent(.childAdded, new.children, n, previous: p, index: j, fromIndex: nil))
                isMoved = false
            } else {
                isMoved = takeArrival || new.query.sortValueChanged(old.value(at: i), new.value(at: j))
                changes.append(ChildEvent(.childChanged, new.children, n, previous: p, index: j, fromIndex: i))
            }
            if isMoved {
                moved.append(ChildEvent(.childMoved, new.children, n, previous: p, index: j, fromIndex: i < 0 ? nil : i))
                movedAt = j
            }
        }
        self.init(old: old, new: new, childEvents: removed + added + moved + changes, batch: batch)
    }
}

extension BatchDiff {
    /// The batch from a member patch; nil when too many members were re-sorted for the sparse
    /// computation of moves (then compute it from every row).
    ///
    /// Moves: the kept rows are the rows kept in place (`statics`, increasing in both old and new
    /// order) and the re-sorted ones. Keeping a re-sorted row r in place costs the statics
    /// between its old and new places in static order — an interval I_r. A longest increasing
    /// subsequence is a chain of re-sorted rows (increasing in both orders) with every static
    /// outside the union of their intervals; along a chain the intervals' ends increase, so the
    /// union grows by what each interval adds past the previous one: a DP over pairs.
    /// - Complexity: O(r² + r log n + moves) for r re-sorted rows.
    init?(oldCount: Int, newCount: Int, patch: MemberPatch, key: (Int) -> String) {
        let resorted = patch.arrivals.enumerated().filter { $0.element.previous >= 0 }
        guard resorted.count <= 1500 else { return nil }
        let removed = patch.removed
        let inserts = patch.arrivals.filter { $0.previous < 0 }.map { Int($0.at) }
        var reloads = [Reload]()
        var a = 0, c = 0
        while a < patch.arrivals.count || c < patch.changedKept.count {
            let takeArrival = c == patch.changedKept.count
                || (a < patch.arrivals.count && patch.arrivals[a].at < patch.changedKept[c].at)
            let (at, previous) = takeArrival ? patch.arrivals[a] : patch.changedKept[c]
            if takeArrival { a += 1 } else { c += 1 }
            if previous >= 0 { reloads.append(Reload(key: key(Int(at)), from: Int(previous), to: Int(at))) }
        }
        // Each re-sorted row's interval of statics: [min(a, b), max(a, b)), where a counts the
        // statics before its new place and b those before its old place.
        let count = resorted.count
        var left = [Int](repeating: 0, count: count), right = [Int](repeating: 0, count: count)
        for (k, r) in resorted.enumerated() {
            let before = Int(r.element.at) - r.offset  // arrivals before it are not statics
            let old = Int(r.element.previous) - countLess(patch.dropped, r.element.previous)
            left[k] = min(before, old)
            right[k] = max(before, old)
        }
        // best[k]: the most (rows kept − statics lost) of a chain ending at k.
        var best = [Int](repeating: 0, count: count), parent = [Int](repeating: -1, count: count)
        var top = 0, end = -1
        for k in 0..<count {
            best[k] = 1 - (right[k] - left[k])
            for j in 0..<k where resorted[j].element.previous < resorted[k].element.previous {
                let gain = best[j] + 1 - max(0, right[k] - max(left[k], right[j]))
                if gain > best[k] {
                    best[k] = gain
                    parent[k] = j
                }
            }
            if best[k] > top {
                top = best[k]
                end = k
            }
        }
        var inChain = [Bool](repeating: false, count: count)
        var lost = [Range<Int>]()  // statics given up, by static rank
        var k = end
        while k >= 0 {
            inChain[k] = true
            let j = parent[k]
            let from = j >= 0 ? max(left[k], right[j]) : left[k]
            if from < right[k] { lost.append(from..<right[k]) }
            k = j
        }
        var moves = [Move]()
        for (k, r) in resorted.enumerated() where !inChain[k] {
            moves.append(Move(from: Int(r.element.previous), to: Int(r.element.at)))
        }
        // A static of rank t is the t-th old member not dropped, and the t-th new member not arriving.
        let arrivalsAt = patch.arrivals.map(\.at)
        for range in lost {
            var old = nthAbsent(range.lowerBound, from: patch.dropped)
            var new = nthAbsent(range.lowerBound, from: arrivalsAt)
            var d = countLess(patch.dropped, Int32(old)), n = countLess(arrivalsAt, Int32(new))
            for _ in range {
                while d < patch.dropped.count && Int(patch.dropped[d]) < old { d += 1 }
                while d < patch.dropped.count && Int(patch.dropped[d]) == old {
                    old += 1
                    d += 1
                }
                while n < arrivalsAt.count && Int(arrivalsAt[n]) < new { n += 1 }
                while n < arrivalsAt.count && Int(arrivalsAt[n]) == new {
                    new += 1
                    n += 1
                }
                moves.append(Move(from: old, to: new))
                old += 1
                new += 1
            }
        }
        moves.sort { $0.to < $1.to }
        self.init(
            oldCount: oldCount, newCount: newCount, deletes: removed.map(Int.init), inserts: inserts, moves: moves,
            reloads: reloads)
    }
}

/// The `t`-th (0-based) non-negative integer not in `sorted` (ascending, distinct).
/// - Complexity: O(log² n).
func nthAbsent(_ t: Int, from sorted: [Int32]) -> Int {
    // The smallest x with at least t + 1 absent integers in 0...x.
    var lo = t, hi = t + sorted.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if mid + 1 - countLess(sorted, Int32(mid + 1)) >= t + 1 { hi = mid } else { lo = mid + 1 }
    }
    return lo
}
