// The writes of one edit arranged as a tree of keys, so each node of the document is
// visited once however many writes touch it.

/// What happens at one location: its value is replaced (`nil` removes), or some of its
/// children are edited.
indirect enum EditTree: Sendable {
    case set(JSON?)
    /// Children edited, keys unique (by code units), in the order first written.
    case children([(key: String, tree: EditTree)])

    /// Builds the tree of `writes`, with values normalized (see `JSON.normalized`).
    /// - Throws: `.overlapping` when one path is or contains another.
    /// - Complexity: O(total path length + size of the values).
    init(_ writes: [JSONWrite]) throws(JSONEditError) {
        let root = Builder()
        for write in writes {
            var node = root
            for (depth, key) in write.path.keys.enumerated() {
                if case .some = node.value {
                    throw JSONEditError(.overlapping(ancestor: Path(keys: Array(write.path.keys[..<depth])), descendant: write.path))
                }
                node = node.child(key)
            }
            if case .some = node.value {
                throw JSONEditError(.overlapping(ancestor: write.path, descendant: write.path))
            }
            if let below = node.someLeafPath() {
                throw JSONEditError(.overlapping(ancestor: write.path, descendant: below))
            }
            node.value = .some(write.value.normalized)
        }
        self = root.tree
    }

    /// Whether applying this tree would create or replace any value (not only remove).
    var writesSomething: Bool {
        switch self {
        case .set(let v): return v != nil
        case .children(let list): return list.contains { $0.tree.writesSomething }
        }
    }

    /// The value this tree gives a location that has none (missing or null): missing
    /// intermediate objects are created; `nil` when nothing is written.
    /// - Complexity: O(size of the written values).
    var materialized: JSON? {
        switch self {
        case .set(let v): return v
        case .children(let list):
            var members = [(key: String, value: JSON)]()
            for (key, tree) in list {
                if let v = tree.materialized { members.append((key, v)) }
            }
            return members.isEmpty ? nil : .object(JSONObject(uniqueMembers: members))
        }
    }
}

/// Mutable trie used only while building an `EditTree`; never shared.
private final class Builder {
    /// `.some(v)`: the location is set to `v` (`.some(nil)` removes). `nil`: not set here.
    var value: JSON??
    var keys: [String] = []
    var children: [JSONKey: Builder] = [:]
    let pathKeys: [String]

    init(pathKeys: [String] = []) { self.pathKeys = pathKeys }

    func child(_ key: String) -> Builder {
        if let c = children[JSONKey(key)] { return c }
        let c = Builder(pathKeys: pathKeys + [key])
        children[JSONKey(key)] = c
        keys.append(key)
        return c
    }

    /// The path of some write below this node, if any.
    func someLeafPath() -> Path? {
        for key in keys {
            let c = children[JSONKey(key)]!
            if case .some = c.value { return Path(keys: c.pathKeys) }
            if let p = c.someLeafPath() { return p }
        }
        return nil
    }

    var tree: EditTree {
        if case .some(let v) = value { return .set(v) }
        return .children(keys.map { (key: $0, tree: children[JSONKey($0)]!.tree) })
    }
}
