// The one interface of a live store: a file (`FileStore`), a database location over the network
// (`RemoteStore`), or a document in memory (`MemoryStore`).
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import LiveQuery

/// A source of revisions that can be observed and written: a JSON file, a log or a pipe
/// (`FileStore`), or a Realtime Database location over the network (`RemoteStore`). The synced
/// array and the viewer use this and never know which they have.
///
/// A store belongs to one thread, which polls `pollDescriptors` and calls
/// `processPendingChanges()` when one is readable; observers are called there.
public protocol LiveStore: AnyObject {
    /// The current revision, the status and the observers.
    var hub: RevisionHub { get }
    /// What the store reads, for people: a path, `-` for standard input, or a URL (never a token).
    var name: String { get }
    /// What the viewer says before the first revision ("reading data.json…").
    var loadingMessage: String { get }
    /// Descriptors to poll for `POLLIN`; fixed for the store's life.
    var pollDescriptors: [Int32] { get }
    /// Handles whatever is ready and delivers the resulting events, on the calling thread. Never blocks.
    func processPendingChanges()

    /// Whether the data comes over the network (a database), rather than from this machine.
    var isRemote: Bool { get }
    /// Whether records are only ever appended (a log, a pipe): only `append` writes.
    var isAppendOnly: Bool { get }
    /// Whether a write started with `startWrite` has not yet been handed back.
    var hasWritesInProgress: Bool { get }
    /// Applies `writes` off the loop thread, reading the value at `path` before and after in the
    /// same atomic step; with `expected`, only while the value at `path` is still that (nil:
    /// missing). `done` is called on the loop thread, from `processPendingChanges()`.
    func startWrite(_ writes: [JSONWrite], watching path: Path, ifStill expected: JSON??,
                    done: @escaping (Result<WatchedWrite, WriteError>) -> Void)
    /// Adds `value` as the last record of an append-only store, at once.
    /// - Returns: its key.
    func append(_ value: JSON, under path: Path) throws(WriteError) -> String
    /// Reads what was left unread for a reader that needed only part of the data (a large log's
    /// older lines, `FileStore.NewestFirst.onlyNewest`); nothing to do for most stores.
    func readEveryRecord()
}

extension LiveStore {
    public func readEveryRecord() {}
    public var isRemote: Bool { false }

    /// The latest complete, valid state; nil until the first one.
    public var currentRevision: Revision? { hub.currentRevision }
    /// The current revision's number, what is wrong if anything, and how changes arrive.
    public var status: StoreStatus { hub.status }

    /// A reference to the location `path` (the root by default), with no query.
    public func reference(_ path: Path = .root) -> StoreReference {
        StoreReference(store: self, path: path, query: Query())
    }

    /// A reference to the location written as `path` (`"/players"`, `"/a~1b"` for the key `a/b`).
    /// - Throws: `PathError` for a malformed path.
    public func reference(_ path: String) throws(PathError) -> StoreReference {
        reference(try Path(path))
    }

    /// Calls `handler` with every new revision, on the loop thread — first with the current
    /// revision, if there is one. For whole-document consumers; most code observes a query instead.
    @discardableResult
    public func observeRevisions(_ handler: @escaping (Revision) -> Void) -> ObserverHandle {
        hub.observeRevisions(handler)
    }

    /// Calls `handler` whenever the status changes (new revision, problem found or cleared,
    /// connection), on the loop thread — first with the current status.
    @discardableResult
    public func observeStatus(_ handler: @escaping (StoreStatus) -> Void) -> ObserverHandle {
        hub.observeStatus(handler)
    }

    /// Removes one observer registered with this store (of any kind).
    public func removeObserver(_ handle: ObserverHandle) { hub.removeObserver(handle) }

    /// Waits up to `timeoutMilliseconds` (-1: forever) for the store to have work, then processes
    /// it (observers are called on this thread).
    /// - Returns: whether there was work.
    @discardableResult
    public func waitAndProcessChanges(timeoutMilliseconds: Int = -1) -> Bool {
        var fds = pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&fds, nfds_t(fds.count), Int32(clamping: timeoutMilliseconds))
        guard ready > 0 else { return false }
        processPendingChanges()
        return true
    }

    /// Runs the store's loop on this thread until `condition` holds (checked first, then after
    /// each round of work).
    /// - Throws: `FileStoreError.timedOut` when `timeoutMilliseconds` pass first.
    public func run(timeoutMilliseconds: Int? = nil, until condition: () -> Bool) throws(FileStoreError) {
        let start = monotonicNanoseconds()
        while !condition() {
            var wait = -1
            if let timeoutMilliseconds {
                let elapsed = Int((monotonicNanoseconds() - start) / 1_000_000)
                guard elapsed < timeoutMilliseconds else { throw .timedOut(milliseconds: timeoutMilliseconds) }
                wait = timeoutMilliseconds - elapsed
            }
            waitAndProcessChanges(timeoutMilliseconds: wait)
        }
    }

    /// Runs the loop until revision `number` (or a later one) is current.
    /// - Returns: the current revision then.
    /// - Throws: `FileStoreError.timedOut` when `timeoutMilliseconds` pass first.
    @discardableResult
    public func waitForRevision(_ number: Int, timeoutMilliseconds: Int? = nil) throws(FileStoreError) -> Revision {
        try run(timeoutMilliseconds: timeoutMilliseconds) { (currentRevision?.number ?? 0) >= number }
        return currentRevision!
    }
}
