// The events' indexes in the list as a consumer replays them, one event after another.

/// Where one child event applies in the list as replayed so far.
public struct ReplayIndex: Sendable, Equatable {
    /// removed: the row removed; added: where the child is inserted; moved: where it is
    /// inserted after being taken out; changed: the row replaced.
    public let index: Int
    /// moved: the row the child is taken out of (before it is inserted at `index`).
    public let fromIndex: Int?
}

extension WindowChange {
    /// The index (and for `childMoved` the `fromIndex`) of each child event in the list as
    /// replayed so far: starting from the old window's rows and applying the events in order, a
    /// consumer that removes at `index`, inserts at `index`, moves from `fromIndex` to `index`
    /// and replaces at `index` — by index alone, without looking up keys — ends with the new
    /// window's rows. A child moved in the revision that added it has a `fromIndex` too.
    ///
    /// Aligned with `childEvents`. For a new listener (no old window) every child is added at
    /// its row.
    /// - Complexity: O(e log e) for e events, whatever the size of the window: no key is read.
    public var replayIndexes: [ReplayIndex] {
        guard old != nil else { return childEvents.map { ReplayIndex(index: $0.index, fromIndex: nil) } }
        return IndexReplay(childEvents).indexes
    }
}

/// Replays one revision's events on positions rather than keys.
///
/// After the removals the list is the old rows that stay, in old order (the *base*, where a
/// row's place is its old row less the removed rows before it). Every child added or moved
/// is then put in a *slot* right after another child, which stands in the base or in a slot.
/// A slot belongs to the gap after one base row (or the gap at the front) and keeps its
/// place among that gap's slots, so all slots ever made have one order, known once the
/// events have been read; a child's index is then the base rows still there before it plus
/// the slots filled before it — two Fenwick trees, over the moved base rows and the slots.
///
/// Which child stands before an added or moved one (its `prevKey`) comes from its new row:
/// the child added at that row, a kept child with an event (its `fromIndex`), or else a kept
/// child that does not move; those keep their base order (what makes replay exact), so the
/// k-th of them in new order is the k-th base row that is not moved.
private struct IndexReplay {
    /// Where a child stands: a base row, or a slot.
    enum Place {
        case front
        case base(Int)
        case slot(Int)
    }

    let indexes: [ReplayIndex]

