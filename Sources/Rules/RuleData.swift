// The database's tree as rules read it (`root`, `data`, `newData`): a document's tree, or
// that tree with a request's writes laid over it (without copying the document).
import JSONTree

/// A location's data as rules read it. Members whose key starts with `.` are metadata, not
/// children; `{".value": v, ".priority": p}` is the leaf `v`; null children do not exist.
indirect enum RuleData: Sendable {
    /// A node of a document, its children found through the index all nodes of the document
    /// share.
    case node(JSONNode, ChildIndex)
    case value(JSON)
    /// `base` with some children replaced (nil: removed); a base that is not a container
    /// counts as having no children, as the database replaces a leaf written below.
    case merged(base: RuleData?, children: [JSONKey: RuleData?])

    /// The data after `writes` (each a location and its new value, null removing), laid over `base`.
    /// - Complexity: O(total path length) beside the lookups of the base's children.
    static func applying(_ writes: [(path: Path, value: JSON)], to base: RuleData?) -> RuleData? {
        let tree = Draft(base)
        for write in writes { tree.set(write.path.keys[...], write.value.normalized) }
        return tree.data
    }

    /// The data of `applying` while the writes are laid over it one after another, each
    /// location's replaced children changed in place (a `merged` value rebuilt per write
    /// would copy a large object's table of children for every path written in it).
    private final class Draft {
        /// The data here; the base of `children` when some are replaced.
        var base: RuleData?
        /// The children replaced; nil: none, `base` is all.
        var children: [JSONKey: Draft]?

        init(_ data: RuleData?) {
            if case .merged(let b, let c)? = data {
                base = b
                children = c.mapValues { Draft($0) }
            } else {
                base = data
            }
        }

        /// Sets the data at `keys` below here to `value` (nil removes), as `applying` does.
        func set(_ keys: ArraySlice<String>, _ value: JSON?) {
            guard let key = keys.first else {
                base = value.map { RuleData.value($0) }
                children = nil
                return
            }
            let child: Draft
            if let replaced = children?[JSONKey(key)] {
                child = replaced
            } else {
                child = Draft(base?.child(key))
                children = children ?? [:]
                children![JSONKey(key)] = child
            }
            child.set(keys.dropFirst(), value)
        }

        var data: RuleData? {
            guard let children else { return base }
            return .merged(base: base, children: children.mapValues { $0.data })
        }
    }

    /// The child named `key`; nil when it does not exist.
    func child(_ key: String) -> RuleData? {
        if key.hasPrefix(".") { return nil }
        switch self {
        case .node(let node, let lookup):
            guard let child = lookup.child(key, of: Self.leafOrContainer(node, lookup)), !child.isNull else { return nil }
            return .node(child, lookup)
        case .value(let json):
            guard let child = Self.leafOrContainer(json)[key], !child.isNull else { return nil }
            return .value(child)
        case .merged(let base, let children):
            if let replaced = children[JSONKey(key)] { return replaced }
            return base?.child(key)
        }
    }

    /// The value as `val()` returns it: priorities left out, nil when nothing is here.
    var value: JSON? {
        switch self {
        case .node(let node, _): return Self.withoutMetadata(node.json)
        case .value(let json): return Self.withoutMetadata(json)
        case .merged(let base, let children):
            var members = [(key: String, value: JSON)]()
            for m in Self.children(of: base?.value) where children[JSONKey(m.key)] == nil { members.append(m) }
            for (key, child) in children {
                if let v = child?.value { members.append((key.string, v)) }
            }
            return members.isEmpty ? nil : .object(JSONObject(members))
        }
    }

    /// Whether any data is here.
    var exists: Bool {
        switch self {
        case .node(let node, let lookup):
            let node = Self.leafOrContainer(node, lookup)
            switch node.kind {
            case .null: return false
            case .object: return node.members.contains { !$0.value.isNull && !($0.key.stringValue ?? ".").hasPrefix(".") && RuleData.node($0.value, lookup).exists }
            case .array: return node.elements.contains { RuleData.node($0, lookup).exists }
            default: return true
            }
        case .value(let json): return Self.withoutMetadata(json) != nil
        case .merged(let base, let children):
            if children.values.contains(where: { $0?.exists == true }) { return true }
            return Self.children(of: base?.value).contains { children[JSONKey($0.key)] == nil }
        }
    }

    /// Whether the data has children (is an object or array with one that exists).
    var hasChildren: Bool {
        switch self {
        case .merged: return exists
        default:
            guard let v = value else { return false }
            return !v.isScalar
        }
    }

    /// The `.priority` of the data; null without one.
    var priority: JSON {
        switch self {
        case .node(let node, let lookup): return node.kind == .object ? lookup.child(".priority", of: node)?.json ?? .null : .null
        case .value(let json): return json.objectValue?[".priority"] ?? .null
        case .merged(let base, let children):
            if let replaced = children[JSONKey(".priority")] { return replaced?.value ?? .null }
            return base?.priority ?? .null
        }
    }

    /// A value's children (an array's keyed by index); none for a leaf or nothing.
    private static func children(of value: JSON?) -> [(key: String, value: JSON)] {
        switch value {
        case .object(let o)?: return o.members
        case .array(let a)?: return a.enumerated().compactMap { $0.element.isNull ? nil : (String($0.offset), $0.element) }
        default: return []
        }
    }

    /// `{".value": v, …}` is the leaf `v`: the node rules read for `node`.
    private static func leafOrContainer(_ node: JSONNode, _ index: ChildIndex) -> JSONNode {
        node.kind == .object ? index.child(".value", of: node) ?? node : node
    }

    private static func leafOrContainer(_ json: JSON) -> JSON {
        json.objectValue?[".value"] ?? json
    }

    /// A value with `.priority` members (and `.value` wrappers) removed, null members dropped,
    /// arrays as the database stores them; nil for nothing.
    static func withoutMetadata(_ json: JSON) -> JSON? {
        switch json {
        case .object(let o):
            if let leaf = o[".value"] { return withoutMetadata(leaf) }
            var members = [(key: String, value: JSON)]()
            for m in o.members where !m.key.hasPrefix(".") {
                if let v = withoutMetadata(m.value) { members.append((m.key, v)) }
            }
            return members.isEmpty ? nil : .object(JSONObject(members))
        case .array(let a):
            let elements = a.map { withoutMetadata($0) ?? .null }
            return elements.allSatisfy(\.isNull) ? nil : .array(elements)
        default:
            return json.normalized
        }
    }
}

/// A location in a tree: what `root`, `data`, `newData` and their `child()`/`parent()` are.
struct RuleSnapshot: Sendable {
    let root: RuleData?
    let path: [String]
    let data: RuleData?

    init(root: RuleData?, path: [String]) {
        self.root = root
        self.path = path
        var node = root
        for key in path { node = node?.child(key) }
        data = node
    }

    private init(root: RuleData?, path: [String], data: RuleData?) {
        self.root = root
        self.path = path
        self.data = data
    }

    /// The location at a relative path (`"a/b"`; empty segments ignored).
    func child(_ relative: String) -> RuleSnapshot {
        var node = data
        var path = self.path
        for key in relative.split(separator: "/", omittingEmptySubsequences: true) {
            node = node?.child(String(key))
            path.append(String(key))
        }
        return RuleSnapshot(root: root, path: path, data: node)
    }

    /// The parent location; nil for the root.
    func parent() -> RuleSnapshot? {
        path.isEmpty ? nil : RuleSnapshot(root: root, path: Array(path.dropLast()))
    }
}
