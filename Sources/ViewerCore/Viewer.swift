// The viewer: a live table of one location of a JSON file, bound to the store's query.
import StoreInterface
import JSONTree
import LiveQuery
import SyncedArray
import TableUI

/// What to show (from the command line, or a program's own choice).
public struct ViewerOptions {
    /// The file, as given (shown in the status bar); "-" for standard input.
    public var file: String
    /// How the file is read (JSON Lines: a log, followed at its end).
    public var format: SourceFormat
    /// The location whose children are the rows.
    public var location: Path
    public var query: ViewQuery
    /// The columns after the key, for the starting location; nil: inferred.
    public var columns: [Path]?
    /// Rows per page (0: no paging), also for locations opened with Enter.
    public var pageSize: Int
    public var animations: Bool
    /// Where the starting location's first page is kept between runs (nil: no cache).
    public var cache: FirstPageCache?
    /// The keys: dispatch and the help screen both read this table.
    public var keyBindings: [KeyBinding]
    /// Columns not to show (`--columns -name`), for the starting location.
    public var hiddenColumns: [Path] = []
    /// Keys may write to the file (`--edit`). Off by default: a viewer is a guest of the program
    /// that owns the file, and a single key must not change it unasked. A file the user cannot
    /// write stays read-only even with it.
    public var edit = false
    /// The opposite of `edit`, as programs written when writing was the default set it.
    @available(*, deprecated, message: "a viewer is read-only unless `edit` is set: set edit = true to allow writes")
    public var readOnly: Bool {
        get { !edit }
        set { edit = !newValue }
    }
    /// Styles from the configuration, over the terminal's standard theme.
    public var styles = ThemeStyles()
    /// Trend columns (`--spark score`): each row's recent values of these paths as sparklines.
    public var sparkColumns: [Path] = []
    /// Computed columns (`--computed 'ratio = .score / .level'`), after the others, for the starting location.
    public var computedColumns: [ComputedColumn] = []
    /// How many revisions of the rows the time machine keeps (`--history N`), and in how many bytes.
    public var history = HistoryLimits()

    public init(file: String, format: SourceFormat = .json, location: Path = .root, query: ViewQuery? = nil,
                columns: [Path]? = nil, pageSize: Int = 200, animations: Bool = true,
                cache: FirstPageCache? = nil, keyBindings: [KeyBinding] = standardKeyBindings) {
        self.file = file
        self.format = format
        self.location = location
        self.query = query ?? ViewQuery(flags: Query(), pageSize: pageSize)
        self.columns = columns
        self.pageSize = pageSize
        self.animations = animations
        self.cache = cache
        self.keyBindings = keyBindings
    }
}

/// The viewer: a stack of sheets — the location's children at the bottom (`ChildrenSheet`),
/// derived tables and charts above — and the screen around them (mode, prompt, message, the
/// JSON pane, undo).
///
/// It draws into any `Canvas` and is driven from outside: `handle(_:)` for each key, `tick()`
/// when the clock moves (animation frames, the next page), and the store's loop for revisions.
/// The program's run loop, or a test, owns the thread.
///
/// One thread (the caller's) owns everything here: the canvas, the sheets, the store (whose
/// loop the caller drives) and the synced array of the location shown, which calls back on
/// this thread (see `ChildrenSheet`).
public final class Viewer {
    let options: ViewerOptions
    let store: any LiveStore
    /// What the terminal shows: every sheet and line draws through it (the one screen cache).
    let screen: ScreenCanvas
    var canvas: Canvas { screen }
    let environment: ViewerEnvironment
    /// The location's table: the bottom of the stack.
    let children: ChildrenSheet
    /// The sheets shown, bottom first: `children`, then those opened above it.
    private(set) var sheets: [any StackSheet] = []

    var storeStatus: StoreStatus
    /// The viewer's status and revision observers on the store.
    var storeObservers: [ObserverHandle] = []
    /// The latest revision's number and wall-clock time.
    var lastRevision: (number: Int, time: String)?
    var mode: Mode = .table
    var paneOpen = false
    /// The pane shows the store's or the connection's problem in full (`m`), not the JSON.
    var paneShowsProblem = false
    /// The JSON pane has the keys (j/k/PgDn/PgUp scroll it); the table waits.
    var paneFocused = false
    /// The pane's first line shown (its scroll), for the child at `paneChild`.
    var paneTop = 0
    var paneChild: Path?
    var message: Message?
    /// Why no key writes; nil: keys write.
    var readOnlyReason: ReadOnlyReason?
    /// The viewer's own writes, latest last, for `u`.
    var undoSteps: [UndoStep] = []
    /// Steps `u` undid, latest last, for `U` (a new write forgets them).
    var redoSteps: [UndoStep] = []
    /// False once the user quit (`q`).
    public internal(set) var isRunning = true
    var lastLayout: Layout?

