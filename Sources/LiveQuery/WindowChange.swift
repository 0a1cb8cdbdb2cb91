// What changed between two windows: the database's events, and the same change as a batch.
import JSONTree

/// One revision's change to a query's window: the Realtime Database's events in its order, and
/// the same change as a `BatchDiff` for list views.
///
/// Events come in the database's order — every `childRemoved` (old order), then `childAdded`,
/// `childMoved`, `childChanged` (each in new order), then one `value` — with its `prevKey`.
/// `childMoved` is sent for a child whose sort value changed (never with key order), and also
/// for the fewest other children needed so that replaying the events on the old rows (remove by
/// key; put an added or moved child right after `prevKey`, or first when nil; replace changed
/// values) gives the new rows exactly. The database's own stream does not always replay:
/// old {A:1, B:2}, new {A:1, B:0, C:0.5} by value gives `added C prev B`, `moved B prev null`,
/// which replays to [B, A, C]; here `moved C prev B` follows. A child added right after a moved
/// child is the only kind that needs such an extra move: children whose sort value did not
/// change keep their order relative to each other.
///
/// ```swift
/// var window = Window(query: query, path: try Path("/players"), document: firstDoc)
/// for event in WindowChange.initial(window).events { deliver(event) }   // child_added…, value
/// let change = window.advanced(to: nextDoc)                                // O(n) integer work
/// for event in change.events { deliver(event) }
/// window = change.new
/// ```
public struct WindowChange: Sendable {
    /// The window before; nil for a new listener.
    public let old: Window?
    /// The window after.
    public let new: Window
    /// The child events, in the database's order (without the final value event).
    public let childEvents: [ChildEvent]
    /// The change as one batch of row operations.
    public let batch: BatchDiff

    /// Whether the revision left the window as it was (no event is sent).
    public var isEmpty: Bool { old != nil && childEvents.isEmpty }

    /// The events to deliver: the child events, then `value` — nothing when the window did not change.
    public var events: [QueryEvent] { isEmpty ? [] : childEvents.map(QueryEvent.child) + [.value(new)] }

    /// What a new listener receives: `childAdded` for every row in order, then `value`.
    public static func initial(_ window: Window) -> WindowChange {
        var events = [ChildEvent]()
        events.reserveCapacity(window.count)
        var previous = -1
        for j in 0..<window.count {
            let o = window.ordinal(at: j)
            events.append(ChildEvent(.childAdded, window.children, o, previous: previous, index: j, fromIndex: nil))
            previous = o
        }
        let batch = BatchDiff(oldCount: 0, newCount: window.count, deletes: [], inserts: Array(0..<window.count), moves: [], reloads: [])
        return WindowChange(old: nil, new: window, childEvents: events, batch: batch)
    }

    /// The change between any two windows, matching rows by key and comparing values; `new`'s
    /// query decides which value changes are moves.
    /// - Complexity: O(rows) hashing of keys. `Window.advanced(to:)` is faster for successive revisions.
    public init(from old: Window, to new: Window) {
        var oldRowOfNew = [Int32](repeating: -1, count: new.count)
        var changed = [Bool](repeating: false, count: new.count)
        var table = OrdinalTable(capacity: old.count)
        for i in 0..<old.count {
            let h = old.withKeyBytes(at: i) { hashBytes($0) }
            _ = table.insert(Int32(i), hash: h) { _ in false }
        }
        old.document.withTapeReader { ot in
            new.document.withTapeReader { nt in
                for j in 0..<new.count {
                    let o = new.ordinal(at: j)
                    let h = new.withKeyBytes(at: j) { hashBytes($0) }
                    let found = table.find(hash: h) { i in
                        new.children.sameKey(o, nt, old.ordinal(at: Int(i)), of: old.children, ot)
                    }
                    if let i = found {
                        oldRowOfNew[j] = i
                        changed[j] = !new.children.sameValue(o, nt, old.ordinal(at: Int(i)), of: old.children, ot)
                    }
                }
            }
        }
        self.init(old: old, new: new, oldRowOfNew: oldRowOfNew, changed: changed)
    }

