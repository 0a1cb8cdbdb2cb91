// The live file store: one JSON file as a sequence of revisions, driven from the caller's poll loop.
#if canImport(Glibc)
import Glibc
#endif
@_exported import StoreInterface
import JSONTree

/// A JSON file watched as a live database: every complete, valid state of the file becomes a
/// `Revision`, and observers hear about each one on the thread that runs the store's loop.
///
/// The store belongs to one thread (it is not `Sendable`). That thread waits in `poll(2)` on
/// `pollDescriptors` — with its own descriptors beside them, such as the keyboard — and calls
/// `processPendingChanges()` when any of them is readable. Reading and parsing happen on a worker
/// thread; observers are called inside `processPendingChanges()`.
///
/// ```swift
/// let store = try FileStore(path: "scores.json")
/// let top = try store.reference("/players").orderByChild("score").limitToLast(10)
/// let handle = top.observe(.childAdded) { event in print("added", event.key) }
/// _ = store.observeStatus { status in print("status:", hub.status.problem?.description ?? "ok") }
///
/// var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]           // the keyboard
/// fds += store.pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
/// while running {
///     poll(&fds, nfds_t(fds.count), -1)
///     if fds.dropFirst().contains(where: { $0.revents != 0 }) {
///         store.processPendingChanges()                                    // delivers events
///     }
///     if fds[0].revents != 0 { handleKeys() }
/// }
/// top.removeObserver(handle)
/// ```
/// Without a loop of your own, `run(until:)` and `waitForRevision(_:)` drive the store.
///
/// How it watches: inotify on the file's folder (so in-place writes, atomic renames, vim's
/// rename-and-create, deletion and re-creation are all seen), falling back to `stat` every
/// 100 ms where inotify is unavailable or the folder is missing. The first change after a
/// quiet moment is read at once; during a burst at most one read is in flight and one is
/// pending, so a writer saving 1,000 times a second costs a few parses, not a thousand. A newer
/// change cancels the read in flight at its next checkpoint (before its parse, and between its
/// parse and the query windows); a parse already running cannot be interrupted. Two reads in a
/// row are never cancelled, so a writer faster than the parse still yields revisions.
///
/// What is never a revision: invalid JSON (a half-written file), a file read while it was being
/// written to (two writes mixed), a state older than the current one. Problems are reported in
/// `status` (observe it with `observeStatus`) with line and column for JSON errors; one seen
/// while a writer is still busy is reported only if it lasts `settleMilliseconds`.
public final class FileStore: DocumentStore {
    /// Tuning; the defaults suit interactive use.
    public struct Options: Sendable {
        /// How to watch; nil: inotify when available, else polling.
        public var watchMode: WatchMode?
        /// How long a problem seen while a writer is busy (a half-written file, a file renamed
        /// away by an editor) may last before it is reported. A save that completes sooner is
        /// never reported as a problem.
        public var settleMilliseconds: Int
        /// The `stat` interval when polling.
        public var pollMilliseconds: Int
        /// A query observer added over at most this many children gets its first window at
        /// once. Over more, the window is evaluated on the store's worker thread and delivered
        /// from a later `processPendingChanges()`, so that the loop thread (a UI's) never waits
        /// for a full evaluation: about 150 ms over 1,000,000 children.
        public var inlineEvaluationLimit: Int

        /// How the file's bytes are read: one JSON document, or JSON Lines (an array of records).
        public var format: Format
        /// For a large JSON Lines file: its newest records first (see `NewestFirst`); nil: the
        /// whole file is the first revision.
        public var newestFirst: NewestFirst?
        /// In JSON Lines (a file or a stream), a record longer than this is an error row naming
        /// its line, and reading goes on after it: a runaway line is never held whole. Unbounded
        /// by default (a document piped to the viewer may be large); `serve` sets its
        /// `--max-line-bytes` (256 MB by default).
        public var maxLineBytes = Int.max
        /// A first read of a file at least this large parses its mapping while the bytes are
        /// copied (`SnapshotReader.parseMapped`); tests lower it.
        var mappedFirstReadSize = splitReadSize
        /// What the store's reads may use beyond one thread and `read(2)`: the process's,
        /// unless a test says otherwise.
        var tuning = EngineTuning.current

