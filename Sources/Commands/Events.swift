// `synctable events`: a query's events as JSON lines while another process edits the file.
import ArgumentParser
import Dispatch
import FileStore
import Headless
import JSONTree
import LiveQuery
#if canImport(Glibc)
import Glibc
#endif

/// `synctable events FILE [--path P] [query flags]`: one JSON line per event, flushed after each revision.
struct Events: ParsableCommand, SourceCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a query's events as JSON lines while the file changes.",
        discussion: """
            First the current window (child_added for each row, then value), then for each revision \
            that changes the window its events in the Realtime Database's order:
              {"event":"child_removed","key":K,"index":I,"value":V}
              {"event":"child_added","key":K,"prevKey":P,"index":I,"value":V}
              {"event":"child_moved","key":K,"prevKey":P,"index":I,"fromIndex":F,"value":V}
              {"event":"child_changed","key":K,"prevKey":P,"index":I,"value":V}
              {"event":"value","count":N}
            Every index refers to the list as replayed so far (remove at I; insert at I; move from F \
            to I; replace at I), so the events can be applied by index alone. Values are the file's own JSON, compacted to one line. When the file is invalid, missing or \
            unreadable: {"event":"error","message":M,"line":L,"column":C} (line and column null when \
            not a JSON error), and the stream goes on. Output is flushed after each revision. Runs \
            until SIGINT or SIGTERM (exit 0), or --exit-after-revisions.

            A JSON Lines file (.jsonl, .ndjson, --input jsonl) is a list whose child N is line N, \
            followed as lines are appended; a line that is not valid JSON is a row \
            {"$error":{"line":L,"column":C,"message":M}} and also prints \
            {"event":"error","key":K,"message":M,"line":L,"column":C}. With '-', standard input is \
            read: one JSON document, or a stream of values (JSON Lines, or any whitespace between) \
            followed as they arrive; the command exits 0 when the input ends.
            """
    )

    @OptionGroup var operands: SourceOperands
    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions
    @OptionGroup var revisions: RevisionOptions

    @Option(help: ArgumentHelp(
        "Exit after N revisions of the file (the first read is revision 1). A read that finds the file invalid, "
            + "missing or unreadable (an error line) counts as a revision too.", valueName: "N"))
    var exitAfterRevisions: Int?

    func validate() throws { try validateExitAfterRevisions(exitAfterRevisions) }

    func run() throws {
        let (location, filter) = try source.query.locationAndQuery()
        var options = FileStore.Options(format: file == "-" ? .jsonLines : source.input.format(of: file))
        let fold = try source.revisions.fold()
        if options.format == .jsonLines, file != "-", fold == nil, let newest = onlyNewestRecords(location, filter) { options.newestFirst = newest }
        let store = try source.open(file, options, at: location, query: filter, keyedBy: fold)
        try printEvents(of: store, at: location, query: filter, exitAfterRevisions: exitAfterRevisions)
    }
}
