// `synctable watch`: a command's output as a live table, run every interval.
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

    @Option(help: ArgumentHelp(
        "A run still going after this long fails and is ended (default: the larger of 30s and 10 times --every).",
        valueName: "duration"))
    var timeout: String?

    @Option(help: ArgumentHelp("A run printing more than this fails and is ended (default: 256 MiB).", valueName: "bytes"))
    var maxOutputBytes: Int?

    @OptionGroup var query: QueryOptions
    @OptionGroup var revisions: RevisionOptions
    @OptionGroup var flags: ViewerFlags
    @OptionGroup var computed: ComputedOptions

    @Argument(help: "The command and its arguments, after --.")
    var command: [String] = []

    func run() throws {
        let source = try CommandSource(command: command, every: every, everyFlag: "--every", timeout: timeout, maxOutputBytes: maxOutputBytes)
        guard !flags.edit else { throw CommandError("--edit: a command's output cannot be edited") }
        var options = try viewerOptions(file: source.command.joined(separator: " "), format: .json, cacheable: false, config: try loadConfig())
        options.edit = false  // also when the configuration says "edit": true
        try launchViewer(options, command: source, keyedBy: try revisions.fold(), extras: try revisions.extras())
    }
}
