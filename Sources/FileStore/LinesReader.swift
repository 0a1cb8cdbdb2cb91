// Reading a JSON Lines file (or a pipe) from where the last read stopped.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import JSONTree
import StoreInterface


/// What one read of a JSON Lines source found.
struct LinesNews: Sendable {
    /// The records, when they changed (nil: nothing new).
    var document: JSONDocument?
    var identity: FileIdentity
    var restart: LinesRestart?
    var missing = false
    var unreadable: String?
    /// Records so far, and how many of them are invalid.
    var records = 0
    var invalidRecords = 0
    /// The invalid records this read found.
    var newErrors: [JSONLinesError] = []
    /// The input has ended (pipes only).
    var ended = false
    /// The document holds only the newest records (`FileStore.Options.newestFirst`); the whole
    /// file follows with the next read.
    var partial = false
    /// Only the newest records were read (`NewestFirst.onlyNewest`).
    var olderUnread = false
}

/// The state of reading a JSON Lines file or a pipe: the records so far and where reading
/// stopped. Used only on the read worker's serial queue (hence `@unchecked Sendable`).
final class LinesReader: @unchecked Sendable {
    enum Source {
        case file(path: String)
        case stream(StreamInput)
    }

    private let source: Source
    private let newestFirst: FileStore.NewestFirst?
    /// Whether the first read (of the newest records only) was made.
    private var newestFirstDone = false
    private var builder: JSONLinesBuilder
    /// The file being followed (device and inode), and how many of its bytes were read.
    private var followed: (device: UInt64, inode: UInt64)?
    private var offset: Int64 = 0
    /// The last bytes read, before `offset`: if they are not there any more, the file was
    /// rewritten (truncated and written past the old length again) and is read from its start.
    private var tail: [UInt8] = []
    private static let tailLength = 64
    private static let chunk = 1 << 22
    /// Where reads land: one buffer for the reader's life (a fresh 4 MiB per append, zeroed,
    /// cost more than the rest of an append's work).
    private let readBuffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunk)
    private var ended = false
    /// Whether a read of the file has published its records yet.
    private var publishedOnce = false
    /// How many of the builder's errors earlier reads reported.
    private var reportedErrors = 0
    /// Only the newest records were read, and whether every record was asked for since.
    private var olderUnread = false
    private let everyRecordWanted = Atomic<Bool>(false)

    deinit { readBuffer.deallocate() }

    init(source: Source, newestFirst: FileStore.NewestFirst? = nil, maxLineBytes: Int = .max) {
        self.source = source
        self.newestFirst = newestFirst
        builder = JSONLinesBuilder(mode: { if case .stream = source { .values } else { .lines } }(), maxRecordBytes: maxLineBytes)
    }

    /// Reads what was appended since the last read.
    /// - Complexity: O(bytes appended), plus O(records) to copy the document when there are new ones.
    func read() -> LinesNews {
        switch source {
        case .file(let path): return readFile(path)
        case .stream(let input): return readStream(input)
        }
    }

    private func readStream(_ input: StreamInput) -> LinesNews {
        let (bytes, ended, failure) = input.take()
        var added = builder.append(bytes)
        if ended && !self.ended {
            self.ended = true
            added += builder.finish()
        }
        var news = report(identity: FileIdentity(device: 0, inode: 0, size: Int64(builder.consumed + builder.pendingCount), modified: 0, changed: 0))
        news.ended = self.ended
        if let failure { news.unreadable = failure }
        if self.ended, let single = builder.finishedDocument() {
            // One JSON document piped in: it is the revision, not a list of one.
            news.document = single
        } else if added > 0 {
            news.document = builder.document()
        }
        return news
    }

    private func readFile(_ path: String) -> LinesNews {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            var news = restartIfFollowing(.deleted, identity: FileIdentity(device: 0, inode: 0, size: 0, modified: 0, changed: 0))
            if code == ENOENT { news.missing = true } else { news.unreadable = String(cString: strerror(code)) }
            return news
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return failure(errno) }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            var news = report(identity: FileIdentity(st))
            news.unreadable = "is a directory, not a JSON Lines file"
            return news
        }
        var restart: LinesRestart?
        let identity = FileIdentity(st)
        if olderUnread && everyRecordWanted.exchange(false, ordering: .relaxed) {
            // The older lines, at last: the whole file from its first byte, as one revision with
            // the same keys (nothing moves).
            startOver()
            newestFirstDone = true
        }
        if let newestFirst, !newestFirstDone, followed == nil, identity.size >= Int64(newestFirst.minimumBytes) {
            newestFirstDone = true
            if let tail = LinesTail(fd: fd, size: Int(identity.size), children: newestFirst.records) {
                if newestFirst.onlyNewest && !(newestFirst.byPriority && tail.mayHavePriorities) {
                    // Follow from the newest records on: the lines before are counted (`null`,
                    // no child), never read as records.
                    builder.appendSkippedLines(tail.linesBefore)
                    offset = Int64(tail.start)
                    followed = (identity.device, identity.inode)
                    olderUnread = tail.linesBefore > 0
                } else {
                    var news = LinesNews(identity: identity, records: tail.document.root.count, invalidRecords: 0)
                    news.document = tail.document
                    news.partial = true
                    return news
                }
            }
        }
        if let followed, followed != (identity.device, identity.inode) {
            restart = .replaced
        } else if identity.size < offset || !tailIsIntact(fd) {
            restart = .truncated
        }
        if restart != nil { startOver() }
        followed = (identity.device, identity.inode)

        // Everything after `offset`, including what is appended while this reads.
        if identity.size - offset > Int64(Self.chunk) { builder.reserveCapacity(forInput: Int(identity.size - offset)) }
        var added = 0
        while true {
            let n = pread(fd, readBuffer.baseAddress, readBuffer.count, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                return failure(errno)
            }
            if n == 0 { break }
            let bytes = UnsafeBufferPointer(rebasing: readBuffer[0..<n])
            added += builder.append(bytes)
            offset += Int64(n)
            remember(bytes)
        }
        var news = report(identity: identity)
        news.restart = restart
        // The first read publishes the records even when there are none: an empty log is a log
        // of no lines, served and shown at once.
        if added > 0 || restart != nil || !publishedOnce { news.document = builder.document() }
        publishedOnce = true
        return news
    }

    /// After the file was deleted: the list starts over, empty (once).
    private func restartIfFollowing(_ reason: LinesRestart, identity: FileIdentity) -> LinesNews {
        guard followed != nil else { return report(identity: identity) }
        startOver()
        var news = report(identity: identity)
        news.restart = reason
        news.document = builder.document()
        return news
    }

    /// Reads every record from the next read on, when only the newest were read. Any thread.
    func readEveryRecord() {
        everyRecordWanted.store(true, ordering: .relaxed)
    }

    private func startOver() {
        olderUnread = false
        // A log that only its newest records are read of is read that way again.
        if newestFirst?.onlyNewest == true { newestFirstDone = false }
        builder = JSONLinesBuilder(mode: builder.mode, maxRecordBytes: builder.maxRecordBytes)
        followed = nil
        offset = 0
        tail = []
        reportedErrors = 0
    }

    private func remember(_ bytes: UnsafeBufferPointer<UInt8>) {
        tail.append(contentsOf: bytes.suffix(Self.tailLength))
        if tail.count > Self.tailLength { tail.removeFirst(tail.count - Self.tailLength) }
    }

    /// Whether the bytes just before `offset` are still the ones read there.
    private func tailIsIntact(_ fd: Int32) -> Bool {
        guard !tail.isEmpty else { return true }
        var now = [UInt8](repeating: 0, count: tail.count)
        let n = now.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset) - off_t(tail.count)) }
        return n == tail.count && now == tail
    }

    private func report(identity: FileIdentity) -> LinesNews {
        let errors = builder.errors
        defer { reportedErrors = errors.count }
        var news = LinesNews(identity: identity, records: builder.count, invalidRecords: errors.count,
                             newErrors: Array(errors[min(reportedErrors, errors.count)...]))
        news.olderUnread = olderUnread
        if builder.isFull { news.unreadable = "the records passed 4 GiB: lines after line \(builder.count) are not read" }
        return news
    }

    private func failure(_ code: Int32) -> LinesNews {
        var news = report(identity: FileIdentity(device: 0, inode: 0, size: 0, modified: 0, changed: 0))
        news.unreadable = String(cString: strerror(code))
        return news
    }
}

