// The value a read returns: priorities left out unless exported, shallow reads, query windows.
import JSONTree
import LiveQuery

enum ServedValue {
    /// The value at `path` of `document` as a read returns it (null where nothing is).
    static func value(at path: Path, in document: JSONDocument, export: Bool) -> JSON {
        guard let node = document.root.node(at: path) else { return .null }
        return value(node, export: export)
    }

    /// A node as a read returns it: without `.priority` members (a `{".value": v, ".priority": p}`
    /// leaf is `v`) unless `export`.
    static func value(_ node: JSONNode, export: Bool) -> JSON {
        let json = node.json
        return export ? json : withoutPriorities(json)
    }

    private static func withoutPriorities(_ json: JSON) -> JSON {
        switch json {
        case .object(let o):
            if let leaf = o[".value"] { return withoutPriorities(leaf) }
            var members = [(key: String, value: JSON)]()
            members.reserveCapacity(o.count)
            for m in o.members where m.key != ".priority" { members.append((m.key, withoutPriorities(m.value))) }
            return .object(JSONObject(members))
        case .array(let a): return .array(a.map(withoutPriorities))
        default: return json
        }
    }

    /// `shallow=true`: an object's or array's children as `true` (containers) or their value
    /// (leaves); a leaf itself as it is.
    static func shallow(at path: Path, in document: JSONDocument) -> JSON {
        guard let node = document.root.node(at: path) else { return .null }
        var members = [(key: String, value: JSON)]()
        switch node.kind {
        case .object:
            for m in node.members {
                guard let key = m.key.stringValue, key != ".priority", !m.value.isNull else { continue }
                if key == ".value" { return value(m.value, export: false) }
                members.append((key, m.value.isContainer ? .bool(true) : m.value.json))
            }
        case .array:
            for (i, e) in node.elements.enumerated() where !e.isNull {
                members.append((String(i), e.isContainer ? .bool(true) : e.json))
            }
        default: return value(node, export: false)
        }
        return members.isEmpty ? .null : .object(JSONObject(members))
    }

    /// A query's window as one object, its children in query order (what `synctable list`
    /// prints for the same query, as `{key: value, …}`; `{}` when it selects nothing).
    static func object(_ window: Window, export: Bool) -> JSON {
        var members = [(key: String, value: JSON)]()
        members.reserveCapacity(window.count)
        for row in window { members.append((row.key, value(row.value, export: export))) }
        return .object(JSONObject(members))
    }

    /// The ETag of a value: a digest of its compact JSON, so that equal values have equal tags.
    static func etag(_ value: JSON) -> String {
        sha256Base64(value.serialized(.compact))
    }
}