        public init(watchMode: WatchMode? = nil, settleMilliseconds: Int = 150, pollMilliseconds: Int = 100,
                    inlineEvaluationLimit: Int = 50_000, format: Format = .json, newestFirst: NewestFirst? = nil) {
            self.format = format
            self.newestFirst = newestFirst
            self.watchMode = watchMode
            self.settleMilliseconds = max(0, settleMilliseconds)
            self.pollMilliseconds = max(1, pollMilliseconds)
            self.inlineEvaluationLimit = max(0, inlineEvaluationLimit)
        }
    }

    /// How a store reads its file (JSON, or JSON Lines).
    public typealias Format = SourceFormat

    /// A large log's newest records as the first revision, at once, before the whole file.
    ///
    /// When a JSON Lines file holds at least `minimumBytes` when first read, its last `records`
    /// records (and only they: the lines before are counted, not parsed; see `LinesTail`) are a
    /// provisional first revision, with `hub.status.lines.isPartial`; the whole file is read next and
    /// is the following revision. A window among those records (`limitToLast(k)` in line order,
    /// k ≤ `records`) is exact at once; other queries see only those records until the whole file
    /// arrives.
    ///
    /// With `onlyNewest`, the whole file is never read: the store follows the log from those
    /// records on, appends only, for a reader whose query can never need an older record
    /// (`synctable events --limit-to-last K` in line order). Memory is then what the newest
    /// records take, plus a `null` per earlier line, however long the log. A log that starts over
    /// (truncated, replaced) is read from its newest records again.
    public struct NewestFirst: Sendable, Equatable {
        public var records: Int
        public var minimumBytes: Int
        public var onlyNewest: Bool
        /// The query orders by priority (no explicit order): records holding `.priority` would
        /// break line order, so a file that may hold them is read whole instead.
        public var byPriority: Bool

        public init(records: Int, minimumBytes: Int = 32 << 20, onlyNewest: Bool = false, byPriority: Bool = true) {
            self.records = max(1, records)
            self.minimumBytes = max(0, minimumBytes)
            self.onlyNewest = onlyNewest
            self.byPriority = byPriority
        }
    }

    /// The file's path, as given.
    public let path: String
    let absolutePath: String
    let options: Options
    /// Whether the store's records are only ever appended (a JSON Lines file or a stream).
    public var isAppendOnly: Bool { options.format == .jsonLines || isStream }

    /// The current revision, the status (the problem with the file if any, how it is watched)
    /// and the observers.
    public let hub: RevisionHub

    let worker: ReadWorker
    let writer: WriteWorker
    /// Writes started with `startWrite`, by id: the revision current then, and who to tell.
    var pendingWrites: [Int: PendingWrite] = [:]
    var nextWriteID = 1
    private let folderWatch: FolderWatch?
    /// The pipe read, for a store of a stream (`init(stream:)`).
    private let stream: StreamInput?
    private let pollTimer: LoopTimer
    private let settleTimer: LoopTimer
    private var poller: StatPoller

    // The read state machine (see `noteChange` and `finish`).
    private var inFlight: ReadRequest?
    /// A change was noticed after the read in flight began: read again when it finishes.
    private var changePending = false
    /// The last event about the file said its writer had finished.
    private var lastEventComplete = true
    /// The settle delay ran out: the next read reports what it finds.
    private var settleExpired = false
    /// The last read was superseded; the next one is not, so that a writer faster than our
    /// reads cannot starve the store of revisions.
    private var lastReadSuperseded = false
    /// Unstable reads in a row. A file still being written is read again at once; after a few
    /// tries the store waits for the next event or the settle delay instead, so a file system
    /// whose sizes never match what it returns cannot make the loop spin.
    private var unstableInARow = 0
    private var nextGeneration: UInt64 = 1
    /// Reads requested before this generation are stale (the store committed its own write since).
    private var oldestUsefulGeneration: UInt64 = 0