    /// The change between windows over two revisions whose children were matched.
    init(old: Window, new: Window, match: ChildMatch) {
        // Old rows by child ordinal: an array for large windows, a table for small ones.
        let dense = old.count * 8 >= old.children.count
        var rowOfOrdinal = dense ? [Int32](repeating: -1, count: old.children.count) : []
        var sparse = [Int32: Int32]()
        for i in 0..<old.count {
            if dense { rowOfOrdinal[old.ordinal(at: i)] = Int32(i) } else { sparse[Int32(old.ordinal(at: i))] = Int32(i) }
        }
        var oldRowOfNew = [Int32](repeating: -1, count: new.count)
        var changed = [Bool](repeating: false, count: new.count)
        for j in 0..<new.count {
            let n = new.ordinal(at: j)
            let o = match.oldOrdinal(ofNew: n)
            guard o >= 0 else { continue }
            let i = dense ? rowOfOrdinal[o] : (sparse[Int32(o)] ?? -1)
            oldRowOfNew[j] = i
            if i >= 0 { changed[j] = match.isChanged(new: n) }
        }
        self.init(old: old, new: new, oldRowOfNew: oldRowOfNew, changed: changed)
    }

    /// The change between windows whose members were carried over: for each new member, the
    /// index of the old member it was (-1 for none) and whether its value changed.
    init(old: Window, new: Window, previousMember: [Int32], changedMember: [Bool]) {
        if old.rows == 0..<old.members.count && new.rows == 0..<new.members.count {
            self.init(old: old, new: new, oldRowOfNew: previousMember, changed: changedMember)
            return
        }
        let offset = Int32(old.rows.lowerBound), oldRows = Int32(old.rows.count)
        var oldRowOfNew = [Int32](repeating: -1, count: new.count)
        var changed = [Bool](repeating: false, count: new.count)
        for j in 0..<new.count {
            let row = previousMember[new.rows.lowerBound + j] - offset
            if row >= 0 && row < oldRows && previousMember[new.rows.lowerBound + j] >= 0 {
                oldRowOfNew[j] = row
                changed[j] = changedMember[new.rows.lowerBound + j]
            }
        }
        self.init(old: old, new: new, oldRowOfNew: oldRowOfNew, changed: changed)
    }

    /// No change: the next revision left the window as it was.
    init(unchanged old: Window, next: Window) {
        self.init(old: old, new: next, childEvents: [], batch: BatchDiff(oldCount: old.count, newCount: next.count, deletes: [], inserts: [], moves: [], reloads: []))
    }

