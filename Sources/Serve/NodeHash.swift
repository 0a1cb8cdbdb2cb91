// The client SDKs' hash of a value: what a transaction's conditional put (`h`) is compared with.
import JSONTree
import LiveQuery

/// The hash the SDKs compute for a value (`LeafNode.hash`, `ChildrenNode.hash` in the JS SDK),
/// so that a put conditioned on it succeeds exactly when the client saw the current value.
///
/// A leaf hashes `priority:P:` (when it has one), its JavaScript type and its value (a number as
/// the 16 hex digits of its IEEE 754 bits); a node with children hashes `:key:hash` for each
/// child in priority order. Each is SHA-1, base64; null (and an empty node) is `""`.
enum NodeHash {
    /// The hash of `value` as exported (with `.priority` and `.value` members).
    static func of(_ value: JSON) -> String {
        var priority: JSON = .null
        var leaf: JSON? = nil
        var children = [(key: String, value: JSON)]()
        switch value {
        case .null: return ""
        case .bool, .number, .string: leaf = value
        case .array(let elements):
            for (i, e) in elements.enumerated() where !e.isNull { children.append((String(i), e)) }
        case .object(let o):
            for m in o.members {
                switch m.key {
                case ".priority": priority = m.value
                case ".value": leaf = m.value
                default: if !m.value.isNull { children.append((m.key, m.value)) }
                }
            }
        }
        var text = ""
        if let p = priorityText(priority) { text += "priority:" + p + ":" }
        if let leaf, leaf.isScalar, !leaf.isNull {
            text += leafText(leaf)
            return sha1(text)
        }
        let ordered = children.map { (key: $0.key, value: $0.value, priority: Self.priority(of: $0.value)) }
            .sorted { a, b in
                let order = comparePriorities(a.priority, b.priority)
                return order != 0 ? order < 0 : nameCompare(a.key, b.key) < 0
            }
        var any = false
        for child in ordered {
            let hash = of(child.value)
            guard !hash.isEmpty else { continue }
            text += ":" + child.key + ":" + hash
            any = true
        }
        // A node without children is the empty node, whatever priority it was given.
        return any ? sha1(text) : ""
    }

    /// A leaf's type and value as the SDK writes them (`number:3ff0000000000000`).
    private static func leafText(_ leaf: JSON) -> String {
        switch leaf {
        case .bool(let b): return "boolean:" + (b ? "true" : "false")
        case .number(let n): return "number:" + ieee754(n.double)
        case .string(let s): return "string:" + s
        default: return ""
        }
    }

    private static func priorityText(_ priority: JSON) -> String? {
        switch priority {
        case .number(let n): return "number:" + ieee754(n.double)
        case .string(let s): return "string:" + s
        default: return nil
        }
    }

    private static func priority(of value: JSON) -> JSON {
        if case .object(let o) = value, let p = o[".priority"] { return p }
        return .null
    }

    /// Priority order: none < numbers (numeric) < strings (UTF-16 code units).
    private static func comparePriorities(_ a: JSON, _ b: JSON) -> Int {
        func rank(_ p: JSON) -> Int {
            switch p {
            case .number: 1
            case .string: 2
            default: 0
            }
        }
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case let (.number(x), .number(y)): return x.double < y.double ? -1 : (x.double > y.double ? 1 : 0)
        case let (.string(x), .string(y)):
            if x.utf16.elementsEqual(y.utf16) { return 0 }
            return x.utf16.lexicographicallyPrecedes(y.utf16) ? -1 : 1
        default: return 0
        }
    }

    /// The big-endian hex of a double's bits (the SDK's `doubleToIEEE754String`).
    private static func ieee754(_ value: Double) -> String {
        let hex = String(value.bitPattern, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func sha1(_ text: String) -> String {
        sha1Base64(Array(text.utf8))
    }
}
