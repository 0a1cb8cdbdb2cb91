// `synctable [view] FILE`: the live table.
import ArgumentParser
import FileStore
import Headless
import JSONTree
import KeyedStore
import LiveQuery
import RemoteStore
import SyncedArray
import ViewerCore

/// `synctable [view] FILE [--path P] [query flags] [--columns a,b,c/d] [--page-size N] [--no-animation]`.
struct View: ParsableCommand, ViewerCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Show the children of a location as a live table (the default: synctable FILE).",
        discussion: """
            The table follows the file as other programs save it: new, changed, moved and deleted \
            rows are animated in place. When the file is invalid, the last good table stays and \
            the status bar shows the error's line and column; when it is missing, the viewer \
            waits for it. Without a limit flag the rows come a page at a time (--page-size); a \
            limit-to-last window is shown last first (the highest scores at the top), and r flips \
            it. Press ? in the viewer for every key. Exit status: 0 after q; 2 when the file \
            cannot be read, the query or a flag is invalid, or the terminal cannot be used.

            A JSON Lines file (.jsonl, .ndjson, --input jsonl) is shown as a log: line N is the row N, \
            the newest at the bottom, and the table follows new lines (FOLLOWING) while the newest \
            row is selected; moving up pauses (paused at row N), G or End follows again. With '-', \
            standard input is read as it arrives (one JSON document, or a stream of values) and \
            keys come from the terminal (/dev/tty).
            """
    )

    @Argument(help: "The JSON file to show (it need not exist yet); '-' reads standard input; or a database URL (http(s)://…/location).")
    var file: String

    @OptionGroup var query: QueryOptions
    @OptionGroup var revisions: RevisionOptions
    @OptionGroup var flags: ViewerFlags
    @OptionGroup var computed: ComputedOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions

    func run() throws {
        let format = file == "-" ? FileStore.Format.jsonLines : input.format(of: file)
        // Only a file's first page is kept: a database's may hold what a token was needed for.
        let cacheable = file != "-" && !DatabaseURL.looksLikeURL(file)
        try launchViewer(try viewerOptions(file: file, format: format, cacheable: cacheable, config: try loadConfig()), remote: remote,
                         keyedBy: try revisions.fold(), extras: try revisions.extras())
    }
}

/// A command that opens the viewer (`view`, `watch`, `replay`): `--path` and the query flags,
/// `--key`, the revision extras, the viewer's own flags and the computed columns. Each command
/// declares these groups itself, one level deep: a group inside a group makes the argument
/// parser's debug-build checks run five times over for each (most of a command's time in the
/// tests).
protocol ViewerCommand {
    var query: QueryOptions { get }
    var revisions: RevisionOptions { get }
    var flags: ViewerFlags { get }
    var computed: ComputedOptions { get }
}

extension ViewerCommand {
    func viewerOptions(file: String, format: FileStore.Format, cacheable: Bool, config: ViewerConfig) throws(CommandError) -> ViewerOptions {
        try flags.viewerOptions(file: file, format: format, cacheable: cacheable, config: config, query: query, revisions: revisions, computed: computed)
    }
}

/// The viewer's own flags: the columns, paging, editing, history.
struct ViewerFlags: ParsableArguments {
    // .unconditional: `--columns -email` takes `-email` as the value, not as a flag.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Columns after the key: comma-separated paths inside each child (nested: metrics/views); "
            + "-name hides one from the default set (the children's members, most common first).",
        valueName: "a,b,c/d"))
    var columns: String?

    @Option(help: ArgumentHelp(
        "Rows per page without a limit flag; the next page loads near the end (0: every row at once).",
        valueName: "N"))
    var pageSize: Int?

    @Flag(help: "Show each change at once, without animations.")
    var noAnimation = false

    @Flag(help: ArgumentHelp(
        "Let keys write to the file (e, +, -, d, a, u, U); without it the viewer only reads. A file you cannot "
            + "write (by its permission bits, even as root) stays read-only, and the status bar says READ-ONLY."))
    var edit = false

    @Flag(help: "No key writes (the default): overrides \"edit\": true in the configuration.")
    var readOnly = false

    @Flag(help: ArgumentHelp(
        "Do not keep the first page between runs (by default it is kept under $XDG_CACHE_HOME/synctable "
            + "and shown at once while a large file is read)."))
    var noCache = false

    @Option(help: ArgumentHelp(
        "Revisions the time machine keeps ([ steps back, ] forward); the oldest go first, also past 64 MiB.",
        valueName: "N"))
    var history: Int = 1_000

    @Option(help: ArgumentHelp(
        "A trend column: each row's recent values of this numeric path as a sparkline (repeat for more; ~ adds one).",
        valueName: "path"))
    var spark: [String] = []

    /// The options, checked: each problem names its flag. (`QueryOptions.validate()` has
    /// already refused bad query flags, with status 2.)
    func viewerOptions(file: String, format: FileStore.Format, cacheable: Bool, config: ViewerConfig,
                       query: QueryOptions, revisions: RevisionOptions, computed: ComputedOptions) throws(CommandError) -> ViewerOptions {
        var computedColumns = try computed.columns(after: config.computed)
        let location: Path
        let flags: Query
        do {
            (location, flags) = try query.resolved(computed: computedColumns)
            // The order's column is shown, after the others.
            if let order = try query.computedOrder(among: computedColumns), !computedColumns.contains(order) {
                computedColumns.append(order)
            }
        } catch {
            throw CommandError("\(error)")
        }
        let pageSize = self.pageSize ?? config.pageSize ?? 200
        guard pageSize >= 0 else { throw CommandError("--page-size must be 0 or more, not \(pageSize)") }
        let choice = try (columns ?? config.columns).map { text throws(CommandError) in try ColumnChoice(parsing: text) }
        var viewQuery = ViewQuery(flags: flags, pageSize: pageSize)
        do {
            viewQuery.conditions = try query.condition().map { [$0] } ?? []
        } catch {
            throw CommandError("\(error)")
        }
        // A log's records are shown as `tail -f` shows them: the newest at the bottom, followed.
        if format == .jsonLines && location.isRoot && revisions.key == nil { viewQuery.showTail() }
        var options = ViewerOptions(
            file: file, format: format, location: location, query: viewQuery, columns: choice?.shown,
            pageSize: pageSize, animations: !(noAnimation || config.noAnimation == true),
            cache: noCache || config.noCache == true || !cacheable ? nil : FirstPageCache.standard(),
            keyBindings: config.keyBindings(standardKeyBindings))
        options.hiddenColumns = choice?.hidden ?? []
        guard !(edit && readOnly) else { throw CommandError("--edit and --read-only: give one of them, not both") }
        options.edit = edit || (!readOnly && config.edit == true && config.readOnly != true)
        options.styles = config.styles
        guard history >= 0 else { throw CommandError("--history must be 0 or more, not \(history)") }
        options.history.revisions = history
        for text in spark {
            do { options.sparkColumns.append(try Path(text.hasPrefix("/") ? text : "/" + text)) } catch {
                throw CommandError("--spark: \(error)")
            }
        }
        options.computedColumns = computedColumns
        return options
    }
}

/// Runs the viewer with `options`; a status other than 0 (a signal) ends the program with it.
func launchViewer(_ options: ViewerOptions, remote: RemoteOptions? = nil, command: CommandSource? = nil, keyedBy fold: KeyedFold? = nil,
                  extras: RevisionExtras = RevisionExtras()) throws {
    let status = try runViewer(options, remote: remote, command: command, keyedBy: fold, extras: extras)
    if status != 0 { throw ExitCode(status) }
}
