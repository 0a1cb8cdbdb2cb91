// How a window's members changed from one revision to the next, in O(changes) space.

/// The difference between an old and a new member list when the new one was made from the old
/// one: kept members in their old order, minus `dropped`, with `arrivals` inserted. Everything
/// not listed is a kept, unchanged member, so a window of a million children that gained one
/// member is described by a couple of entries.
struct MemberPatch {
    /// Old member indexes that are not kept in place (left the location or the range, or were
    /// re-sorted — a re-sorted member that is still a member is also an arrival), ascending.
    var dropped: [Int32] = []
    /// New member indexes of arrivals, ascending, with the old member index each was, or -1.
    var arrivals: [(at: Int32, previous: Int32)] = []
    /// New member indexes of kept members whose value changed (but not their sort value),
    /// ascending, with their old member index.
    var changedKept: [(at: Int32, previous: Int32)] = []

    /// For each new member, the old member index it was (-1 for none) and whether its value changed.
    /// - Complexity: O(new members + patch).
    func expanded(newCount: Int) -> (previous: [Int32], changed: [Bool]) {
        var previous = [Int32](repeating: -1, count: newCount)
        var changed = [Bool](repeating: false, count: newCount)
        var a = 0, c = 0, d = 0
        var old: Int32 = 0
        for j in 0..<newCount {
            if a < arrivals.count && Int(arrivals[a].at) == j {
                previous[j] = arrivals[a].previous
                changed[j] = true
                a += 1
                continue
            }
            // The next kept old member: skip the dropped ones.
            while d < dropped.count && dropped[d] == old {
                d += 1
                old += 1
            }
            previous[j] = old
            old += 1
            if c < changedKept.count && Int(changedKept[c].at) == j {
                changed[j] = true
                c += 1
            }
        }
        return (previous, changed)
    }

    /// The re-sorted members: arrivals that were members before.
    var resorted: [(at: Int32, previous: Int32)] { arrivals.filter { $0.previous >= 0 } }

    /// Dropped old members that are not members any more, ascending.
    var removed: [Int32] {
        let stayed = Set(arrivals.lazy.filter { $0.previous >= 0 }.map(\.previous))
        return stayed.isEmpty ? dropped : dropped.filter { !stayed.contains($0) }
    }
}

/// The number of values in `sorted` (ascending) that are less than `x`.
func countLess(_ sorted: [Int32], _ x: Int32) -> Int {
    var lo = 0, hi = sorted.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if sorted[mid] < x { lo = mid + 1 } else { hi = mid }
    }
    return lo
}
