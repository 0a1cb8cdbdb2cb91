// Every key of the viewer, in one table: the run loop dispatches from it and the help
// screen (and the README) lists it.
import TableUI

/// What a key asks the viewer to do: a name a configuration file's `keys` uses (`searchNext`).
///
/// A struct rather than an enum, so that a sheet's file declares its own action beside the
/// sheet (see `SheetOpener`); `switch` matches the constants as it would cases.
public struct ViewerAction: Hashable, Sendable, CustomStringConvertible {
    /// The action's name in a configuration file's `keys` (`searchNext`).
    public let name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }

    public static let down = Self("down"), up = Self("up"), pageDown = Self("pageDown"), pageUp = Self("pageUp")
    public static let first = Self("first"), last = Self("last"), columnLeft = Self("columnLeft"), columnRight = Self("columnRight")
    public static let hideColumn = Self("hideColumn"), showColumns = Self("showColumns"), widenColumn = Self("widenColumn")
    public static let narrowColumn = Self("narrowColumn"), moveColumnLeft = Self("moveColumnLeft"), moveColumnRight = Self("moveColumnRight")
    public static let open = Self("open"), back = Self("back")
    public static let sortByColumn = Self("sortByColumn"), sortByKey = Self("sortByKey"), reverse = Self("reverse")
    public static let filter = Self("filter"), clearFilter = Self("clearFilter"), whereFilter = Self("whereFilter")
    public static let export = Self("export"), expandColumn = Self("expandColumn"), collapseColumn = Self("collapseColumn")
    public static let computedColumn = Self("computedColumn"), numberFormat = Self("numberFormat")
    public static let search = Self("search"), searchNext = Self("searchNext"), searchPrevious = Self("searchPrevious")
    public static let pause = Self("pause"), showJSON = Self("showJSON"), focusJSON = Self("focusJSON"), showProblem = Self("showProblem")
    public static let copyPath = Self("copyPath"), copyValue = Self("copyValue")
    public static let edit = Self("edit"), increment = Self("increment"), decrement = Self("decrement"), delete = Self("delete")
    public static let add = Self("add"), undo = Self("undo"), redo = Self("redo")
    public static let historyBack = Self("historyBack"), historyForward = Self("historyForward"), historyPresent = Self("historyPresent")
    public static let rowChangePrevious = Self("rowChangePrevious"), rowChangeNext = Self("rowChangeNext")
    public static let sparkColumn = Self("sparkColumn"), rateColumn = Self("rateColumn")
    public static let help = Self("help"), repaint = Self("repaint"), quit = Self("quit")

    /// Every action with a standard key (the registered sheets' too), in the help screen's order.
    public static var allCases: [ViewerAction] {
        var seen = Set<ViewerAction>()
        return standardKeyBindings.map(\.action).filter { seen.insert($0).inserted }
    }
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
/// takes another table): the keys every table has, with each registered sheet's keys placed
/// after the key it names (`SheetOpener.bindings`).
public let standardKeyBindings: [KeyBinding] = {
    var bindings = baseKeyBindings
    for opener in registeredSheets {
        for (anchor, binding) in opener.bindings {
            let at = bindings.lastIndex { $0.action == anchor }.map { $0 + 1 } ?? bindings.count
            bindings.insert(binding, at: at)
        }
    }
    return bindings
}()

/// The keys that are not a sheet's own.
private let baseKeyBindings: [KeyBinding] = [
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
    KeyBinding("s", [.character("s")], .sortByColumn, "sort by the column under the cursor (orderByChild); rows without a value (missing, null, an error) last, counted in the status bar"),
    KeyBinding("S", [.character("S")], .sortByKey, "sort by key"),
    KeyBinding("r", [.character("r")], .reverse, "reverse: limit-to-first ↔ limit-to-last (shown last first)"),
    KeyBinding("/", [.character("/")], .search, "find a text in any key or cell of every child (\\v: a regex; lower case ignores case)"),
    KeyBinding("n", [.character("n")], .searchNext, "next match (wraps at the bottom)"),
    KeyBinding("N", [.character("N")], .searchPrevious, "previous match (wraps at the top)"),
    KeyBinding("f", [.character("f")], .filter, "filter the column under the cursor (sorting by it): 42, text*, >= 10, < 5, 10..20"),
    KeyBinding("w", [.character("w")], .whereFilter, "keep the rows a jq expression is true for (.score > 100 and .team == \"a\"); a second narrows the first; ↑ ↓ recall"),
    KeyBinding("Esc", [.escape], .clearFilter, "clear the last w filter, then the f filter (else the search's highlights, else close the JSON pane; a running search: stop it)"),
    KeyBinding("E", [.character("E")], .export, "write the table (rows in order, the columns shown) to a file: .records.json (rows as shown), .json, .jsonl (key and value), .csv or .tsv"),
    KeyBinding("(", [.character("(")], .expandColumn, "expand the object column under the cursor into a column per member (metrics/views)"),
    KeyBinding(")", [.character(")")], .collapseColumn, "collapse the member columns of the one under the cursor back into their object column"),
    KeyBinding("%", [.character("%")], .numberFormat, "how the column under the cursor shows numbers: digits after the point (2), thousands (,), bytes as KiB/MiB (b), a time from epoch seconds (s) or milliseconds (ms); empty: as written"),
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
    KeyBinding("[", [.character("[")], .historyBack, "history: the table one revision back, its changes marked (writes off in the past)"),
    KeyBinding("]", [.character("]")], .historyForward, "history: one revision forward (past the newest: the present)"),
    KeyBinding("P", [.character("P")], .historyPresent, "history: back to the present (Esc too)"),
    KeyBinding("{", [.character("{")], .rowChangePrevious, "history: the previous revision that changed the selected row"),
    KeyBinding("}", [.character("}")], .rowChangeNext, "history: the next revision that changed the selected row"),
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
