// `--columns`, shared by the viewer and `list`: the columns to show, or the ones to hide.
import JSONTree

/// `--columns name,score,metrics/views` shows these, in this order; `--columns -email,-id`
/// shows the inferred columns without these. (A member whose name starts with `-` is named
/// as a path from the root: `/-name`.)
struct ColumnChoice: Equatable {
    /// The columns after the key, in order; nil: inferred from the children.
    var shown: [Path]?
    var hidden: [Path] = []

    /// - Throws: `CommandError` naming `--columns` for an empty name, a bad path, or names to
    ///   show mixed with names to hide.
    init(parsing text: String) throws(CommandError) {
        var shown: [Path] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            var name = item.trimmedSpaces
            let hides = name.hasPrefix("-")
            if hides { name.removeFirst() }
            guard !name.isEmpty else { throw CommandError("--columns: an empty column name in '\(text)'") }
            let path: Path
            do { path = try Path(name) } catch { throw CommandError("--columns: \(error)") }
            if hides { hidden.append(path) } else { shown.append(path) }
        }
        guard shown.isEmpty || hidden.isEmpty else {
            throw CommandError("--columns: either names to show (name,score) or names to hide (-name,-score), not both, in '\(text)'")
        }
        self.shown = hidden.isEmpty ? shown : nil
    }

    /// A column's title: its path's keys joined with `/`.
    static func title(_ path: Path) -> String { path.keys.joined(separator: "/") }

    /// A child's value as `list` prints it: an object of the columns shown (missing ones left
    /// out), or the value without the hidden members.
    func project(_ value: JSONNode) -> JSON {
        if let shown {
            var members: [(key: String, value: JSON)] = []
            for path in shown {
                guard let node = path.isRoot ? value : value.node(at: path), !node.isNull else { continue }
                members.append((ColumnChoice.title(path), node.json))
            }
            return .object(JSONObject(members))
        }
        return hidden.reduce(value.json) { json, path in removing(path.keys[...], from: json) }
    }
}

/// `json` without the member at `keys` (objects only; anything else is kept as it is).
private func removing(_ keys: ArraySlice<String>, from json: JSON) -> JSON {
    guard let first = keys.first, case .object(let object) = json else { return json }
    if keys.count == 1 { return .object(JSONObject(object.members.filter { !codeUnitsEqual($0.key, first) })) }
    return .object(JSONObject(object.members.map { member in
        codeUnitsEqual(member.key, first) ? (member.key, removing(keys.dropFirst(), from: member.value)) : member
    }))
}