    init(_ events: [ChildEvent]) {
        var removed = [Int](), addedRows = [Int](), movedKeptRows = [Int]()
        var oldRowOfNew = [Int: Int]()
        for event in events {
            switch event.kind {
            case .childRemoved: removed.append(event.index)
            case .childAdded: addedRows.append(event.index)
            case .childMoved:
                if let from = event.fromIndex {
                    movedKeptRows.append(event.index)
                    oldRowOfNew[event.index] = from
                }
            case .childChanged:
                if let from = event.fromIndex { oldRowOfNew[event.index] = from }
            }
        }
        // Events of one kind come in row order; sorting keeps the binary searches right regardless.
        removed.sort()
        addedRows.sort()
        movedKeptRows.sort()
        func basePlace(ofOldRow row: Int) -> Int { row - countBelow(removed, row) }
        let movedBase = movedKeptRows.map { basePlace(ofOldRow: oldRowOfNew[$0]!) }.sorted()

        // A child by its new row: -1 - k for the k-th added child, else its base place.
        func child(atNewRow row: Int) -> Int {
            let k = countBelow(addedRows, row)
            if k < addedRows.count && addedRows[k] == row { return -1 - k }
            if let old = oldRowOfNew[row] { return basePlace(ofOldRow: old) }
            return nthAbsent(row - k - countBelow(movedKeptRows, row), from: movedBase)
        }

        // First pass: the slots, their gaps and order within a gap, and where each event acts.
        var gap = [Int](), next = [Int]()
        var gapHead = [Int: Int]()
        var slotOfChild = [Int: Int]()
        func place(of child: Int) -> Place { slotOfChild[child].map(Place.slot) ?? .base(child) }
        func newSlot(after anchor: Place) -> Int {
            let s = gap.count
            switch anchor {
            case .front, .base:
                let g: Int
                if case .base(let p) = anchor { g = p } else { g = -1 }
                gap.append(g)
                next.append(gapHead[g] ?? -1)
                gapHead[g] = s
            case .slot(let t):
                gap.append(gap[t])
                next.append(next[t])
                next[t] = s
            }
            return s
        }
        var from = [Place](repeating: .front, count: events.count)
        var to = [Int](repeating: -1, count: events.count)
        for (e, event) in events.enumerated() {
            guard event.kind != .childRemoved else { continue }
            let c = child(atNewRow: event.index)
            if event.kind == .childChanged {
                from[e] = place(of: c)
                continue
            }
            if event.kind == .childMoved { from[e] = place(of: c) }
            let anchor = event.index == 0 ? Place.front : place(of: child(atNewRow: event.index - 1))
            let s = newSlot(after: anchor)
            slotOfChild[c] = s
            to[e] = s
        }
        // The slots' order: by gap, then along each gap's list.
        var rank = [Int](repeating: 0, count: gap.count)
        let gaps = gapHead.keys.sorted()
        var firstRankOfGap = [Int]()
        firstRankOfGap.reserveCapacity(gaps.count)
        var r = 0
        for g in gaps {
            firstRankOfGap.append(r)
            var s = gapHead[g]!
            while s >= 0 {
                rank[s] = r
                r += 1
                s = next[s]
            }
        }

        // Second pass: the indexes.
        var filled = FenwickCounts(count: gap.count)
        var vacated = FenwickCounts(count: movedBase.count)
        func index(_ place: Place) -> Int {
            switch place {
            case .front: return 0
            case .base(let p):
                // The slots before a base row are those of the gaps before it.
                let k = countBelow(gaps, p)
                let slotsBefore = k < gaps.count ? firstRankOfGap[k] : gap.count
                return p - vacated.prefix(countBelow(movedBase, p)) + filled.prefix(slotsBefore)
            case .slot(let s):
                let g = gap[s]
                return g + 1 - vacated.prefix(countBelow(movedBase, g + 1)) + filled.prefix(rank[s])
            }
        }
        var out = [ReplayIndex]()
        out.reserveCapacity(events.count)
        var removedSoFar = 0
        for (e, event) in events.enumerated() {
            switch event.kind {
            case .childRemoved:
                out.append(ReplayIndex(index: event.index - removedSoFar, fromIndex: nil))
                removedSoFar += 1
            case .childAdded:
                filled.add(rank[to[e]], 1)
                out.append(ReplayIndex(index: index(.slot(to[e])), fromIndex: nil))
            case .childMoved:
                let fromIndex = index(from[e])
                switch from[e] {
                case .base(let p): vacated.add(countBelow(movedBase, p), 1)
                case .slot(let t): filled.add(rank[t], -1)
                case .front: break
                }
                filled.add(rank[to[e]], 1)
                out.append(ReplayIndex(index: index(.slot(to[e])), fromIndex: fromIndex))
            case .childChanged:
                out.append(ReplayIndex(index: index(from[e]), fromIndex: nil))
            }
        }
        indexes = out
    }
}

/// How many of `sorted` (ascending) are below `x`.
private func countBelow(_ sorted: [Int], _ x: Int) -> Int {
    var lo = 0, hi = sorted.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if sorted[mid] < x { lo = mid + 1 } else { hi = mid }
    }
    return lo
}

/// The `t`-th (0-based) non-negative integer not in `sorted` (ascending, distinct).
/// - Complexity: O(log n): `sorted[i] - i` (the absent integers below `sorted[i]`) never decreases.
private func nthAbsent(_ t: Int, from sorted: [Int]) -> Int {
    var lo = 0, hi = sorted.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if sorted[mid] - mid <= t { lo = mid + 1 } else { hi = mid }
    }
    return t + lo
}

/// Counts at positions, with prefix sums, in O(log n) each.
private struct FenwickCounts {
    private var tree: [Int]

    init(count: Int) { tree = [Int](repeating: 0, count: count + 1) }

    mutating func add(_ position: Int, _ delta: Int) {
        var i = position + 1
        while i < tree.count {
            tree[i] += delta
            i += i & -i
        }
    }

    /// The sum over positions below `end`.
    func prefix(_ end: Int) -> Int {
        var i = end, sum = 0
        while i > 0 {
            sum += tree[i]
            i -= i & -i
        }
        return sum
    }
}
