// `--columns`, shared by the viewer and `list`: the columns to show, or the ones to hide.
import JSONTree

/// `--columns name,score,metrics/views` shows these, in this order; `--columns -email,-id`
/// shows the inferred columns without these. (A member whose name starts with `-` is named
/// as a path from the root: `/-name`.)
public struct ColumnChoice: Equatable, Sendable {
    /// The columns after the key, in order; nil: inferred from the children.
    public var shown: [Path]?
    public var hidden: [Path] = []

    /// - Throws: `CommandError` naming `--columns` for an empty name, a bad path, or names to
    ///   show mixed with names to hide.
    public init(parsing text: String) throws(CommandError) {
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
}

extension Substring {
    /// Without leading and trailing spaces (a name in a list of flags' values).
    public var trimmedSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
