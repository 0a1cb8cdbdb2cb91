// A query's order and range applied to the children of one revision.
import JSONTree

/// A query prepared for evaluation: its ordering, and its range as two sort keys.
/// Lives as long as the arena its bytes are in.
struct QueryPlan {
    let ordering: Query.Ordering
    /// `orderByChild`'s path, as key bytes (and array index) per step.
    let childPath: [(key: UnsafeBufferPointer<UInt8>, arrayIndex: Int?)]
    let start: SortKey?
    let startInclusive: Bool
    let end: SortKey?
    let endInclusive: Bool
    let filters: [ChildFilter]
    /// `Query.valuesFirst()`: null ranks after objects (not for key or priority order).
    let nullRank: UInt8

    init(_ query: Query, arena: ByteArena) {
        ordering = query.ordering
        filters = query.filters
        switch query.ordering {
        case .child, .value, .computed: nullRank = query.hasValuesFirst ? ValueRank.afterValues : ValueRank.null
        case .key, .priority: nullRank = ValueRank.null
        }
        let nullRank = nullRank
        if case .child(let path) = query.ordering {
            childPath = path.keys.map { (arena.copy($0), arrayIndex($0)) }
        } else {
            childPath = []
        }
        let byKey = query.ordering == .key
        func boundKey(_ b: Query.Bound, missingKey: KeyRef) -> SortKey {
            if byKey {
                // With orderByKey the bound is a key (validated to be a string).
                return SortKey(rank: ValueRank.null, key: KeyRef(arena.copy(b.value.stringValue ?? "")))
            }
            let key = b.key.map { KeyRef(arena.copy($0)) } ?? missingKey
            switch b.value {
            case .bool(let v): return SortKey(rank: v ? ValueRank.true : ValueRank.false, key: key)
            case .number(let n): return SortKey(rank: ValueRank.number, number: n.double, key: key)
            case .string(let s): return SortKey(rank: ValueRank.string, string: arena.copy(s), key: key)
            case .null, .array, .object: return SortKey(rank: nullRank, key: key)
            }
        }
        switch query.start {
        case .at(let b)?:
            start = boundKey(b, missingKey: .lowest)
            startInclusive = true
        case .after(let b)?:
            // startAfter(v) without a key starts after the highest key: it excludes every child equal to v.
            start = boundKey(b, missingKey: .highest)
            startInclusive = false
        case nil:
            start = nil
            startInclusive = true
        }
        switch query.end {
        case .at(let b)?:
            end = boundKey(b, missingKey: .highest)
            endInclusive = true
        case .before(let b)?:
            end = boundKey(b, missingKey: .lowest)
            endInclusive = false
        case nil:
            end = nil
            endInclusive = true
        }
    }

    /// Child `ordinal`'s place in this query's order.
    /// - Complexity: O(1) for key, value and priority order (priority: O(members) of the child);
    ///   O(members along the path) for child order; one evaluation for a computed order.
    func sortKey(_ ordinal: Int, _ children: ChildList, _ tape: TapeReader, _ arena: ByteArena) -> SortKey {
        keyed(sortValue(ordinal, children, tape, arena), ordinal, children, tape, arena)
    }

    /// Sort value `value` of child `ordinal` (from `sortValue`) with the child's key: its sort key.
    @inline(__always)
    func keyed(_ value: SortKey, _ ordinal: Int, _ children: ChildList, _ tape: TapeReader, _ arena: ByteArena) -> SortKey {
        if case .key = ordering { return value }
        var k = value
        k.key = children.keyRef(ordinal, tape, arena)
        return k
    }

    /// Child `ordinal`'s sort value, without reading its key unless the order is by key: a
    /// `SortKey` whose key is `.lowest` otherwise. `compareValues` of two of these is that of
    /// their sort keys, and a limited window skips most children on it alone.
    func sortValue(_ ordinal: Int, _ children: ChildList, _ tape: TapeReader, _ arena: ByteArena) -> SortKey {
        var k = valueSortKey(ordinal, children, tape, arena)
        if k.rank == ValueRank.null { k.rank = nullRank }
        return k
    }

    private func valueSortKey(_ ordinal: Int, _ children: ChildList, _ tape: TapeReader, _ arena: ByteArena) -> SortKey {
        let value = children.valueIndex(ordinal)
        let key = KeyRef.lowest
        switch ordering {
        case .key:
            return SortKey(rank: ValueRank.null, key: children.keyRef(ordinal, tape, arena))
        case .value:
            return tape.sortKey(ofValue: value, key: key, arena: arena)
        case .child:
            var node: Int? = value
            for step in childPath {
                guard let n = node else { break }
                node = tape.child(of: n, named: step.key, arrayIndex: step.arrayIndex)
            }
            return tape.sortKey(ofValue: node, key: key, arena: arena)
        case .computed(let computed):
            return (computed.value(value, tape) ?? .null).sortKey(key: key, arena: arena)
        case .priority:
            let p = priorityKey.withUnsafeBufferPointer { tape.member(of: value, named: $0) }
            if let p, tape.firstByte(p) == UInt8(ascii: "\"") || tape.kind(p) == .number {
                return tape.sortKey(ofValue: p, key: key, arena: arena)
            }
            return SortKey(rank: ValueRank.null, key: key)
        }
    }

    /// Whether every filter keeps child `ordinal`.
    @inline(__always)
    func keeps(_ ordinal: Int, _ children: ChildList, _ tape: TapeReader) -> Bool {
        if filters.isEmpty { return true }
        let value = children.valueIndex(ordinal)
        for f in filters where !f.keeps(value, tape) { return false }
        return true
    }

    /// Whether a child at `k` is inside the query's range.
    func inRange(_ k: SortKey) -> Bool {
        if let start {
            let c = compareSortKeys(k, start)
            if c < 0 || (c == 0 && !startInclusive) { return false }
        }
        if let end {
            let c = compareSortKeys(k, end)
            if c > 0 || (c == 0 && !endInclusive) { return false }
        }
        return true
    }
}

private let priorityKey = Array(".priority".utf8)

extension Query {
    /// Whether a child whose value went from `old` to `new` changed its sort value, which makes
    /// the database send child_moved: never with key order; for value and child order, when the
    /// ordered value is not equal as JSON (even two objects, which sort as equal); for priority
    /// order, when the priority changed; for a computed order, when the computed value did.
    func sortValueChanged(_ old: JSONNode, _ new: JSONNode) -> Bool {
        func same(_ a: JSONNode?, _ b: JSONNode?) -> Bool {
            switch (a, b) {
            case let (a?, b?): return a.valueEquals(b)
            case let (a?, nil): return a.isNull
            case let (nil, b?): return b.isNull
            case (nil, nil): return true
            }
        }
        switch ordering {
        case .key: return false
        case .value: return !old.valueEquals(new)
        case .child(let path): return !same(old.node(at: path), new.node(at: path))
        case .priority: return !same(priority(of: old), priority(of: new))
        case .computed(let computed): return (computed.value(of: old) ?? .null) != (computed.value(of: new) ?? .null)
        }
    }
}

/// A child's priority: its `.priority` member when that is a number or a string.
func priority(of node: JSONNode) -> JSONNode? {
    guard node.kind == .object, let p = node[key: ".priority"], p.kind == .number || p.kind == .string else { return nil }
    return p
}