    /// Events and batch from rows matched old ↔ new.
    /// - Parameters:
    ///   - oldRowOfNew: for each new row, its old row, or -1 when it entered the window.
    ///   - changed: for each new row kept from the old window, whether its value changed.
    /// - Complexity: O(rows), plus O(log) per moved row for the batch.
    init(old: Window, new: Window, oldRowOfNew: [Int32], changed: [Bool]) {
        let r1 = old.count, r2 = new.count
        var kept = [Bool](repeating: false, count: r1)
        // Which kept children the database reports as moved (their sort value changed), and
        // whether the others kept their relative order (always, under one query).
        var sortMoved = [Bool](repeating: false, count: r2)
        var inOrder = true
        oldRowOfNew.withUnsafeBufferPointer { map in
            changed.withUnsafeBufferPointer { ch in
                kept.withUnsafeMutableBufferPointer { kp in
                    var last: Int32 = -1
                    for j in 0..<r2 {
                        let i = map[j]
                        guard i >= 0 else { continue }
                        kp[Int(i)] = true
                        if ch[j] && new.query.sortValueChanged(old.value(at: Int(i)), new.value(at: j)) {
                            sortMoved[j] = true
                        } else {
                            if i <= last { inOrder = false }
                            last = i
                        }
                    }
                }
            }
        }
        let stays = inOrder ? nil : staticRows(oldRowOfNew: oldRowOfNew, sortMoved: sortMoved)
        var removed = [ChildEvent](), added = [ChildEvent](), moved = [ChildEvent](), changes = [ChildEvent]()
        for i in 0..<r1 where !kept[i] {
            removed.append(ChildEvent(.childRemoved, old.children, old.ordinal(at: i), previous: -1, index: i, fromIndex: nil))
        }
        // Moved: a kept child that does not stay in place, and the fewest others (children
        // just added, or ones whose sort value did not change) without which replay would not
        // give the new window.
        var baseMoved = [Bool](repeating: false, count: r2)
        for j in 0..<r2 where oldRowOfNew[j] >= 0 { baseMoved[j] = stays == nil ? sortMoved[j] : !stays![j] }
        let movedRows = fewestMovesForReplay(oldCount: r1, oldRowOfNew: oldRowOfNew, baseMoved: baseMoved)
        new.members.withUnsafeBufferPointer { members in
            oldRowOfNew.withUnsafeBufferPointer { map in
                changed.withUnsafeBufferPointer { changed in
                    movedRows.withUnsafeBufferPointer { movedRows in
                        let rows = UnsafeBufferPointer(rebasing: members[new.rows])
                        for j in 0..<r2 {
                            let i = Int(map[j])
                            let isChanged = i >= 0 && changed[j]
                            let isMoved = movedRows[j]
                            guard i < 0 || isChanged || isMoved else { continue }
                            let n = Int(rows[j]), p = j > 0 ? Int(rows[j - 1]) : -1
                            if i < 0 { added.append(ChildEvent(.childAdded, new.children, n, previous: p, index: j, fromIndex: nil)) }
                            if isMoved { moved.append(ChildEvent(.childMoved, new.children, n, previous: p, index: j, fromIndex: i < 0 ? nil : i)) }
                            if isChanged { changes.append(ChildEvent(.childChanged, new.children, n, previous: p, index: j, fromIndex: i)) }
                        }
                    }
                }
            }
        }
        self.old = old
        self.new = new
        self.childEvents = removed + added + moved + changes
        self.batch = BatchDiff(oldCount: r1, oldIndexOfNew: oldRowOfNew, changed: changed, key: { new.key(at: $0) })
    }

    init(old: Window?, new: Window, childEvents: [ChildEvent], batch: BatchDiff) {
        self.old = old
        self.new = new
        self.childEvents = childEvents
        self.batch = batch
    }
}

/// Which new rows get a child_moved event: those in `baseMoved` (the database's moves), plus
/// the fewest others so that replaying the events on the old rows gives the new rows exactly.
///
/// Replay removes, then places each added child after its `prevKey` (new order), then
/// re-places each moved child after its `prevKey`. Moves re-place children exactly, so replay
/// is right if and only if the children that are not moved already stand in new order after
/// the adds. So: simulate the adds on a linked list, and keep unmoved a longest increasing
/// subsequence (by new row) of what is left; every other child needs a move.
/// - Complexity: O(rows), plus O(r log r) when r rows are out of order.
func fewestMovesForReplay(oldCount: Int, oldRowOfNew: [Int32], baseMoved: [Bool]) -> [Bool] {
    let n = oldRowOfNew.count
    // The new rows in replay order after removes and adds: a linked list over new rows.
    var next = [Int32](repeating: -1, count: n)
    var head: Int32 = -1
    var newRowOfOld = [Int32](repeating: -1, count: oldCount)
    for j in 0..<n where oldRowOfNew[j] >= 0 { newRowOfOld[Int(oldRowOfNew[j])] = Int32(j) }
    var tail: Int32 = -1
    for j in newRowOfOld where j >= 0 {
        if tail < 0 { head = j } else { next[Int(tail)] = j }
        tail = j
    }
    for j in 0..<n where oldRowOfNew[j] < 0 {
        if j == 0 {
            next[j] = head
            head = Int32(j)
        } else {
            next[j] = next[j - 1]
            next[j - 1] = Int32(j)
        }
    }
    var order = [Int32]()
    order.reserveCapacity(n)
    var k = head
    while k >= 0 {
        order.append(baseMoved[Int(k)] ? -1 : k)
        k = next[Int(k)]
    }
    var moved = baseMoved
    var last: Int32 = -1
    guard order.contains(where: { row in
        guard row >= 0 else { return false }
        defer { last = row }
        return row < last
    }) else { return moved }
    // Of the longest runs, keep the one with the most kept children: a child whose value
    // did not change should not be shown moving when a child just added can move instead.
    let weights = order.map { $0 >= 0 && oldRowOfNew[Int($0)] >= 0 ? n + 2 : n + 1 }
    let stay = heaviestIncreasingSubsequence(order, weights: weights, valueBound: n)
    for (position, row) in order.enumerated() where row >= 0 && !stay[position] { moved[Int(row)] = true }
    return moved
}