    /// Counts of the store's work, for tests and benchmarks.
    public private(set) var statistics = Statistics()

    /// Opens a store on `path` and starts reading it (the first revision arrives through the loop).
    /// A missing or invalid file is not an error: it is reported in `status` and waited for.
    /// - Throws: `FileStoreError` when the path is empty or the system is out of descriptors.
    public init(path: String, options: Options = Options()) throws(FileStoreError) {
        guard !path.isEmpty else { throw .emptyPath }
        self.path = path
        self.options = options
        absolutePath = FileStore.absolute(path)
        let wake = try WakeSignal()
        worker = ReadWorker(wake: wake, lines: options.format == .jsonLines
            ? LinesReader(source: .file(path: absolutePath), newestFirst: options.newestFirst, maxLineBytes: options.maxLineBytes) : nil,
            mappedFirstReadSize: options.mappedFirstReadSize, tuning: options.tuning)
        writer = WriteWorker(wake: wake)
        pollTimer = LoopTimer(wake: wake)
        settleTimer = LoopTimer(wake: wake)
        poller = StatPoller(path: absolutePath)
        folderWatch = options.watchMode == .polling ? nil : FolderWatch(path: absolutePath)
        stream = nil
        hub = RevisionHub(
            status: StoreStatus(revision: 0, problem: nil, watchMode: .polling,
                                lines: options.format == .jsonLines ? LinesStatus() : nil),
            worker: worker.windows, inlineEvaluationLimit: options.inlineEvaluationLimit)
        if folderWatch?.watch() == true {
            hub.status.watchMode = .inotify
        } else {
            _ = poller.poll()
            pollTimer.arm(milliseconds: options.pollMilliseconds, repeating: options.pollMilliseconds)
        }
        startRead()
    }

    /// Opens a store on a stream of JSON values — JSON Lines, or values separated by any
    /// whitespace — read from `fd` (standard input: 0) as they arrive: value N is the child `N`
    /// of an array. When the input ends holding exactly one value, that value (a JSON document
    /// piped in) is the revision instead. The store never writes. It reads a copy of `fd`, which
    /// the caller may close at any time (but not read), and stops reading once it is released.
    public init(stream fd: Int32, name: String = "-", options: Options = Options()) throws(FileStoreError) {
        path = name
        self.options = options
        absolutePath = name
        let wake = try WakeSignal()
        let input = try StreamInput(fd: fd)
        worker = ReadWorker(wake: wake, lines: LinesReader(source: .stream(input), maxLineBytes: options.maxLineBytes))
        writer = WriteWorker(wake: wake)
        pollTimer = LoopTimer(wake: wake)
        settleTimer = LoopTimer(wake: wake)
        poller = StatPoller(path: name)
        folderWatch = nil
        stream = input
        hub = RevisionHub(
            status: StoreStatus(revision: 0, problem: nil, watchMode: .inotify, lines: LinesStatus()),
            worker: worker.windows, inlineEvaluationLimit: options.inlineEvaluationLimit)
        input.start(wake: wake)
    }

    /// A stream's reading thread ends with the store.
    deinit { stream?.stop() }

    /// Whether the store reads a stream (`init(stream:)`) rather than a file.
    public var isStream: Bool { stream != nil }

    /// The path as given (`-` or the name given for a stream).
    public var name: String { path }

    public var loadingMessage: String { isStream ? "waiting for standard input…" : "reading \(path)…" }

    /// Whether a read (or parse) of the file is in progress on the worker thread.
    public var isReading: Bool { inFlight != nil }

    /// The descriptors to `poll(2)` for `POLLIN` (one or two; fixed for the store's life): one of
    /// them is readable when the store has work for `processPendingChanges()` — a change in the
    /// file's folder, a finished read, a timer.
    public var pollDescriptors: [Int32] {
        [worker.wake.fd] + (folderWatch.map { [$0.fd] } ?? [])
    }

