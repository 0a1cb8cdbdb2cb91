// A served scratch file in this process: the server's own accounting (caches, streams,
// connections) is there to read, and it stops when its task is cancelled.
import Dispatch
import Foundation
@testable import Serve
import StoreInterface
import Testing

/// A served scratch file in this process. Its tasks run on a queue of their own, so a test
/// that waits for an answer on a blocking socket does not hold up the server. A test awaits
/// `stop()`: the shutdown needs a thread of the concurrency pool (swift-service-lifecycle ends
/// its waits on cancellation from a task of its own), which a blocking wait would hold.
final class InProcessServer: ServedForTest {
    let server: DatabaseServer
    let port: Int
    private let task: Task<Void, any Error>

    /// A queue of its own: servers of tests running at once do not wait on each other.
    private let executor = QueueExecutor()

    convenience init(file: String, options: ServeOptions = ServeOptions(port: 0)) async throws {
        var options = options
        options.port = 0
        try await self.init(try DatabaseServer(file: file, options: options))
    }

    /// Serves the store `open` makes (on the server's store thread).
    convenience init(name: String, options: ServeOptions = ServeOptions(port: 0),
                     store open: @escaping @Sendable () throws -> any LiveStore) async throws {
        var options = options
        options.port = 0
        try await self.init(try DatabaseServer(name: name, options: options, store: open))
    }

    private init(_ server: DatabaseServer) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        // No signals: a signal to the test process is not this server's.
        task = Task(executorPreference: executor) {
            defer { continuation.finish() }
            try await server.run { continuation.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw HTTPTestError(description: "the server did not start") }
        self.server = server
        self.port = port
    }

    /// A test that ended early (a `#require` failed) still stops its server, unwaited.
    deinit { task.cancel() }

    /// Stops the server and waits for it.
    func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// Runs jobs on a serial dispatch queue: a thread outside the tasks' shared pool.
final class QueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "in-process-server")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Whether the server closed each of `connections` within `seconds`, waited for off the pool.
func closedByServer(_ connections: [HTTPConnection], seconds: Double) async -> [Bool] {
    await offPool { connections.map { $0.isClosedByServer(seconds: seconds) } }
}

/// `wait` run on a thread of its own: a blocking wait on the concurrency pool would hold a
/// thread that what it waits for may need (a timer's firing, a connection's closing by an
/// in-process server), and a full parallel run keeps the pool's two threads busy.
func offPool<T: Sendable>(_ wait: @escaping () -> T) async -> T {
    let box = WaitBox(wait)
    return await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: box.wait()) }.start()
    }
}

/// A wait (and the connections it holds) handed to the one thread that runs it.
private final class WaitBox<T>: @unchecked Sendable {
    let wait: () -> T
    init(_ wait: @escaping () -> T) { self.wait = wait }
}
