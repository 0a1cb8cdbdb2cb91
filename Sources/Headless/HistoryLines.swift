// `history`'s output: what each revision changed in a query's window, as JSON lines.
#if canImport(Glibc)
import Glibc
#endif
import CommandStore
import JSONTree
import Journal
import KeyedStore
import LiveQuery
import RateStore
import StoreInterface
import SyncedArray

/// Prints the changes each revision of `store` makes to the window of `query` at `location`, one
/// JSON line per child (`RevisionRecord.jsonLines()`): the next revision that changes the window,
/// or with `follow` each one until SIGINT or SIGTERM or `exitAfterRevisions` of them. A journal is
/// printed whole (each revision after its first, up to `exitAfterRevisions`), then the command ends.
/// - Throws: `CommandError` (exit status 1) when waiting fails.
public func printHistory(of store: any LiveStore, at location: Path, query: Query, follow: Bool, exitAfterRevisions: Int?) throws(CommandError) {
    // Each revision of a journal is printed: each is published in turn.
    replayedJournal(store)?.publishesEveryRevision = true
    let array = SyncedArray(store.reference(location).withQuery(query))
    let history = RevisionHistory()
    let writer: RevisionWriter = store.isRemote ? .network : .otherProcess
    history.attribute = { _ in store.currentRevision?.writer.flatMap(RevisionWriter.init(rawValue:)) ?? writer }
    array.history = history
    array.startSync()
    let journal = replayedJournal(store)
    let limit = follow || journal != nil ? exitAfterRevisions : 1
    var printed = history.lastSequence
    var count = 0
    let stop = StopSignal()
    defer { stop.end() }
    var fds = [pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)]
    fds += store.pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    if let journal {
        store.processPendingChanges()
        if let warning = journal.warning { printError("synctable: warning: \(warning)") }
    } else {
        // Nothing may come for a long while: say so, rather than look stuck.
        printError("synctable history: waiting for \(store.name) to change: changes are printed from now on (its past was not recorded: --record FILE keeps it)")
    }
    while true {
        while printed < history.lastSequence {
            printed += 1
            guard let record = history.record(printed) else { continue }
            // A reader that has gone away (`| head`) ends the stream quietly.
            guard writeOut(record.jsonLines()) else { return }
            count += 1
            if let limit, count >= limit { return }
        }
        if journal?.isReplayed == true { return }
        if poll(&fds, nfds_t(fds.count), -1) < 0 && errno != EINTR {
            throw CommandError("poll failed: \(String(cString: strerror(errno)))", exitCode: 1)
        }
        if fds[0].revents != 0 { return }
        store.processPendingChanges()
        // Records dropped before they were printed (the oldest go first): go on from the oldest kept.
        printed = max(printed, history.firstSequence - 1)
    }
}

/// The journal `store` replays, below any rates or fold.
func replayedJournal(_ store: any LiveStore) -> JournalStore? {
    innermostSource(store) as? JournalStore
}

/// Ends the command under `store` (below any rates or fold), if there is one, and its process group.
public func stopCommand(under store: any LiveStore) {
    (innermostSource(store) as? CommandStore)?.stop()
}

/// What `store` reads, below any rates or fold: a file, a command, a journal.
private func innermostSource(_ store: any LiveStore) -> any LiveStore {
    var inner = store
    if let rates = inner as? RateStore { inner = rates.source }
    if let keyed = inner as? KeyedStore { inner = keyed.log }
    return inner
}

/// Ends the command with a named error, at its line and column, unless `path` is a journal.
public func requireJournal(_ path: String) throws(CommandError) {
    guard !isJournalFile(path) else { return }
    do { _ = try JournalRecording(path: path) } catch { throw CommandError(journalError: error) }
    throw CommandError("not a SyncTable journal", at: path)
}
