// Every key of the viewer, in one table: the run loop dispatches from it and the help
// screen (and the README) lists it.
import TableUI

/// What a key asks the viewer to do.
public enum ViewerAction: Hashable, Sendable, CaseIterable {
    case down, up, pageDown, pageUp, first, last
    case columnLeft, columnRight
    case hideColumn, showColumns, widenColumn, narrowColumn, moveColumnLeft, moveColumnRight
    case open, back
    case sortByColumn, sortByKey, reverse, filter, clearFilter
    case whereFilter, export, expandColumn, collapseColumn, computedColumn
    case search, searchNext, searchPrevious
    case pause, showJSON, focusJSON, showProblem, copyPath, copyValue
    case edit, increment, decrement, delete, add, undo, redo
    case frequency, statistics, toggleBinning
    case historyBack, historyForward, historyPresent, rowChangePrevious, rowChangeNext, sparkColumn, rateColumn, changeLog, timeline
    case help, repaint, quit
}

extension ViewerAction {
    /// The action's name in a configuration file's `keys` (`searchNext`).
    public var name: String { String(describing: self) }
}

/// One line of the help screen: the keys, what they do, and the action they trigger.
public struct KeyBinding: Sendable {
    public let keys: [Key]
    /// How the help screen writes the keys.
    public let label: String
    public let action: ViewerAction
    public let help: String

    public init(_ label: String, _ keys: [Key], _ action: ViewerAction, _ help: String) {
        self.label = label
        self.keys = keys
        self.action = action
        self.help = help
    }
}