    /// Handles whatever is ready — file changes, finished reads, timers — and delivers the
    /// resulting events to observers, on the calling thread. Never blocks; call it when
    /// one of `pollDescriptors` is readable (calling it at other times is harmless).
    public func processPendingChanges() {
        // First, so that a wake-up arriving while the rest runs is kept for the next call.
        worker.wake.drain()
        if let folderWatch {
            // Drained even while polling, so stale events (of a lost folder) cannot keep the
            // descriptor readable.
            let wasWatching = folderWatch.isWatching
            let events = folderWatch.drain()
            if wasWatching && events.folderLost {
                folderWatch.unwatch()
                startPolling()
            }
            if wasWatching && events.overflowed { statistics.overflows += 1 }
            if wasWatching && events.changed {
                noteChange(complete: events.complete && !events.overflowed, supersedes: events.contentChanged)
            }
        }
        if let stream, stream.takeUnread() { noteChange(complete: true) }
        if pollTimer.fired() { pollForChanges() }
        if settleTimer.fired() {
            settleTimer.disarm()
            settleExpired = true
            // The delay is no change of the file: a read in flight is let finish (at 1 GB a whole
            // save's read), and a settled one follows it.
            noteChange(complete: lastEventComplete, supersedes: false)
        }
        let results = worker.takeFinished()
        for result in results { finish(result) }
        // The revisions they replaced are freed on the read queue, not before the caller writes
        // out the new one's events; and before the next read, which is started after.
        worker.release(consume results)
        if changePending && inFlight == nil { startRead() }
        hub.deliverEvaluatedWindows()
        for write in writer.takeFinished() { finish(write) }
        hub.deliverStatusIfChanged()
    }

    // MARK: - Watching

    private func startPolling() {
        hub.status.watchMode = .polling
        _ = poller.poll()
        pollTimer.arm(milliseconds: options.pollMilliseconds, repeating: options.pollMilliseconds)
    }

    private func pollForChanges() {
        // Back to inotify as soon as the folder can be watched again; anything may have changed.
        if let folderWatch, !folderWatch.isWatching, folderWatch.watch() {
            pollTimer.disarm()
            hub.status.watchMode = .inotify
            noteChange(complete: false)
            return
        }
        if poller.poll() { noteChange(complete: false) }
    }

    // MARK: - Reading

    /// Something about the file may have changed: read it now, or after the read in flight.
    /// - Parameter supersedes: whether the read in flight is out of date. A writer closing the
    ///   file (or `touch`) changes no bytes that an earlier event did not announce — except
    ///   through `mmap`, which sends no `IN_MODIFY` — so it asks for one more (cheap, usually
    ///   unchanged) read after the one in flight instead of cancelling it.
    func noteChange(complete: Bool, supersedes: Bool = true) {
        lastEventComplete = complete
        guard let inFlight else { return startRead() }
        changePending = true
        if supersedes && !lastReadSuperseded { worker.supersede(upTo: inFlight.generation) }
    }

    private func startRead() {
        let request = ReadRequest(
            generation: nextGeneration, path: absolutePath, current: currentRevision?.document,
            settled: lastEventComplete || settleExpired, listeners: hub.listenerSnapshots)
        nextGeneration += 1
        // A settled read is the one the settle delay would ask for.
        if request.settled { settleTimer.disarm() }
        settleExpired = false
        changePending = false
        inFlight = request
        statistics.reads += 1
        worker.start(request)
    }

