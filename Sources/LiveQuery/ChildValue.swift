// A value computed from each child: how an expression orders a query's children.
import JSONTree

/// A value computed from a child's value, which a query can order by (`orderByComputed`): an
/// expression such as `.score / .level`. It orders as `orderByChild` orders values (null < false
/// < true < numbers < strings < objects), ties by key; a child it has no value for (no result,
/// or an error) sorts as null.
///
/// As with `ChildFilter`, the engine knows only the closure; the `Expressions` module supplies it.
public struct ChildValue: Sendable, Equatable {
    /// The value as written: two values with the same text are the same value.
    public let text: String
    /// The value for the child whose value is tape node `value`; nil for none. It must depend on
    /// that value alone (the engine re-evaluates only children whose bytes changed) and may be
    /// called from several threads at once.
    public let value: @Sendable (_ value: Int, _ tape: TapeReader) -> JSON?

    public init(text: String, value: @escaping @Sendable (_ value: Int, _ tape: TapeReader) -> JSON?) {
        self.text = text
        self.value = value
    }

    public static func == (a: ChildValue, b: ChildValue) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

    /// The value for `node` (nil when there is none).
    func value(of node: JSONNode) -> JSON? {
        node.document.withTapeReader { value(node.index, $0) }
    }
}

extension JSON {
    /// This value's place in value order, with `key`; string bytes are copied into `arena`.
    func sortKey(key: KeyRef, arena: ByteArena) -> SortKey {
        switch self {
        case .null: SortKey(rank: ValueRank.null, key: key)
        case .bool(let b): SortKey(rank: b ? ValueRank.true : ValueRank.false, key: key)
        case .number(let n): SortKey(rank: ValueRank.number, number: n.double, key: key)
        case .string(let s): SortKey(rank: ValueRank.string, string: arena.copy(s), key: key)
        case .array, .object: SortKey(rank: ValueRank.object, key: key)
        }
    }
}
