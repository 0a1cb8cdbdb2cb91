// Evaluating a query over one revision from scratch.
import EngineMemory
import JSONTree

/// A child in range with its place in the order, while a window is being computed.
struct Entry {
    var key: SortKey
    var ordinal: Int32
}

@inline(__always)
func entryLess(_ a: Entry, _ b: Entry) -> Bool { compareSortKeys(a.key, b.key) < 0 }

/// How many children beyond its limit a limited window keeps in order, so that rows leaving
/// the window are refilled without re-reading every child.
func reserve(forLimit k: Int) -> Int { min(max(k, 16), 1024) }

/// The number of members a limited window keeps after a full evaluation.
func keptMembers(forLimit k: Int) -> Int { k > Int.max / 4 ? Int.max / 2 : k + reserve(forLimit: k) }

extension Window {
    /// Evaluates `query` over the children at `path` in `document`.
    ///
    /// A path that does not exist, or names a leaf, gives an empty window.
    /// - Complexity: O(n + k log k) for a limit of k over n children (a selection, then a sort
    ///   of what it selected); O(n log n) without a limit, O(n) when file order is query order.
    public init(query: Query, path: Path = .root, document: JSONDocument) {
        self = Window.evaluate(query, path, ChildList(document: document, path: path))
    }

    /// Evaluates `query` over `children`, reading every child; a list of `splitFrom` children or
    /// more by two threads, a half each (by default none plain, `splitEvaluationCount` tuned).
    static func evaluate(_ query: Query, _ path: Path, _ children: ChildList, splitFrom: Int = splitCount(.current)) -> Window {
        var members = MemberList([])
        var boundary: StoredSortKey?
        children.document.withTapeReader { tape in
            let arena = ByteArena()
            let plan = QueryPlan(query, arena: arena)
            if let inOrder = fileOrderMembers(query, plan, children, tape, arena) {
                (members, boundary) = inOrder
                return
            }
            let n = children.count
            // An arena is one thread's: the second half's sort keys point into one of its own
            // (or into the document). Both arenas live until the keys are copied out below.
            let secondArena = ByteArena()
            withExtendedLifetime((arena, secondArena)) {
                var selection: Selection
                if n >= Swift.max(2, splitFrom) {
                    let second = ThreadWork { Selection(query, plan, children, tape, secondArena, ordinals: n / 2..<n) }
                    selection = Selection(query, plan, children, tape, arena, ordinals: 0..<n / 2)
                    selection.add(second.join())
                } else {
                    selection = Selection(query, plan, children, tape, arena, ordinals: 0..<n)
                }
                var entries = selection.entries
                if let limit = query.limit, case let keep = keptMembers(forLimit: limit.count), entries.count > keep || selection.pruned {
                    keepBest(&entries, keep, of: limit)
                    sortEntries(&entries)
                    switch limit {
                    case .first: boundary = StoredSortKey(entries[entries.count - 1].key)
                    case .last: boundary = StoredSortKey(entries[0].key)
                    }
                } else {
                    sortEntries(&entries)
                }
                members = MemberList(entries.map(\.ordinal))
            }
        }
        return Window(query: query, path: path, children: children, members: members, boundary: boundary)
    }
}

/// Lists of at least this many children are evaluated by two threads: reading a sort key per
/// child is most of a large list's evaluation (90 ms for 1,000,000 children), and a thread
/// costs tens of microseconds.
let splitEvaluationCount = 1 << 16

/// The least children a list or its evaluation is split over two threads from, with `tuning`:
/// never plain.
func splitCount(_ tuning: EngineTuning) -> Int { tuning.secondThread ? splitEvaluationCount : .max }

/// The children in range among a run of ordinals, with their sort keys, in ordinal order; for a
/// limited query, at least its best `keptMembers` of them (when more were read, `pruned`).
private struct Selection {
    var entries = [Entry]()
    var pruned = false

