// A served scratch file in this process: the server's own accounting (caches, streams,
// connections) is there to read, and it stops when its task is cancelled.
import Dispatch
import Foundation
@testable import Serve
import StoreInterface
import Testing

/// A served scratch file in this process. Its tasks run on a queue of their own, so a test
/// that waits for an answer on a blocking socket does not hold up the server.
final class InProcessServer {
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

    func connect(receiveBuffer: Int? = nil) throws -> HTTPConnection {
        try HTTPConnection(port: port, receiveBuffer: receiveBuffer)
    }

    /// One request on a new connection.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil) throws -> HTTPResult {
        try connect().request(method, target, headers: headers, body: body.map { Array($0.utf8) })
    }

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

/// Whether the server closed each of `connections` within `seconds`, waited for on a thread of
/// its own: a blocking wait on the concurrency pool would hold a thread the in-process server
/// needs to close them (a full parallel run keeps the pool's two threads busy).
func closedByServer(_ connections: [HTTPConnection], seconds: Double) async -> [Bool] {
    let box = ConnectionsBox(connections)
    return await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: box.connections.map { $0.isClosedByServer(seconds: seconds) }) }.start()
    }
}

/// Connections handed to the one thread that waits on them.
private final class ConnectionsBox: @unchecked Sendable {
    let connections: [HTTPConnection]
    init(_ connections: [HTTPConnection]) { self.connections = connections }
}