/// The viewer's standard keys, in the order the help screen shows them (`ViewerOptions.keyBindings`
/// takes another table).
public let standardKeyBindings: [KeyBinding] = [
    KeyBinding("j ↓", [.character("j"), .down], .down, "next row"),
    KeyBinding("k ↑", [.character("k"), .up], .up, "previous row"),
    KeyBinding("PgDn Space", [.pageDown, .character(" ")], .pageDown, "next screenful"),
    KeyBinding("PgUp", [.pageUp], .pageUp, "previous screenful"),
    KeyBinding("g Home", [.character("g"), .home], .first, "first row"),
    KeyBinding("G End", [.character("G"), .end], .last, "last row (loads every page up to it)"),
    KeyBinding("← Shift-Tab", [.left, .backTab], .columnLeft, "column cursor left (its title is highlighted)"),
    KeyBinding("→ Tab", [.right, .tab], .columnRight, "column cursor right"),
    KeyBinding("x", [.character("x")], .hideColumn, "hide the column under the cursor"),
    KeyBinding("X", [.character("X")], .showColumns, "show hidden columns again (a list to pick from)"),
    KeyBinding(">", [.character(">")], .widenColumn, "widen the column under the cursor"),
    KeyBinding("<", [.character("<")], .narrowColumn, "narrow the column under the cursor"),
    KeyBinding("H", [.character("H")], .moveColumnLeft, "move the column under the cursor left"),
    KeyBinding("L", [.character("L")], .moveColumnRight, "move the column under the cursor right"),
    KeyBinding("Enter", [.enter], .open, "open the selected child: its children become the table"),
    KeyBinding("Backspace h", [.backspace, .character("h")], .back, "back up to the parent location (on a sheet: close it)"),
    KeyBinding("s", [.character("s")], .sortByColumn, "sort by the column under the cursor (orderByChild)"),
    KeyBinding("S", [.character("S")], .sortByKey, "sort by key"),
    KeyBinding("r", [.character("r")], .reverse, "reverse: limit-to-first ↔ limit-to-last (shown last first)"),
    KeyBinding("/", [.character("/")], .search, "find a text in any key or cell of every child (\\v: a regex; lower case ignores case)"),
    KeyBinding("n", [.character("n")], .searchNext, "next match (wraps at the bottom)"),
    KeyBinding("N", [.character("N")], .searchPrevious, "previous match (wraps at the top)"),
    KeyBinding("f", [.character("f")], .filter, "filter the column under the cursor (sorting by it): 42, text*, >= 10, < 5, 10..20"),
    KeyBinding("w", [.character("w")], .whereFilter, "keep the rows a jq expression is true for (.score > 100 and .team == \"a\"); a second narrows the first; ↑ ↓ recall"),
    KeyBinding("Esc", [.escape], .clearFilter, "clear the last w filter, then the f filter (else the search's highlights, else close the JSON pane; a running search: stop it)"),
    KeyBinding("E", [.character("E")], .export, "write the table (rows in order, the columns shown) to a file: .json, .jsonl, .csv or .tsv"),
    KeyBinding("(", [.character("(")], .expandColumn, "expand the object column under the cursor into a column per member (metrics/views)"),
    KeyBinding(")", [.character(")")], .collapseColumn, "collapse the member columns of the one under the cursor back into their object column"),
    KeyBinding("=", [.character("=")], .computedColumn, "add a column computed by a jq expression (ratio = .score / .level), after the one under the cursor; s sorts by it, f filters it"),
    KeyBinding("p", [.character("p")], .pause, "pause live updates; again to apply what waited as one batch"),
    KeyBinding("v", [.character("v")], .showJSON, "show the selected child as JSON in a pane below (long lines wrap)"),
    KeyBinding("V", [.character("V")], .focusJSON, "scroll the JSON pane: j k PgDn PgUp g G; V, Tab or Esc back to the table"),
    KeyBinding("m", [.character("m")], .showProblem, "the file's or the connection's problem in full, in a pane below (the message line keeps to one line); m again closes"),
    KeyBinding("y", [.character("y")], .copyPath, "copy the selected child's path (terminal clipboard, OSC 52)"),
    KeyBinding("Y", [.character("Y")], .copyValue, "copy the selected child's value as JSON (OSC 52; controls escaped)"),
    KeyBinding("e", [.character("e")], .edit, "with --edit: edit the selected cell (JSON, or text as a string)"),
    KeyBinding("+", [.character("+")], .increment, "with --edit: add 1 to the selected cell (server increment)"),
    KeyBinding("-", [.character("-")], .decrement, "with --edit: subtract 1 from the selected cell"),
    KeyBinding("d", [.character("d")], .delete, "with --edit: delete the selected child (asks first)"),
    KeyBinding("a", [.character("a")], .add, "with --edit: add a child (an array's next index, else a push id)"),
    KeyBinding("u", [.character("u")], .undo, "with --edit: undo this viewer's last write, if the value is still the one it wrote (several steps)"),
    KeyBinding("U Ctrl-R", [.character("U"), .character("\u{12}")], .redo, "with --edit: redo what u undid, if the value is still the one u put back"),
    KeyBinding("F", [.character("F")], .frequency, "frequency table of the column under the cursor, as a sheet on top (live; Enter opens a value's rows)"),
    KeyBinding("I", [.character("I")], .statistics, "statistics of every column (kinds, missing, distinct, min, max, mean, median, …), as a sheet"),
    KeyBinding("b", [.character("b")], .toggleBinning, "on a frequency sheet: count numbers in ranges, or each on its own again"),
    KeyBinding("[", [.character("[")], .historyBack, "history: the table one revision back, its changes marked (writes off in the past)"),
    KeyBinding("]", [.character("]")], .historyForward, "history: one revision forward (past the newest: the present)"),
    KeyBinding("P", [.character("P")], .historyPresent, "history: back to the present (Esc too)"),
    KeyBinding("{", [.character("{")], .rowChangePrevious, "history: the previous revision that changed the selected row"),
    KeyBinding("}", [.character("}")], .rowChangeNext, "history: the next revision that changed the selected row"),
    KeyBinding("C", [.character("C")], .changeLog, "history: the change log, newest first (Enter: that revision, that row selected)"),
    KeyBinding("T", [.character("T")], .timeline, "history: the selected row's timeline, each revision that changed it (numbers as sparklines)"),
    KeyBinding("~", [.character("~")], .sparkColumn, "trend: a column of each row's recent values of the column under the cursor, as a sparkline (again to remove)"),
    KeyBinding("R", [.character("R")], .rateColumn, "rate: a column of the per-second change of the numeric column under the cursor between revisions (reset: it went down)"),
    KeyBinding("?", [.character("?")], .help, "this help (j k PgDn PgUp scroll it; q, Esc or ? close it)"),
    KeyBinding("Ctrl-L", [.character("\u{0C}")], .repaint, "redraw the whole screen (after another program wrote over it)"),
    KeyBinding("q", [.character("q")], .quit, "quit (on a sheet: close it, back to the one below)"),
]

/// The action bound to `key` in `bindings`, if any (the first binding that lists it).
func viewerAction(for key: Key, in bindings: [KeyBinding]) -> ViewerAction? {
    bindings.first { $0.keys.contains(key) }?.action
}