/// Marks a heaviest strictly increasing subsequence of the non-negative values (each below
/// `valueBound`; negative values are holes).
/// - Complexity: O(n log valueBound), with a Fenwick tree of best (weight, position) by value.
func heaviestIncreasingSubsequence(_ values: [Int32], weights: [Int], valueBound: Int) -> [Bool] {
    let n = values.count
    var tree = [(weight: Int, position: Int)](repeating: (0, -1), count: valueBound + 1)
    var previous = [Int](repeating: -1, count: n)
    var best = (weight: 0, position: -1)
    for p in 0..<n where values[p] >= 0 {
        let v = Int(values[p]) + 1
        var q = (weight: 0, position: -1)
        var x = v - 1
        while x > 0 {
            if tree[x].weight > q.weight { q = tree[x] }
            x -= x & -x
        }
        let here = (weight: q.weight + weights[p], position: p)
        previous[p] = q.position
        if here.weight > best.weight { best = here }
        x = v
        while x <= valueBound {
            if here.weight > tree[x].weight { tree[x] = here }
            x += x & -x
        }
    }
    var chosen = [Bool](repeating: false, count: n)
    var p = best.position
    while p >= 0 {
        chosen[p] = true
        p = previous[p]
    }
    return chosen
}

/// The kept rows that need no move event: rows whose sort value did not change, as many as
/// possible while keeping their old relative order.
///
/// Under one query such rows always keep their order and all of them stay (the caller checks that
/// in O(n) first). Between windows of different queries they may not: then the stayers are a heaviest increasing
/// subsequence of old rows, where a row weighs 1 plus the added rows right after it (those would
/// need a move too if it moved).
/// - Returns: for each new row, whether it is kept and stays.
/// - Complexity: O(n log n).
func staticRows(oldRowOfNew: [Int32], sortMoved: [Bool]) -> [Bool] {
    let n = oldRowOfNew.count
    var stays = [Bool](repeating: false, count: n)
    let candidates = (0..<n).filter { oldRowOfNew[$0] >= 0 && !sortMoved[$0] }
    // Heaviest increasing subsequence, with a Fenwick tree of (best weight, row) over old rows.
    let size = Int(oldRowOfNew.max() ?? 0) + 2
    var tree = [(weight: Int, row: Int)](repeating: (0, -1), count: size + 1)
    var previous = [Int](repeating: -1, count: n)
    var best = (weight: 0, row: -1)
    for j in candidates {
        var trailing = 0
        while j + 1 + trailing < n && oldRowOfNew[j + 1 + trailing] < 0 { trailing += 1 }
        let v = Int(oldRowOfNew[j]) + 1
        var q = (weight: 0, row: -1)
        var x = v - 1
        while x > 0 {
            if tree[x].weight > q.weight { q = tree[x] }
            x -= x & -x
        }
        let here = (weight: q.weight + 1 + trailing, row: j)
        previous[j] = q.row
        if here.weight > best.weight { best = here }
        x = v
        while x <= size {
            if here.weight > tree[x].weight { tree[x] = here }
            x += x & -x
        }
    }
    var j = best.row
    while j >= 0 {
        stays[j] = true
        j = previous[j]
    }
    return stays
}