    init(_ query: Query, _ plan: QueryPlan, _ children: ChildList, _ tape: TapeReader, _ arena: ByteArena, ordinals: Range<Int>) {
        // A limited window needs only its `keep` best children: whenever twice as many are
        // held, the rest are dropped (a sort key per child of millions would cost far more
        // than the file).
        let keep = query.limit.map { keptMembers(forLimit: $0.count) }
        let pruneAt = keep.map { $0 > Int.max / 4 ? Int.max : Swift.max(2 * $0, 1024) } ?? Int.max
        entries.reserveCapacity(Swift.min(ordinals.count, pruneAt))
        // Once pruned, the worst key kept: a child that would come after it (the order is
        // total: keys break ties) can never be among the best, and is not held at all.
        var cut: SortKey?
        let cutSide = query.limit.map { if case .first = $0 { 1 } else { -1 } } ?? 0
        for o in ordinals {
            // The value first: most children of a long list fall beyond the cut by value alone,
            // and their keys are never read.
            let value = plan.sortValue(o, children, tape, arena)
            if let cut, compareValues(value, cut) * cutSide > 0 { continue }
            let k = plan.keyed(value, o, children, tape, arena)
            guard plan.inRange(k), plan.keeps(o, children, tape) else { continue }
            if let cut, compareSortKeys(k, cut) * cutSide > 0 { continue }
            entries.append(Entry(key: k, ordinal: Int32(o)))
            if entries.count >= pruneAt, let limit = query.limit, let keep {
                keepBest(&entries, keep, of: limit)
                pruned = true
                cut = entries.reduce(entries[0].key) { compareSortKeys($1.key, $0) * cutSide > 0 ? $1.key : $0 }
            }
        }
    }

    /// Adds the selection of the ordinals after these.
    mutating func add(_ later: Selection) {
        entries += later.entries
        pruned = pruned || later.pruned
    }
}

/// The members and boundary `evaluate` computes, when every child is in range and file order
/// is query order (an array by key, a file kept sorted): found in one pass that keeps only the
/// previous sort key, where sorting would hold a sort key per child (tens of bytes each).
/// nil as soon as a child is out of range or out of order, and for a filtered query.
/// - Complexity: O(n), reading children up to the first one out of range or order.
private func fileOrderMembers(
    _ query: Query, _ plan: QueryPlan, _ children: ChildList, _ tape: TapeReader, _ arena: ByteArena
) -> (members: MemberList, boundary: StoredSortKey?)? {
    guard query.filters.isEmpty else { return nil }
    let n = children.count
    var previous: SortKey?
    for o in 0..<n {
        let k = plan.sortKey(o, children, tape, arena)
        guard plan.inRange(k) else { return nil }
        if let previous, compareSortKeys(previous, k) >= 0 { return nil }
        previous = k
    }
    guard let limit = query.limit, case let keep = keptMembers(forLimit: limit.count), n > keep else {
        return (MemberList(consecutive: 0..<Int32(n)), nil)
    }
    switch limit {
    case .first:
        return (MemberList(consecutive: 0..<Int32(keep)), StoredSortKey(plan.sortKey(keep - 1, children, tape, arena)))
    case .last:
        return (MemberList(consecutive: Int32(n - keep)..<Int32(n)), StoredSortKey(plan.sortKey(n - keep, children, tape, arena)))
    }
}

/// Keeps the `keep` entries a limit selects (the smallest for limitToFirst, the largest for
/// limitToLast), in no particular order.
private func keepBest(_ entries: inout [Entry], _ keep: Int, of limit: Query.Limit) {
    guard entries.count > keep else { return }
    switch limit {
    case .first:
        partitionSmallest(&entries, keep, by: entryLess)
        entries.removeLast(entries.count - keep)
    case .last:
        partitionSmallest(&entries, entries.count - keep, by: entryLess)
        entries.removeFirst(entries.count - keep)
    }
}

/// Sorts entries in query order, skipping the sort when they already are (a file kept in key
/// order, a collection of push ids).
/// - Complexity: O(n) when sorted, else O(n log n).
func sortEntries(_ entries: inout [Entry]) {
    var sorted = true
    for i in entries.indices.dropFirst() where !entryLess(entries[i - 1], entries[i]) {
        sorted = false
        break
    }
    if !sorted { entries.sort(by: entryLess) }
}
