// The Realtime Database's events: what a listener is told about one revision.
import JSONTree

/// One child event of a query listener, as the Realtime Database sends it.
///
/// `index` is the row in the new window (the old window for `childRemoved`); `prevKey` is the
/// key of the row just before this child in the new window, nil when it is first (and for
/// `childRemoved`). Keys and values are read on demand from the revision.
public struct ChildEvent: Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case childRemoved = "child_removed"
        case childAdded = "child_added"
        case childMoved = "child_moved"
        case childChanged = "child_changed"
    }

    public let kind: Kind
    /// The row index in the new window; in the old window for `childRemoved`.
    public let index: Int
    /// The row index in the old window, for `childMoved` and `childChanged`; nil for a child
    /// added in the same revision (and for `childAdded` and `childRemoved`).
    public let fromIndex: Int?
    let children: ChildList
    let ordinal: Int32
    /// The ordinal of the previous row in the new window (in `children`), or -1.
    let previous: Int32

    init(_ kind: Kind, _ children: ChildList, _ ordinal: Int, previous: Int, index: Int, fromIndex: Int?) {
        self.kind = kind
        self.children = children
        self.ordinal = Int32(ordinal)
        self.previous = Int32(previous)
        self.index = index
        self.fromIndex = fromIndex
    }

    /// The child's key.
    public var key: String { children.key(Int(ordinal)) }
    /// The child's value: the new value, or the last value for `childRemoved`.
    public var value: JSONNode { children.value(Int(ordinal)) }
    /// The key of the row before the child in the new window; nil when it is first.
    public var prevKey: String? { previous >= 0 ? children.key(Int(previous)) : nil }

    /// Calls `body` with the UTF-8 bytes of the child's key.
    public func withKeyBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try children.withKeyBytes(Int(ordinal), body)
    }

    public var description: String {
        "\(kind.rawValue) \(key)" + (kind == .childRemoved ? "" : " prev \(prevKey ?? "null")") + " @\(index)"
            + (fromIndex.map { " from \($0)" } ?? "")
    }
}

/// An event of a query listener: a child event, or the value event that ends a revision's events.
public enum QueryEvent: Sendable {
    case child(ChildEvent)
    /// The window after the revision.
    case value(Window)

    /// The database's name for the event (`child_added`, …, `value`).
    public var name: String {
        switch self {
        case .child(let e): e.kind.rawValue
        case .value: "value"
        }
    }
}
