// The slow, obviously correct reference: children, order, windows and replay, written from the
// design's rules with plain Swift collections (no code shared with LiveQuery).
import JSONTree
@testable import LiveQuery

/// A child as the reference sees it.
struct RefChild: Equatable {
    var key: String
    var value: JSON
    static func == (a: RefChild, b: RefChild) -> Bool { Array(a.key.utf8) == Array(b.key.utf8) && a.value == b.value }
}

/// The children of the node at `path`: object members without `.`-keys and nulls, array elements
/// without nulls keyed by index.
func refChildren(_ root: JSON, _ path: Path) -> [RefChild] {
    guard let node = root[path: path] else { return [] }
    switch node {
    case .object(let o):
        return o.members.filter { !$0.key.utf8.starts(with: [UInt8(ascii: ".")]) && !$0.value.isNull }
            .map { RefChild(key: $0.key, value: $0.value) }
    case .array(let a):
        return a.enumerated().filter { !$0.element.isNull }.map { RefChild(key: String($0.offset), value: $0.element) }
    default:
        return []
    }
}

func utf16Less(_ a: String, _ b: String) -> Bool { Array(a.utf16).lexicographicallyPrecedes(Array(b.utf16)) }
func utf16Cmp(_ a: String, _ b: String) -> Int {
    let x = Array(a.utf16), y = Array(b.utf16)
    return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
}

/// The integer value of an integer key, from the design's regex and the 32-bit range.
func refIntegerKey(_ k: String) -> Int? {
    var s = Substring(k)
    if s.first == "-" { s = s.dropFirst() }
    guard !s.isEmpty, s.unicodeScalars.allSatisfy({ $0.value >= 48 && $0.value <= 57 }) else { return nil }
    let significant = s.drop { $0 == "0" }
    guard significant.count <= 10 else { return nil }
    guard let v = Int(k), v >= Int(Int32.min), v <= Int(Int32.max) else { return nil }
    return v
}

func refNameCompare(_ a: String, _ b: String) -> Int {
    if Array(a.utf8) == Array(b.utf8) { return 0 }
    switch (refIntegerKey(a), refIntegerKey(b)) {
    case let (x?, y?):
        if x != y { return x < y ? -1 : 1 }
        if a.utf16.count != b.utf16.count { return a.utf16.count < b.utf16.count ? -1 : 1 }
        return utf16Cmp(a, b)
    case (_?, nil): return -1
    case (nil, _?): return 1
    case (nil, nil): return utf16Cmp(a, b)
    }
}

/// With `valuesFirst` (`Query.valuesFirst()`), missing and null rank after every value.
func refRank(_ v: JSON?, valuesFirst: Bool = false) -> Int {
    switch v {
    case nil, .null?: valuesFirst ? 6 : 0
    case .bool(false)?: 1
    case .bool(true)?: 2
    case .number?: 3
    case .string?: 4
    case .array?, .object?: 5
    }
}

func refValueCompare(_ a: JSON?, _ b: JSON?, valuesFirst: Bool = false) -> Int {
    let ra = refRank(a, valuesFirst: valuesFirst), rb = refRank(b, valuesFirst: valuesFirst)
    if ra != rb { return ra < rb ? -1 : 1 }
    switch (a, b) {
    case let (.number(x)?, .number(y)?): return x.double < y.double ? -1 : (x.double > y.double ? 1 : 0)
    case let (.string(x)?, .string(y)?): return utf16Cmp(x, y)
    default: return 0
    }
}

/// The value a child is ordered by (nil: missing).
func refSortValue(_ c: RefChild, _ ordering: Query.Ordering) -> JSON? {
    switch ordering {
    case .key: return nil
    case .value: return c.value
    case .child(let p): return c.value[path: p]
    case .computed(let v): return v.value(of: JSONDocument(c.value).root)
    case .priority:
        guard case .object(let o) = c.value, let p = o[".priority"] else { return nil }
        switch p {
        case .number, .string: return p
        default: return nil
        }
    }
}

enum RefKeyBound { case lowest, key(String), highest }

func refKeyCompare(_ a: String, _ b: RefKeyBound) -> Int {
    switch b {
    case .lowest: 1
    case .highest: -1
    case .key(let k): refNameCompare(a, k)
    }
}

/// Compares a child to a bound (value, key-or-sentinel).
func refCompareToBound(_ c: RefChild, _ ordering: Query.Ordering, _ value: JSON, _ key: RefKeyBound, valuesFirst: Bool = false) -> Int {
    if ordering == .key { return refNameCompare(c.key, value.stringValue!) }
    let v = refValueCompare(refSortValue(c, ordering), value, valuesFirst: valuesFirst)
    return v != 0 ? v : refKeyCompare(c.key, key)
}