    private func finish(_ result: ReadResult) {
        inFlight = nil
        if case .unstable = result.outcome {} else { unstableInARow = 0 }
        if result.request.generation < oldestUsefulGeneration {
            // Began before the store's own write: it may hold an older state. The write's own
            // inotify events have already asked for a fresh read, or will.
        } else {
            switch result.outcome {
            case .parsed(let document, let identity, let changes):
                statistics.parses += 1
                lastReadSuperseded = false
                settleTimer.disarm()
                hub.publish(document: document, identity: identity, precomputed: changes)
            case .unchanged:
                lastReadSuperseded = false
                settleTimer.disarm()
                hub.status.problem = nil
            case .invalid(let error):
                statistics.parses += 1
                found(.invalidJSON(error), by: result.request)
            case .missing: found(.missing, by: result.request)
            case .unreadable(let why): found(.unreadable(why), by: result.request)
            case .unstable:
                statistics.unstableReads += 1
                unstableInARow += 1
                if unstableInARow < 3 {
                    changePending = true
                } else if !settleTimer.isArmed {
                    settleTimer.arm(milliseconds: options.settleMilliseconds)
                }
            case .lines(let news, let changes):
                received(news, changes: changes)
            case .superseded:
                statistics.superseded += 1
                lastReadSuperseded = true
                changePending = true
            }
        }
    }

    /// A read found the file unusable. Reported at once when no writer was busy; otherwise only
    /// if it lasts: a newer read is coming, or the settle timer will ask for one.
    private func found(_ problem: StoreProblem, by request: ReadRequest) {
        lastReadSuperseded = false
        if changePending { return }
        if request.settled {
            settleTimer.disarm()
            hub.status.problem = problem
        } else if !settleTimer.isArmed {
            settleTimer.arm(milliseconds: options.settleMilliseconds)
        }
    }

    /// Reads the older lines of a large log that only its newest records were read of
    /// (`NewestFirst.onlyNewest`): the whole file, as the next revision, with the same keys.
    /// Does nothing otherwise.
    public func readEveryRecord() {
        guard let reader = worker.lines, hub.status.lines?.olderUnread == true, hub.status.lines?.olderRequested == false else {
            return
        }
        reader.readEveryRecord()
        hub.status.lines?.olderRequested = true
        noteChange(complete: true, supersedes: false)
        hub.deliverStatusIfChanged()
    }

    /// What a read of a JSON Lines source found: new records (a revision), a restart, a problem.
    private func received(_ news: LinesNews, changes: [PrecomputedChange]) {
        lastReadSuperseded = false
        var lines = hub.status.lines ?? LinesStatus()
        lines.records = news.records
        lines.invalidRecords = news.invalidRecords
        lines.inputEnded = news.ended
        lines.recentErrors = news.newErrors
        lines.isPartial = news.partial
        lines.olderUnread = news.olderUnread
        if !news.olderUnread { lines.olderRequested = false }
        // The newest records came first: the whole file next, at once.
        if news.partial { changePending = true }
        if let restart = news.restart {
            lines.restarts += 1
            lines.lastRestart = restart
        }
        hub.status.lines = lines
        if let document = news.document {
            statistics.parses += 1
            hub.publish(document: document, identity: news.identity, precomputed: changes)
        }
        hub.status.problem = news.missing ? .missing : news.unreadable.map { .unreadable($0) }
    }

    /// Makes a state the store itself has just written current at once, as one revision.
    ///
    /// For the write path (`FileStore+Writing`): call after the rename, with the document
    /// written and the `stat` of the new file. Reads begun before it are dropped, since they
    /// may hold an older state; the inotify events of the write itself cause one more read,
    /// which finds the same bytes and publishes nothing.
    func commitWrittenRevision(document: JSONDocument, identity: FileIdentity) {
        oldestUsefulGeneration = nextGeneration
        if inFlight != nil { changePending = true }
        settleTimer.disarm()
        hub.publish(document: document, identity: identity)
        hub.deliverStatusIfChanged()
    }
}

extension FileStore {
    /// What the store has done so far.
    public struct Statistics: Sendable, Equatable {
        /// Reads of the file started.
        public var reads = 0
        /// Reads whose bytes were parsed (valid or not); unchanged bytes are not parsed.
        public var parses = 0
        /// Reads whose parse was skipped because a newer change had arrived.
        public var superseded = 0
        /// Reads that saw the file written to while reading, and so were read again.
        public var unstableReads = 0
        /// inotify queue overflows, each answered by a full re-read.
        public var overflows = 0
    }
}
