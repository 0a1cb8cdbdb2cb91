// Children of one document's containers found by key, for work that reads a node per path of
// a large multi-path update (its answer, its rules, its increments).
import Synchronization

/// Finds the children of one document's containers. A container looked up a second time is
/// indexed (an object's members by key, an array's elements by index), so that n paths through
/// one object of m members cost O(n + m), where a scan per path would cost O(n × m); a
/// container looked up once is scanned, as `JSONNode.child` does.
///
/// Answers are those of `JSONNode.child`: an object's effective member (the last of duplicate
/// keys), keys compared by code units; an array's element at an index key.
public final class ChildIndex: Sendable {
    private struct Tables {
        /// Containers looked up once, by tape index.
        var seen = Set<Int>()
        /// Objects looked up again: their members by key (nil: a key that is not a string;
        /// the object is scanned).
        var members: [Int: [JSONKey: JSONNode]?] = [:]
        /// Arrays looked up again: their elements.
        var elements: [Int: [JSONNode]] = [:]
    }

    private let tables = Mutex(Tables())

    public init() {}

    /// How many containers have been indexed.
    public var containersIndexed: Int { tables.withLock { $0.members.count + $0.elements.count } }

    /// The child `key` of `node` (one of this index's document); nil when there is none.
    public func child(_ key: String, of node: JSONNode) -> JSONNode? {
        switch node.kind {
        case .object:
            let found = tables.withLock { tables -> [JSONKey: JSONNode]?? in
                if let members = tables.members[node.index] { return .some(members) }
                guard !tables.seen.insert(node.index).inserted else { return nil }
                var members: [JSONKey: JSONNode]? = [:]
                for m in node.members {
                    guard let name = m.key.stringValue else {
                        members = nil
                        break
                    }
                    members![JSONKey(name)] = m.value
                }
                tables.members[node.index] = .some(members)
                return .some(members)
            }
            guard case .some(let members?) = found else { return node[key: key] }
            return members[JSONKey(key)]
        case .array:
            guard let i = arrayIndex(key) else { return nil }
            let elements = tables.withLock { tables -> [JSONNode]? in
                if let elements = tables.elements[node.index] { return elements }
                guard !tables.seen.insert(node.index).inserted else { return nil }
                let elements = Array(node.elements)
                tables.elements[node.index] = elements
                return elements
            }
            guard let elements else { return node[index: i] }
            return i < elements.count ? elements[i] : nil
        default:
            return nil
        }
    }

    /// The node at `path` below `root`; nil where the path does not exist.
    public func node(at path: Path, in root: JSONNode) -> JSONNode? {
        var node = root
        for key in path.keys {
            guard let next = child(key, of: node) else { return nil }
            node = next
        }
        return node
    }
}