/// The window by the book: every child, filtered by the bounds one by one, sorted, limited.
func refWindow(_ query: Query, _ root: JSON, _ path: Path) -> [RefChild] {
    let o = query.ordering
    // Null last only where a child's value orders it.
    let vf: Bool
    switch o {
    case .child, .value, .computed: vf = query.hasValuesFirst
    case .key, .priority: vf = false
    }
    var children = refChildren(root, path).filter { c in
        switch query.start {
        case .at(let b)?: if refCompareToBound(c, o, b.value, b.key.map { .key($0) } ?? .lowest, valuesFirst: vf) < 0 { return false }
        case .after(let b)?: if refCompareToBound(c, o, b.value, b.key.map { .key($0) } ?? .highest, valuesFirst: vf) <= 0 { return false }
        case nil: break
        }
        switch query.end {
        case .at(let b)?: if refCompareToBound(c, o, b.value, b.key.map { .key($0) } ?? .highest, valuesFirst: vf) > 0 { return false }
        case .before(let b)?: if refCompareToBound(c, o, b.value, b.key.map { .key($0) } ?? .lowest, valuesFirst: vf) >= 0 { return false }
        case nil: break
        }
        return true
    }
    // Each child's sort value read once (a computed one evaluates an expression).
    let ordered = children.map { (child: $0, value: refSortValue($0, o)) }.sorted { a, b in
        let v = refValueCompare(a.value, b.value, valuesFirst: vf)
        return v != 0 ? v < 0 : refNameCompare(a.child.key, b.child.key) < 0
    }
    children = ordered.map(\.child)
    switch query.limit {
    case .first(let n)?: return Array(children.prefix(n))
    case .last(let n)?: return Array(children.suffix(n))
    case nil: return children
    }
}

func rows(_ w: Window) -> [RefChild] { w.map { RefChild(key: $0.key, value: $0.value.json) } }

/// Replays child events on the old rows as the design says: remove by key; put added and moved
/// children right after `prevKey` (first when nil); replace changed values. Nil when an event
/// names a key that is not there.
func replay(_ events: [ChildEvent], on old: [RefChild]) -> [RefChild]? {
    var list = old
    func index(_ key: String) -> Int? { list.firstIndex { Array($0.key.utf8) == Array(key.utf8) } }
    func place(_ c: RefChild, after prev: String?) -> Bool {
        guard let prev else {
            list.insert(c, at: 0)
            return true
        }
        guard let i = index(prev) else { return false }
        list.insert(c, at: i + 1)
        return true
    }
    for e in events {
        let c = RefChild(key: e.key, value: e.value.json)
        switch e.kind {
        case .childRemoved:
            guard let i = index(e.key) else { return nil }
            list.remove(at: i)
        case .childAdded:
            guard index(e.key) == nil, place(c, after: e.prevKey) else { return nil }
        case .childMoved:
            guard let i = index(e.key) else { return nil }
            list.remove(at: i)
            guard place(c, after: e.prevKey) else { return nil }
        case .childChanged:
            guard let i = index(e.key) else { return nil }
            list[i] = c
        }
    }
    return list
}

/// The length of a longest increasing subsequence, by the O(n²) textbook recurrence.
func refLISLength(_ a: [Int]) -> Int {
    var best = [Int](repeating: 1, count: a.count)
    for i in a.indices {
        for j in 0..<i where a[j] < a[i] { best[i] = max(best[i], best[j] + 1) }
    }
    return best.max() ?? 0
}

/// Replays events by their replay indexes alone (no key lookups): remove at `index`, insert at
/// `index`, move from `fromIndex` to `index`, replace at `index`; nil when an index is out of
/// range or names another child.
func replayByIndex(_ events: [ChildEvent], _ indexes: [ReplayIndex], on old: [RefChild]) -> [RefChild]? {
    guard events.count == indexes.count else { return nil }
    var list = old
    for (e, at) in zip(events, indexes) {
        let c = RefChild(key: e.key, value: e.value.json)
        switch e.kind {
        case .childRemoved:
            guard list.indices.contains(at.index), Array(list[at.index].key.utf8) == Array(e.key.utf8) else { return nil }
            list.remove(at: at.index)
        case .childAdded:
            guard at.fromIndex == nil, (0...list.count).contains(at.index) else { return nil }
            list.insert(c, at: at.index)
        case .childMoved:
            guard let from = at.fromIndex, list.indices.contains(from), Array(list[from].key.utf8) == Array(e.key.utf8) else { return nil }
            list.remove(at: from)
            guard (0...list.count).contains(at.index) else { return nil }
            list.insert(c, at: at.index)
        case .childChanged:
            guard list.indices.contains(at.index), Array(list[at.index].key.utf8) == Array(e.key.utf8) else { return nil }
            list[at.index] = c
        }
    }
    return list
}
