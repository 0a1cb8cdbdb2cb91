// Sheets: the tables the viewer stacks above the location's table (frequency, statistics, …).
import JSONTree
import LiveQuery
import TableUI

/// A table the viewer shows on top of the location's table, as VisiData's sheets: a frequency
/// table, the statistics of the columns, the rows holding one value, a change log.
///
/// A sheet is live: it follows the store itself (`start`/`stop`) and reports each change of its
/// rows as one `BatchDiff` through `onBatch`, so the viewer animates it like the main table.
/// The viewer gives every sheet the same keys — moving, the column cursor, sorting by a column
/// (the viewer's own order over the sheet's rows), the JSON pane, copying, `q`/Backspace back —
/// and asks the sheet only for what differs: Enter (`open(row:)`) and its own keys (`perform`,
/// named in the message line's reminder by `ownKeys`).
///
/// To add a sheet, conform a class and push it (`viewer.push(sheet)`); for one a key of the
/// location's table opens, conform it to `SheetOpener` too and add it to `registeredSheets`
/// (the sheet's file declares its `ViewerAction` and key). A sheet that follows one source
/// conforms to `FeedSheet`, whose `start`/`stop` are its `SheetFeed`'s:
///
/// ```swift
/// final class ChangeLogSheet: FeedSheet {
///     var title: String { "change log" }
///     var columns: [TableColumn] { [TableColumn("rev", numeric: true), TableColumn("key"), TableColumn("change")] }
///     var onBatch: ((BatchDiff) -> Void)?
///     lazy var feed = SheetFeed.revisions(of: history) { [unowned self] in entries = …; onBatch?(batch) }
///     var rowCount: Int { entries.count }
///     func cells(ofRow i: Int) -> [String] { … }
///     func value(ofRow i: Int) -> JSON { … }         // the JSON pane, Y, export
///     func key(ofRow i: Int) -> String { … }         // unique per row, stable across batches
/// }
/// ```
///
/// Export (and anything else that reads what is shown) reads `columns`, `rowCount` and
/// `cells(ofRow:)` of `Viewer.shownSheet`, in the order the viewer shows them.
public protocol Sheet: AnyObject {
    /// Its name in the status bar's trail (`players › score frequency`).
    var title: String { get }
    /// The columns, left to right.
    var columns: [TableColumn] { get }
    /// Rows now (after the latest batch reported).
    var rowCount: Int { get }
    /// The cells of row `i` (`0..<rowCount`), one per column, as raw text (the table sanitises it).
    func cells(ofRow i: Int) -> [String]
    /// Row `i` as a JSON value: what the JSON pane shows, `Y` copies and export writes.
    func value(ofRow i: Int) -> JSON
    /// A name of row `i`, unique among the rows and the same for the same row after a batch.
    func key(ofRow i: Int) -> String
    /// The location of row `i` when the row is a child (the JSON pane's title, `y`); else nil.
    func path(ofRow i: Int) -> Path?
    /// Set by the viewer: call it with each change of the rows, after the rows changed.
    var onBatch: ((BatchDiff) -> Void)? { get set }
    /// Starts following the store (the sheet was pushed); the first rows may come at once.
    func start()
    /// Stops following it (the sheet was closed).
    func stop()
    /// Enter on row `i`: the sheet to push, or a message saying why there is none.
    func open(row i: Int) -> SheetOpening
    /// A key the sheet gives a meaning of its own (`b` bins a frequency table's numbers);
    /// returns a message for the message line, or nil when the key means nothing here.
    func perform(_ action: ViewerAction) -> String?
    /// The keys it gives a meaning of its own, for the message line's reminder (after the keys
    /// every table has).
    var ownKeys: [(ViewerAction, String)] { get }
    /// Whether the rows are not there yet (the first window is read off the loop thread).
    var isLoading: Bool { get }
}

/// What Enter on a sheet's row does.
public enum SheetOpening {
    case sheet(any Sheet)
    case message(String)
}

extension Sheet {
    public func open(row i: Int) -> SheetOpening { .message("Enter does nothing on the \(title)") }
    public func path(ofRow i: Int) -> Path? { nil }
    public func perform(_ action: ViewerAction) -> String? { nil }
    public var ownKeys: [(ViewerAction, String)] { [] }
    public var isLoading: Bool { false }
}
