// Per-second rates of numeric columns between two revisions: the differences divided by the time
// between them, a counter that went down a reset.
import JSONTree

/// A rate column: the children of `location`, the numeric field `column` inside each.
public struct RateColumn: Sendable, Hashable, CustomStringConvertible {
    public var location: Path
    public var column: Path

    public init(location: Path = .root, column: Path) {
        self.location = location
        self.column = column
    }

    /// Where the rate goes inside each child: `$rate/` and the column's path (`$rate/stats64/rx/bytes`),
    /// so that it is a column like any other, which sorts and filters.
    public var ratePath: Path { Path(keys: [rateMember] + column.keys) }

    public var description: String { column.keys.joined(separator: "/") }
}

/// The member of each child holding its rates (`$`: no database key has it, so it meets no data).
public let rateMember = "$rate"

/// A rate in a child: per second, or a reset (the counter went down).
public enum Rate: Sendable, Equatable {
    case perSecond(Double)
    case reset

    public var json: JSON {
        switch self {
        case .perSecond(let r): .number(JSONNumber(r))
        case .reset: .string("reset")
        }
    }
}

/// The rate of each child of `location` in `new` that has a number at `column` in `new` and in
/// `old`: `(new − old) / (newTime − oldTime)`, or `.reset` when the number went down. Children
/// new since `old`, without a number, or when no time passed, have none.
/// - Complexity: O(children of both).
public func rates(of rate: RateColumn, old: JSONNode, oldTime: Double, new: JSONNode, newTime: Double) -> [String: Rate] {
    guard let before = old.node(at: rate.location), let after = new.node(at: rate.location), newTime > oldTime else { return [:] }
    var earlierChildren = [JSONKey: JSONNode](minimumCapacity: before.count)
    for (key, child) in children(before) { earlierChildren[JSONKey(key)] = child }
    var result = [String: Rate]()
    for (key, child) in children(after) {
        guard let value = child.node(at: rate.column)?.numberValue, let earlier = earlierChildren[JSONKey(key)],
              let previous = earlier.node(at: rate.column)?.numberValue else { continue }
        result[key] = value < previous ? .reset : .perSecond((value - previous) / (newTime - oldTime))
    }
    return result
}

/// The children of an object (by key) or an array (by index).
func children(_ node: JSONNode) -> [(key: String, value: JSONNode)] {
    switch node.kind {
    case .object: node.members.compactMap { m in m.key.stringValue.map { ($0, m.value) } }
    case .array: node.elements.enumerated().map { (String($0.offset), $0.element) }
    default: []
    }
}

extension JSONNode {
    /// The number this node holds (nil for anything else).
    var numberValue: Double? { kind == .number ? doubleValue : nil }
}