    enum Mode {
        case table
        /// The help screen, scrolled to its line `top`.
        case help(top: Int)
        case prompt(Prompt)
        case confirm(Confirmation)
    }

    struct Message {
        var text: String
        var isError: Bool
    }

    /// A viewer of `store` drawing into `canvas`; it subscribes at once (the store answers with
    /// its current rows when it has a revision).
    public init(options: ViewerOptions, store: any LiveStore, canvas: Canvas, environment: ViewerEnvironment = ViewerEnvironment()) {
        self.options = options
        self.store = store
        screen = ScreenCanvas.over(canvas)
        self.environment = environment
        storeStatus = store.status
        readOnlyReason = Viewer.readOnlyReason(options: options)
        children = ChildrenSheet(options: options, store: store, environment: environment)
        sheets = [children]
        children.viewer = self
        storeObservers = [
            store.observeStatus { [unowned self] status in storeStatus = status },
            store.observeRevisions { [unowned self] revision in
                let time = self.environment.clock.timeOfDay()
                lastRevision = (revision.number, time)
                noteUndoChanges(revision, time: time)
            },
        ]
        children.start(cache: options.cache)
    }

    /// The location's table (the bottom sheet's).
    public var table: TableView { children.table }

    /// The sheet on top of the stack: the one shown, which the keys act on.
    var top: any StackSheet { sheets[sheets.count - 1] }

    /// The revisions of the rows kept for the time machine (`[`, `]`), nil before the first rows.
    public var history: RevisionHistory? { children.array?.history }

    /// The next moment an animation frame is due (the caller's wait ends then); nil: none.
    public var nextDeadline: Double? {
        // In the past the marks are held: no frame is due.
        [children.inHistory ? nil : top.nextDeadline, children.searchDeadline].compactMap { $0 }.min()
    }

    /// The clock moved: animations advance, and the next page loads when the selection is near
    /// the end of the rows.
    public func tick() {
        let now = environment.clock.now()
        children.tick(now: now)
        if top !== children { top.tick(now: now) }
        children.collectSearch()
        children.loadMoreIfNeeded()
    }

    /// Esc or Ctrl-C: stops a search that is running. Returns whether there was one.
    @discardableResult
    public func interrupt() -> Bool { children.interrupt() }

    /// Stops listening (the store may outlive the viewer).
    public func stop() {
        popToChildren()
        children.stop()
        for handle in storeObservers { store.removeObserver(handle) }
        storeObservers = []
    }

    /// Opens `sheet` on top of the stack: it starts following the store at once.
    public func push(_ sheet: any Sheet) {
        push(shown: TableSheet(sheet, viewer: self, settings: table.settings))
    }

    /// Opens a sheet of any kind on top of the stack.
    func push(shown sheet: any StackSheet) {
        sheets.append(sheet)
        closePane()
        sheet.start()
        redrawAll()
    }

    /// Closes the top sheet; the one below is shown again (the location's table stays).
    func popSheet() {
        guard sheets.count > 1 else { return }
        sheets.removeLast().stop()
        closePane()
        redrawAll()
    }

    /// Closes every sheet above the location's table.
    func popToChildren() {
        while sheets.count > 1 { popSheet() }
    }

    /// The sheet shown, as export and other readers of what is on screen see it: the top
    /// derived sheet, or nil for the location's table (whose rows are the synced array's).
    public var shownSheet: (any Sheet)? { top.derivedSheet }

    /// The sheets above the location's table, bottom first (the status bar's trail).
    public var sheetTitles: [String] { sheets.dropFirst().map(\.title) }

    /// Forgets what the screen shows, so the next render draws every cell (after a resize, a
    /// new layout, the help screen, a sheet opening or closing): the one cache of what is on
    /// screen, which every sheet draws through.
    func redrawAll() {
        screen.forget()
    }
}

/// The children of a location as the database counts them: members and elements that are not
/// null, without metadata members (`.priority`).
/// - Complexity: O(members or elements).
func childCount(of node: JSONNode) -> Int {
    switch node.kind {
    case .object:
        // The key's first byte, as ChildList reads it: no String per member (a watched table
        // is counted again each run).
        node.members.reduce(0) { n, member in
            n + (member.value.isNull || member.key.withStringBytes({ $0.first == UInt8(ascii: ".") }) ? 0 : 1)
        }
    case .array: node.elements.reduce(0) { n, element in n + (element.isNull ? 0 : 1) }
    default: 0
    }
}
