// The viewer's column policy for a printed table (`synctable list --format table`): the same
// columns, in the same order, with the same cell texts as the viewer shows.
import JSONTree
import SyncedArray

/// Children as the viewer's table shows them: the key first, then the inferred members (most
/// common first, metadata such as `.priority` left out; `value` for children that are not
/// objects), or exactly the members given; cells as in the viewer (`{3}`, `[5]`, numbers as
/// spelled).
public struct ColumnTable {
    public let header: [String]
    /// Per column: every value present is a number (printed right-aligned).
    public let numeric: [Bool]
    public let rows: [[String]]

    /// - Parameters:
    ///   - shown: exactly these members (`--columns a,b`), or nil to infer them.
    ///   - hidden: members not to show (`--columns -a`).
    public init(_ children: [SyncedRow], shown: [Path]?, hidden: [Path] = []) {
        var columns = shown.map { ColumnSet(fixed: $0) } ?? ColumnSet(inferredFrom: children)
        columns.hide(hidden.map { $0.isRoot ? .value : .member($0) })
        columns.recomputeNumeric(children)
        header = columns.specs.map(\.title)
        numeric = columns.numeric
        rows = children.map { child in columns.specs.map { $0.cell(key: child.key, child: child.value) } }
    }
}
