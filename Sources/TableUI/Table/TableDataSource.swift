// What the table shows: columns and rows of text, read on demand.

/// One column: its header and how its cells are laid out.
public struct TableColumn: Hashable, Sendable {
    /// The header text (sanitised before drawing, like every cell).
    public var title: String
    /// Numbers are right-aligned, and a changed number shows ↑ or ↓.
    public var isNumeric: Bool
    /// The narrowest the column gets, in cells (when the terminal is wide enough).
    public var minWidth: Int
    /// The widest the column gets; longer text is cut with `…`.
    public var maxWidth: Int
    /// The width was chosen by the user: spare room does not widen it.
    public var isFixedWidth = false

    public init(_ title: String, numeric: Bool = false, minWidth: Int = 1, maxWidth: Int = 40) {
        self.title = title
        self.isNumeric = numeric
        self.minWidth = max(1, minWidth)
        self.maxWidth = max(self.minWidth, maxWidth)
    }
}

/// The rows a `TableView` shows. The table only reads it: for visible rows on each
/// render, and the count when a batch or reload arrives. Change it first, then tell the
/// table (`performBatchUpdates`, `reloadData`), as with a list view on a phone.
public protocol TableDataSource: AnyObject {
    var columns: [TableColumn] { get }
    var numberOfRows: Int { get }
    /// The cells of `row` (0..<numberOfRows), one per column, as raw untrusted text: the
    /// table sanitises them. Missing cells show empty; extra ones are ignored.
    func cells(ofRow row: Int) -> [String]
    /// The columns of `row` whose cells are highlighted (a search's matches).
    func highlightedColumns(ofRow row: Int) -> Set<Int>
    /// A text shown across `row` after its frozen columns, whatever columns are scrolled to (a
    /// line that is not a record: its error); nil for a row of cells.
    func spanningText(ofRow row: Int) -> String?
}

extension TableDataSource {
    /// The columns of `row` to highlight (a search's matches); none by default.
    public func highlightedColumns(ofRow row: Int) -> Set<Int> { [] }
    /// No row spans its columns by default.
    public func spanningText(ofRow row: Int) -> String? { nil }
}
