// The served store on a thread of its own, reached from the server's tasks by message.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import StoreInterface
import JSONTree
import Synchronization

/// Owns a `LiveStore` (a file, a log, a pipe, a document in memory) on a dedicated thread that
/// runs the store's `poll(2)` loop.
///
/// The store is single-threaded: it is created, driven and written on this thread only. Its
/// revisions go to a `RevisionFeed` (read by any task); writes come in as jobs through
/// `apply`, which suspends the calling task — never a thread of the server — until the
/// store thread has made the write.
final class StoreThread: Sendable {
    /// A write for the store thread (the plans queued together are applied as one write of
    /// the store), and how its caller hears the outcome.
    private struct Job: Sendable {
        let plan: WritePlan
        let answer: @Sendable (WritePlan.Outcome) -> Void
        /// Answers the caller without running: the server stopped first.
        let refuse: @Sendable () -> Void
    }

    let feed: RevisionFeed
    private let jobs = Mutex<(queue: [Job], stopping: Bool)>(([], false))
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Set once the thread has ended and let go of its store (after `stop()`), and who waits for it.
    private let end = Mutex<(ended: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Starts the thread and opens the store on it with `open` (a store belongs to the thread
    /// that made it).
    /// - Throws: `ServeError` when the store cannot be opened (saying why, as `open` threw it)
    ///   or the thread cannot start.
    init(open: @escaping @Sendable () throws -> any LiveStore, feed: RevisionFeed) throws(ServeError) {
        self.feed = feed
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ServeError("cannot make a pipe: \(String(cString: strerror(errno)))") }
        for fd in ends {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        let opening = Opening()
        let start = ThreadStart { [self] in
            do {
                let store: any LiveStore
                do {
                    store = try open()
                } catch {
                    opening.finish(error as? ServeError ?? ServeError("\(error)"))
                    return
                }
                opening.finish(nil)
                loop(store)
            }
            // The store let go of here: its files, watches and mappings are closed.
            finished()
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(start).toOpaque()
        let started = pthread_create(&thread, nil, { argument in
            let start = Unmanaged<ThreadStart>.fromOpaque(argument!).takeRetainedValue()
            start.body()
            return nil
        }, box)
        guard started == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(box).release()
            throw ServeError("cannot start the store's thread: \(String(cString: strerror(started)))")
        }
        pthread_detach(thread)
        // The store opens at once (reading the file happens later, on its worker).
        if let error = opening.wait() { throw error }
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Applies `plan` to the store on the store thread, with the plans queued beside it
    /// (`WritePlan.apply(_:to:)`), and returns its outcome.
    func apply(_ plan: WritePlan) async throws(ServeError) -> WritePlan.Outcome {
        let result: Result<WritePlan.Outcome, ServeError> = await withCheckedContinuation { continuation in
            enqueue(Job(
                plan: plan, answer: { continuation.resume(returning: .success($0)) },
                refuse: { continuation.resume(returning: .failure(Self.stopping)) }))
        }
        return try result.get()
    }

    private func enqueue(_ job: Job) {
        let accepted = jobs.withLock { state in
            if state.stopping { return false }
            state.queue.append(job)
            return true
        }
        if accepted {
            wake()
        } else {
            job.refuse()
        }
    }

    private static let stopping = ServeError("the server is stopping")

    /// Asks the thread to end once the job it is running, if any, is done; returns at once.
    /// The jobs still queued are refused ("the server is stopping"): a client sending writes
    /// as fast as they are made must not hold up the end of the server.
    func stop() {
        let refused = jobs.withLock { state in
            state.stopping = true
            defer { state.queue.removeAll() }
            return state.queue
        }
        for job in refused { job.refuse() }
        wake()
    }

    /// Waits until the thread has ended and let go of its store (after `stop()`): a server that
    /// returns leaves no file open behind it.
    func ended() async {
        await withCheckedContinuation { continuation in
            let done = end.withLock { state -> Bool in
                if !state.ended { state.waiters.append(continuation) }
                return state.ended
            }
            if done { continuation.resume() }
        }
    }

    private func finished() {
        let waiters = end.withLock { state in
            state.ended = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
    }

    /// The store's loop: store events, jobs, until stopped.
    private func loop(_ store: any LiveStore) {
        let revisions = store.observeRevisions { [feed] revision in feed.publish(revision) }
        let statuses = store.observeStatus { [feed] status in feed.publish(status) }
        var fds = ([wakeRead] + store.pollDescriptors).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            _ = poll(&fds, nfds_t(fds.count), -1)
            if fds.dropFirst().contains(where: { $0.revents != 0 }) { store.processPendingChanges() }
            guard fds[0].revents != 0 else { continue }
            var buffer = (0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64)
            while withUnsafeMutableBytes(of: &buffer, { read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
            let (queue, stopping) = jobs.withLock { state in
                defer { state.queue.removeAll() }
                return (state.queue, state.stopping)
            }
            for (job, outcome) in zip(queue, WritePlan.apply(queue.map(\.plan), to: store)) { job.answer(outcome) }
            if stopping { break }
        }
        store.removeObserver(revisions)
        store.removeObserver(statuses)
        feed.close()
    }
}

/// The store thread's answer to "is the store open?", waited for by the thread that started it.
private final class Opening: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let error = Mutex<ServeError?>(nil)

    func finish(_ failure: ServeError?) {
        error.withLock { $0 = failure }
        done.signal()
    }

    func wait() -> ServeError? {
        done.wait()
        return error.withLock { $0 }
    }
}

/// The body of a new thread, passed through `pthread_create`'s argument.
private final class ThreadStart: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Why the server cannot start or go on.
public struct ServeError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
