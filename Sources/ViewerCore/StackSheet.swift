// The viewer's stack: every table (and chart) it shows is a sheet on one protocol, the
// location's children at the bottom; and the registry of the sheets a key opens.
import JSONTree
import TableUI

/// A sheet on the viewer's stack, as the viewer sees it: the location's children
/// (`ChildrenSheet`), a derived table (a `Sheet` in a `TableSheet`) or a chart.
///
/// The viewer keeps the screen (mode, prompt, message, pane, undo) and gives the keys every
/// sheet shares — moving in a table, the pane, help, back — to the top sheet; the rest go to
/// `perform`. It draws the top sheet into the lines it owns, through the one record of what the
/// screen shows (`Viewer.screen`): a sheet keeps no copy of what it drew.
protocol StackSheet: AnyObject {
    /// Its name in the status bar's trail (`/players › score frequency`).
    var title: String { get }
    /// The table shown, whose moves and mouse keys the viewer handles; nil for a chart.
    var tableView: TableView? { get }
    /// The derived table it shows, as export and other readers of the screen see it; nil for
    /// the location's table (whose rows are the synced array's) and for a chart.
    var derivedSheet: (any Sheet)? { get }
    /// Starts following its source (the sheet was pushed).
    func start()
    /// Stops following it (the sheet was closed).
    func stop()
    /// Draws into `lines` of `canvas` what changed since the last render.
    func render(into canvas: Canvas, lines: Range<Int>)
    /// The next moment an animation frame is due.
    var nextDeadline: Double? { get }
    /// The clock moved.
    func tick(now: Double)
    /// A key the viewer does not share among sheets; false when it means nothing here.
    func perform(_ action: ViewerAction) -> Bool
    /// A prompt the sheet asked for was answered.
    func accept(_ prompt: Prompt)
    /// The selected row, as the JSON pane and the copy keys read it.
    var selectedRow: SelectedRow? { get }
    /// What the status bar says of the rows.
    var status: SheetStatus { get }
    /// What it shows with no rows.
    var emptyText: String { get }
    /// The message line's reminder of its keys (nil: the viewer's own reminder).
    var keyHint: [(ViewerAction, String)]? { get }
}

/// The selected row of a sheet: its key, its value, and where it is.
struct SelectedRow {
    var key: String
    var value: JSONNode
    /// The child's location, or nil for a row that is not a child.
    var path: Path?
}

/// The status bar's account of a sheet's rows: `20 rows of 45`, the query's words, the
/// history's reach (long and short).
struct SheetStatus {
    var count: String
    var words = ""
    var shortWords = ""
    var reach: (long: String, short: String)?
}

extension StackSheet {
    var tableView: TableView? { nil }
    var derivedSheet: (any Sheet)? { nil }
    var nextDeadline: Double? { tableView?.nextDeadline }
    func tick(now: Double) { _ = tableView?.tick(now: now) }
    func accept(_ prompt: Prompt) {}
    var keyHint: [(ViewerAction, String)]? { [(.quit, "back")] }
}

/// What opening a sheet gives: a table of a `Sheet`'s rows, a sheet that draws itself, or a
/// message saying why there is none.
enum StackOpening {
    case table(any Sheet)
    case drawn(any StackSheet)
    case message(String)
    /// Nothing opens, and the message line says why already (an error).
    case said
}

/// A sheet the location's table opens with a key. Adding a sheet is one file — the sheet, its
/// action (`extension ViewerAction { static let histogram = Self("histogram") }`) and this
/// conformance — and its line in `registeredSheets`.
protocol SheetOpener {
    /// The action that opens it from the location's table.
    static var opening: ViewerAction { get }
    /// Its keys (the opening one and any it gives a meaning on the sheet), each shown in the
    /// help after the key of the action named.
    static var bindings: [(after: ViewerAction, binding: KeyBinding)] { get }
    /// The sheet for the location's table as it is now.
    static func open(from children: ChildrenSheet) -> StackOpening
    /// What the sheet's own key (`b` of a frequency sheet) says on the location's table, or nil.
    static func hint(onTable action: ViewerAction) -> String?
}

extension SheetOpener {
    static func hint(onTable action: ViewerAction) -> String? { nil }
}

/// The sheets a key opens, in the order their keys were added.
var registeredSheets: [any SheetOpener.Type] {
    [
        FrequencySheet.self,
        StatisticsSheet.self,
        ChangeLogSheet.self,
        TimelineSheet.self,
        HistogramSheet.self,
        ScatterSheet.self,
        SeriesSheet.self,
    ]
}
