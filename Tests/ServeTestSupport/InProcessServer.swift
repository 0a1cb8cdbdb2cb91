// A served scratch file in this process (`DatabaseServer` on a thread of its own), for the tests
// of the server and of its clients: no process to start, and the server's own accounting
// (caches, streams, connections) is there to read.
import Foundation
import Serve
import StoreInterface
import Synchronization

/// A served scratch file in this process. Its tasks run on a thread of their own, so a test
/// that waits for an answer on a blocking socket does not hold up the server. A test awaits
/// `stop()`: the shutdown needs a thread of the concurrency pool (swift-service-lifecycle ends
/// its waits on cancellation from a task of its own), which a blocking wait would hold.
public final class InProcessServer {
    public let server: DatabaseServer
    public let port: Int
    private let task: Task<Void, any Error>

    /// A thread of its own: servers of tests running at once do not wait on each other.
    private let executor = ThreadExecutor()

    public convenience init(file: String, options: ServeOptions = ServeOptions(port: 0)) async throws {
        var options = options
        options.port = 0
        try await self.init { try DatabaseServer(file: file, options: options) }
    }

    /// Serves the store `open` makes (on the server's store thread).
    public convenience init(name: String, options: ServeOptions = ServeOptions(port: 0),
                     store open: @escaping @Sendable () throws -> any LiveStore) async throws {
        var options = options
        options.port = 0
        try await self.init { try DatabaseServer(name: name, options: options, store: open) }
    }

    private init(_ make: () throws -> DatabaseServer) async throws {
        let server = try await Self.admitted(make)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let running = Self.running
        // No signals: a signal to the test process is not this server's.
        task = Task(executorPreference: executor) {
            defer {
                continuation.finish()
                running.leave()
            }
            try await server.run { continuation.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            executor.finish()
            // What stopped it (the first revision, the address), else that it did not start.
            if case .failure(let error) = await task.result { throw error }
            throw ServeError("the server did not start")
        }
        self.server = server
        self.port = port
    }

    /// The server `make` makes, once fewer than the most are running.
    private static func admitted(_ make: () throws -> DatabaseServer) async throws -> DatabaseServer {
        await running.enter()
        do {
            return try make()
        } catch {
            running.leave()
            throw error
        }
    }

    /// A test that ended early (a `#require` failed) still stops its server, unwaited.
    deinit {
        task.cancel()
        executor.finish()
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Servers of the tests running at once: each holds inotify instances (128 for all of a
    /// user's processes) and guarded mappings (a process's), which the suite's other tests need
    /// too, and two cores gain nothing from more.
    private static let running = Turnstile(4)

    /// Stops the server and waits for it (its stores stopped).
    /// - Throws: what the server's run threw, other than its cancellation (as a spawned server's
    ///   exit status other than 0 would have failed the test).
    public func stop() async throws {
        // Cancelled from the server's own thread, between its jobs: cancelled from another while
        // a job of its held a lock of swift-async-algorithms' `merge` (whose cancellation
        // handler takes the same lock under the task's), both threads waited for ever.
        let task = task
        await Task(executorPreference: executor) { task.cancel() }.value
        defer { executor.finish() }
        do { try await task.value } catch is CancellationError {}
    }
}

/// Runs jobs on a thread of its own, one at a time: not a dispatch queue, whose jobs wait for a
/// thread of libdispatch's pool, which the suite's blocking tests share.
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: the state is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false
    private var running = false

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let start = !running
        running = true
        condition.signal()
        condition.unlock()
        if start { startThread() }
    }

    /// Lets the thread end once no job is waiting (a job enqueued later starts another).
    public func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func startThread() {
        let thread = Thread { [self] in runJobs() }
        thread.name = "in-process-server"
        thread.start()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            let batch = jobs
            jobs.removeAll()
            if batch.isEmpty { running = false }
            condition.unlock()
            if batch.isEmpty { return }
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

/// At most `limit` holders at once; the others wait (suspended, holding no thread) in turn.
private final class Turnstile: Sendable {
    private let state: Mutex<(free: Int, waiting: [CheckedContinuation<Void, Never>])>

    init(_ limit: Int) { state = Mutex((limit, [])) }

    func enter() async {
        await withCheckedContinuation { continuation in
            let admitted = state.withLock { state -> Bool in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
