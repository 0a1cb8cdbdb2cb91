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
        var trie = EditTrie(writes)
        for _ in writes { try trie.add() }
        self = trie.tree(at: 0)
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

/// The trie of an `EditTree` while it is built: nodes in one array (plain numbers: a key is
/// found in the write that made the node), each node's children in a list in the order first
/// written, every child found by its parent and key in one table. (A class and a table per
/// node cost more than the edit itself for 100k paths.)
private struct EditTrie {
    struct Node {
        /// The first write through this node, and the node's depth in its path: its key.
        let write: Int32
        let depth: Int32
        let parent: Int32
        var firstChild: Int32 = -1
        var lastChild: Int32 = -1
        var nextSibling: Int32 = -1
        /// The write that sets this location; -1: none.
        var setBy: Int32 = -1
    }

    /// A child's parent and key (by code units).
    struct Edge: Hashable {
        let parent: Int32
        let key: JSONKey
    }

    private let writes: [JSONWrite]
    /// Each write's value, normalized, once it is in the trie.
    private var values: [JSON?] = []
    private var nodes: [Node]
    private var children: [Edge: Int32] = [:]

    init(_ writes: [JSONWrite]) {
        self.writes = writes
        values.reserveCapacity(writes.count)
        nodes = [Node(write: -1, depth: -1, parent: -1)]
        nodes.reserveCapacity(2 * writes.count + 1)
        children.reserveCapacity(2 * writes.count)
    }

    /// Adds the next write.
    mutating func add() throws(JSONEditError) {
        let w = values.count
        let path = writes[w].path
        var node: Int32 = 0
        for (depth, key) in path.keys.enumerated() {
            if nodes[Int(node)].setBy >= 0 {
                throw JSONEditError(.overlapping(ancestor: Path(keys: Array(path.keys[..<depth])), descendant: path))
            }
            node = child(of: node, key, write: w, depth: depth)
        }
        if nodes[Int(node)].setBy >= 0 {
            throw JSONEditError(.overlapping(ancestor: path, descendant: path))
        }
        if nodes[Int(node)].firstChild >= 0 {
            // Every node below was made by a write that reached a set node: the first
            // children lead to one.
            var below = nodes[Int(node)].firstChild
            while nodes[Int(below)].setBy < 0 { below = nodes[Int(below)].firstChild }
            throw JSONEditError(.overlapping(ancestor: path, descendant: writes[Int(nodes[Int(below)].setBy)].path))
        }
        nodes[Int(node)].setBy = Int32(w)
        values.append(writes[w].value.normalized)
    }

    /// The child `key` of `parent`, made when missing.
    private mutating func child(of parent: Int32, _ key: String, write: Int, depth: Int) -> Int32 {
        let edge = Edge(parent: parent, key: JSONKey(key))
        if let found = children[edge] { return found }
        let made = Int32(nodes.count)
        nodes.append(Node(write: Int32(write), depth: Int32(depth), parent: parent))
        children[edge] = made
        let last = nodes[Int(parent)].lastChild
        if last >= 0 { nodes[Int(last)].nextSibling = made } else { nodes[Int(parent)].firstChild = made }
        nodes[Int(parent)].lastChild = made
        return made
    }

    func tree(at node: Int32) -> EditTree {
        let n = nodes[Int(node)]
        if n.setBy >= 0 { return .set(values[Int(n.setBy)]) }
        var list = [(key: String, tree: EditTree)]()
        var child = n.firstChild
        while child >= 0 {
            let c = nodes[Int(child)]
            list.append((writes[Int(c.write)].path.keys[Int(c.depth)], tree(at: child)))
            child = c.nextSibling
        }
        return .children(list)
    }
}