/// A pipe (or any descriptor) read on a thread of its own as bytes arrive, so that the store's
/// loop never blocks on it; each chunk wakes the loop.
///
/// It reads no faster than the store takes what it read: past `backlogLimit` bytes not yet
/// taken, the thread waits, the pipe fills, and its writer waits in turn. A writer faster than
/// the store (`yes | synctable view -`) costs the backlog and the records taken, not what it
/// could write meanwhile.
///
/// The thread reads a copy of the descriptor given, and stops when the store goes (`stop()`):
/// the caller may close its descriptor at any time, and a number the kernel then gives to
/// another file (a socket, another program's pipe) is never read here.
final class StreamInput: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var ended = false
        var failure: String?
        /// Whether the loop has not yet asked for what arrived.
        var unread = false
        /// Whether the reading thread waits for `take()` to make room.
        var readerWaits = false
        /// Whether the store has gone: the reading thread ends.
        var stopped = false
    }

    /// Bytes read and not yet taken, past which the reading thread stops reading.
    let backlogLimit: Int
    private let state = Mutex(State())
    /// Signalled by `take()` when the reading thread waits for room, and by `stop()`.
    private let room = DispatchSemaphore(value: 0)
    /// The reading thread's own copy of the descriptor.
    private let input: OwnedDescriptor
    /// Polled beside `input`: `stop()` ends a read that waits for bytes.
    private let stopping: WakeSignal

    init(fd: Int32, backlogLimit: Int = 1 << 20) throws(FileStoreError) {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .system("dup", errno) }
        input = OwnedDescriptor(copy)
        stopping = try WakeSignal()
        self.backlogLimit = backlogLimit
    }

    /// Starts the reading thread; `wake` is signalled after each chunk and at the end.
    func start(wake: WakeSignal) {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(StartBox(input: self, wake: wake)).toOpaque()
        let code = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<StartBox>.fromOpaque(raw!).takeRetainedValue()
            box.input.readUntilEnd(wake: box.wake)
            return nil
        }, box)
        guard code == 0 else {
            // No reader: the input ends at once with the reason, rather than never.
            Unmanaged<StartBox>.fromOpaque(box).release()
            state.withLock { state in
                state.ended = true
                state.failure = "cannot start a thread to read it: " + String(cString: strerror(code))
                state.unread = true
            }
            return wake.signal()
        }
        pthread_detach(thread)
    }

    /// Ends the reading thread (the store has gone); any thread.
    func stop() {
        state.withLock { $0.stopped = true }
        stopping.signal()
        room.signal()
    }

    private final class StartBox {
        let input: StreamInput
        let wake: WakeSignal
        init(input: StreamInput, wake: WakeSignal) {
            self.input = input
            self.wake = wake
        }
    }

    private func readUntilEnd(wake: WakeSignal) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var ready = [pollfd(fd: input.raw, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: stopping.fd, events: Int16(POLLIN), revents: 0)]
            if poll(&ready, 2, -1) < 0 && errno == EINTR { continue }
            if ready[1].revents != 0 { return }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(input.raw, $0.baseAddress, $0.count) }
            // A descriptor left non-blocking by the program that gave it: wait on poll again.
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            let error = n < 0 ? String(cString: strerror(errno)) : nil
            let full = state.withLock { state in
                if n > 0 { state.bytes.append(contentsOf: buffer[0..<n]) } else { state.ended = true }
                state.failure = error
                state.unread = true
                state.readerWaits = state.bytes.count >= backlogLimit
                return state.readerWaits
            }
            wake.signal()
            if n <= 0 { return }
            if full {
                room.wait()
                if state.withLock({ $0.stopped }) { return }
            }
        }
    }

    /// Whether bytes (or the end) arrived that the loop has not asked for; clears the flag.
    func takeUnread() -> Bool {
        state.withLock { state in
            defer { state.unread = false }
            return state.unread
        }
    }

    /// What arrived since the last call, and whether the input has ended.
    func take() -> (bytes: [UInt8], ended: Bool, failure: String?) {
        let (taken, readerWaits) = state.withLock { state in
            defer {
                state.bytes = []
                state.readerWaits = false
            }
            return ((state.bytes, state.ended, state.failure), state.readerWaits)
        }
        if readerWaits { room.signal() }
        return taken
    }
}
