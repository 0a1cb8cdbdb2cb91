// `synctable history`: the changes the viewer's history keeps, as JSON lines while the file changes.
import ArgumentParser
import FileStore
import Headless
import JSONTree
import LiveQuery
import SyncedArray
#if canImport(Glibc)
import Glibc
#endif

/// `synctable history FILE [--path P] [query flags] [--follow]`: one JSON line per child a
/// revision changed in the query's window.
struct History: ParsableCommand {
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
            --exit-after-revisions.
            """
    )

    @Argument(help: "The JSON file to watch, or a database URL (http(s)://…/location).")
    var file: String

    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions
    @OptionGroup var watch: WatchOption
    @OptionGroup var keyed: KeyOptions

    @Flag(help: "Keep printing each revision's changes as they come.")
    var follow = false

    @Option(help: ArgumentHelp("With --follow: exit after N revisions that changed the window.", valueName: "N"))
    var exitAfterRevisions: Int?

    func validate() throws {
        if let n = exitAfterRevisions, n < 1 {
            throw ValidationError("--exit-after-revisions must be a positive integer, not \(n)")
        }
    }

    func run() throws {
        let location: Path, filter: Query
        do { location = try Path(query.path) } catch {
            throw CommandError("--path: \(error)")
        }
        do { filter = try query.makeQuery() } catch {
            throw CommandError("\(error)")
        }
        let store = try openStore(file, credential: remote.credential, file: FileStore.Options(format: input.format(of: file)),
                                  firstWindow: (location, filter), command: try watch.source(file),
                                  keyedBy: try keyed.fold())
        let array = SyncedArray(store.reference(location).withQuery(filter))
        let history = RevisionHistory()
        let writer: RevisionWriter = store.isRemote ? .network : .otherProcess
        history.attribute = { _ in writer }
        array.history = history
        array.startSync()
        let limit = follow ? exitAfterRevisions : 1
        var printed = history.lastSequence
        var count = 0
        let stop = StopSignal()
        defer { stop.end() }
        var fds = [pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)]
        fds += store.pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        // Nothing may come for a long while: say so, rather than look stuck.
        printError("synctable history: waiting for \(store.name) to change: changes are printed from now on (its past was not recorded)")
        while true {
            while printed < history.lastSequence {
                printed += 1
                guard let record = history.record(printed) else { continue }
                // A reader that has gone away (`| head`) ends the stream quietly.
                guard writeOut(record.jsonLines()) else { return }
                count += 1
                if let limit, count >= limit { return }
            }
            if poll(&fds, nfds_t(fds.count), -1) < 0 && errno != EINTR {
                throw CommandError("poll failed: \(String(cString: strerror(errno)))", exitCode: 1)
            }
            if fds[0].revents != 0 { return }
            store.processPendingChanges()
            // Records dropped before they were printed (the oldest go first): go on from the oldest kept.
            printed = max(printed, history.firstSequence - 1)
        }
    }
}
