// `synctable history`: the changes the viewer's history keeps, as JSON lines while the file changes.
import ArgumentParser
import FileStore
import Headless
import JSONTree
import LiveQuery

/// `synctable history FILE [--path P] [query flags] [--follow]`: one JSON line per child a
/// revision changed in the query's window.
struct History: ParsableCommand, SourceCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what each revision changes in a query's window, as JSON lines.",
        discussion: """
            The changes the viewer's history keeps: for each revision that changes the window, one \
            line per child it added, removed, moved or changed, with the revision, its time (UTC) and \
            the values before and after:
              {"revision":R,"time":T,"writer":W,"event":"added","key":K,"index":I,"new":V}
              {"revision":R,"time":T,"writer":W,"event":"removed","key":K,"fromIndex":F,"old":V}
              {"revision":R,"time":T,"writer":W,"event":"moved","key":K,"fromIndex":F,"index":I}
              {"revision":R,"time":T,"writer":W,"event":"changed","key":K,"fromIndex":F,"index":I,"fields":[{"path":P,"old":V,"new":V}]}
            A changed child lists only the fields that changed (a field missing before or after has \
            no "old" or "new"). Without --follow the command prints the next revision that changes \
            the window and exits; with it, every one until SIGINT or SIGTERM (exit 0), or \
            --exit-after-revisions. A journal (written by --record) is printed whole, from its \
            second revision (--since and --until cut it), and the command ends.
            """
    )

    @OptionGroup var operands: SourceOperands
    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions
    @OptionGroup var revisions: RevisionOptions

    @Flag(help: "Keep printing each revision's changes as they come.")
    var follow = false

    @Option(help: ArgumentHelp("With --follow: exit after N revisions that changed the window.", valueName: "N"))
    var exitAfterRevisions: Int?

    func validate() throws { try validateExitAfterRevisions(exitAfterRevisions) }

    func run() throws {
        let (location, filter) = try source.query.locationAndQuery()
        let store = try source.open(file, FileStore.Options(format: source.input.format(of: file)), at: location, query: filter,
                                    keyedBy: try source.revisions.fold())
        try printHistory(of: store, at: location, query: filter, follow: follow, exitAfterRevisions: exitAfterRevisions)
    }
}
