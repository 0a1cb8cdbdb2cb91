// `synctable watch`: a command's output as a live table, run every interval; and the flags of a
// command source that `list`, `events` and `history` share.
import ArgumentParser
import FileStore
import Headless
import KeyedStore

/// `synctable watch [--every 2s] [query and view flags] -- COMMAND [ARGS…]`.
struct Watch: ParsableCommand, ViewerCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a command's JSON output as a live table, run again every interval.",
        discussion: """
            The command runs without a shell (sh -c '…' for one), then again --every after it ended \
            (never two runs at once). Its output is one JSON document, or JSON Lines (a log, as \
            with '-'); each run whose output differs is a revision, so the table, the time machine \
            and every key work on it. A run that fails (exit status, invalid JSON, --timeout, \
            --max-output-bytes) is shown in words while the table keeps the last good revision. \
            Ending the viewer ends the command's whole process group. Exit status: 2 when the \
            command does not exist.
            """
    )

    @Option(help: ArgumentHelp("The rest between the end of a run and the start of the next (2s, 500ms, 1m).", valueName: "duration"))
    var every = "2s"

    @OptionGroup var bounds: RunBounds
    @OptionGroup var query: QueryOptions
    @OptionGroup var keyed: KeyOptions
    @OptionGroup var revisions: RevisionOptions
    @OptionGroup var flags: ViewerFlags
    @OptionGroup var computed: ComputedOptions

    @Argument(help: "The command and its arguments, after --.")
    var command: [String] = []

    func run() throws {
        let source = try bounds.source(command, every: every, flag: "--every")
        guard !flags.edit else { throw CommandError("--edit: a command's output cannot be edited") }
        var options = try viewerOptions(file: source.command.joined(separator: " "), format: .json, cacheable: false, config: try loadConfig())
        options.edit = false  // also when the configuration says "edit": true
        try launchViewer(options, command: source, keyedBy: try keyed.fold(), extras: try revisions.extras())
    }
}

/// `--timeout` and `--max-output-bytes`: the bounds of each run of a command source.
struct RunBounds: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A run still going after this long fails and is ended (default: the larger of 30s and 10 times the interval).",
        valueName: "duration"))
    var timeout: String?

    @Option(help: ArgumentHelp("A run printing more than this fails and is ended (default: 256 MiB).", valueName: "bytes"))
    var maxOutputBytes = 256 << 20

    func source(_ command: [String], every: String, flag: String) throws(CommandError) -> CommandSource {
        try CommandSource(command: command, every: every, everyFlag: flag, timeout: timeout, maxOutputBytes: maxOutputBytes)
    }
}

/// `--watch 2s -- COMMAND [ARGS…]` of `list`, `events` and `history`: a command's output instead of a file.
struct WatchOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Read the output of the command after -- instead of a file (FILE is the command's name), run again "
            + "this long after each run ends (2s, 500ms, 1m); list runs it once.", valueName: "duration"))
    var watch: String?

    @Argument(help: "With --watch: the command's arguments.")
    var arguments: [String] = []

    /// The command source --watch asks for, with `name` as its program; nil without --watch.
    func source(_ name: String, bounds: RunBounds) throws(CommandError) -> CommandSource? {
        guard let watch else {
            if let first = arguments.first { throw CommandError("unexpected argument '\(first)': only a command (--watch) takes more arguments") }
            return nil
        }
        return try bounds.source([name] + arguments, every: watch, flag: "--watch")
    }
}
