// A WebSocket session's listens by location, so that a revision visits only what changed.
import JSONTree

/// The listens of one connection in a tree of their locations: bringing them to a new revision
/// costs what changed, since below a location that is byte for byte the same nothing is visited
/// (1,000 listens under one unchanged location cost one comparison, not 1,000).
struct ListenTree {
    fileprivate struct Node {
        /// The listens at this location, untagged first, then by tag.
        var here: [Listen] = []
        var children: [String: Node] = [:]
        /// The children's keys, in order.
        var keys: [String] = []
    }

    private var root = Node()
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    subscript(key: ListenKey) -> Listen? {
        var node = root
        for key in key.path.keys {
            guard let child = node.children[key] else { return nil }
            node = child
        }
        return node.here.first { $0.tag == key.tag }
    }

    /// Adds `listen`, or replaces the one with its location and tag.
    mutating func insert(_ listen: Listen) {
        if root.insert(listen, below: listen.path.keys[...]) { count += 1 }
    }

    /// Removes the listen with `key`, if there is one.
    mutating func remove(_ key: ListenKey) {
        if root.remove(key.tag, below: key.path.keys[...]) { count -= 1 }
    }

    mutating func removeAll() {
        root = Node()
        count = 0
    }

    /// Every listen, by location (a location before the ones below it, siblings in key order).
    func forEach(_ body: (Listen) -> Void) {
        forEachChanged({ _ in true }, body)
    }

    /// The listens at the locations `isChanged` says changed, in the order of `forEach`: the
    /// root's always, and a location below it asked about only when every one above it changed.
    func forEachChanged(_ isChanged: (Path) -> Bool, _ body: (Listen) -> Void) {
        var keys = [String]()
        Self.visit(root, at: &keys, isChanged, body)
    }

    private static func visit(_ node: Node, at keys: inout [String], _ isChanged: (Path) -> Bool, _ body: (Listen) -> Void) {
        for listen in node.here { body(listen) }
        for key in node.keys {
            guard let child = node.children[key] else { continue }
            keys.append(key)
            if isChanged(Path(keys: keys)) { visit(child, at: &keys, isChanged, body) }
            keys.removeLast()
        }
    }
}

extension ListenTree.Node {
    /// Whether the listen is a new one (not a replacement).
    mutating func insert(_ listen: Listen, below keys: ArraySlice<String>) -> Bool {
        guard let key = keys.first else {
            if let index = here.firstIndex(where: { $0.tag == listen.tag }) {
                here[index] = listen
                return false
            }
            let rank = listen.tag ?? -1
            here.insert(listen, at: here.firstIndex { ($0.tag ?? -1) > rank } ?? here.endIndex)
            return true
        }
        if children[key] == nil {
            children[key] = Self()
            self.keys.insert(key, at: self.keys.firstIndex { $0 > key } ?? self.keys.endIndex)
        }
        return children[key]!.insert(listen, below: keys.dropFirst())
    }

    /// Whether a listen was removed; a location left with no listens at or below it goes too.
    mutating func remove(_ tag: Int?, below keys: ArraySlice<String>) -> Bool {
        guard let key = keys.first else {
            guard let index = here.firstIndex(where: { $0.tag == tag }) else { return false }
            here.remove(at: index)
            return true
        }
        guard children[key]?.remove(tag, below: keys.dropFirst()) == true else { return false }
        if let child = children[key], child.here.isEmpty, child.children.isEmpty {
            children[key] = nil
            self.keys.removeAll { $0 == key }
        }
        return true
    }
}
