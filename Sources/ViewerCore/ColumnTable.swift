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
    ///   - computed: columns computed from each child (`--computed`), after the others unless
    ///     `shown` names one.
    public init(_ children: [SyncedRow], shown: [Path]?, hidden: [Path] = [], computed: [ComputedColumn] = []) {
        var columns = shown.map { ColumnSet(fixed: $0) } ?? ColumnSet(inferredFrom: children)
        columns.addComputed(computed)
        columns.hide(hidden.map { $0.isRoot ? .value : .member($0) })
        columns.recomputeNumeric(children)
        // A line that is not a record shows its error after its key, as the viewer's row does
        // across its columns (a column of its own when the records have none).
        let errors = children.map { errorRowText($0.value) }
        let errorColumn = columns.specs.count == 1 && errors.contains { $0 != nil }
        header = columns.specs.map(\.title) + (errorColumn ? ["error"] : [])
        numeric = columns.numeric + (errorColumn ? [false] : [])
        rows = zip(children, errors).map { child, error in
            guard let error else { return columns.specs.map { $0.cell(key: child.key, child: child.value) } + (errorColumn ? [""] : []) }
            return [child.key, error] + Array(repeating: "", count: max(0, columns.specs.count - 2))
        }
    }
}
