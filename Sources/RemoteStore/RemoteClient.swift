// One HTTP client for a process: its own event loop thread, shut down once; and a bridge for
// synchronous callers.
import AsyncHTTPClient
import Dispatch
import NIOCore
import NIOPosix
import Synchronization

/// The HTTP client that `RestClient`s and `EventStreamConnection`s share (connections are
/// pooled per host). It runs on one event loop thread of its own, and so do the connections'
/// tasks: they never wait for a thread of the shared concurrency pool, which the callers may
/// keep busy or blocked.
///
/// Call `shutdown()` (or `syncShutdown()` from synchronous code) once nothing uses it any
/// more: AsyncHTTPClient requires it before the client goes away.
public final class RemoteClient: Sendable {
    let http: HTTPClient
    private let group: MultiThreadedEventLoopGroup
    /// Runs tasks on the client's event loop.
    let executor: EventLoopExecutor
    private let isShutDown = Atomic<Bool>(false)

    /// - Parameter connectTimeout: how long one connection may take to open (TCP and TLS).
    public init(connectTimeout: Duration = .seconds(10)) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .milliseconds(Int64(milliseconds(connectTimeout))))
        // A failed connection fails its request at once: the stream's own backoff decides when
        // to try again and reports each try as a state.
        configuration.connectionPool.retryConnectionEstablishment = false
        // A redirect to another host would take the token with it.
        configuration.redirectConfiguration = .disallow
        http = HTTPClient(eventLoopGroup: group, configuration: configuration)
        executor = EventLoopExecutor(group.next())
    }

    /// A client dropped without `shutdown()` (a caller that threw on its way out) is shut down
    /// in the background rather than left to AsyncHTTPClient's "not shut down" trap.
    deinit {
        guard !isShutDown.load(ordering: .acquiring) else { return }
        let group = self.group
        http.shutdown().whenComplete { _ in group.shutdownGracefully(queue: .global()) { _ in } }
    }

    /// Shuts the client and its event loop down; later requests fail. Calling it again does nothing.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try await http.shutdown()
        try await group.shutdownGracefully()
    }

    /// `shutdown()` for synchronous code; not to be called on the client's own event loop.
    public func syncShutdown() throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try http.syncShutdown()
        try group.syncShutdownGracefully()
    }
}

extension RemoteClient {
    /// Runs `work` on the client's event loop and waits for it on this thread: the bridge from
    /// synchronous commands (`synctable set URL …`) to the async clients. Not to be called on
    /// the client's event loop (from a connection's callbacks), which would wait for itself.
    public func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}

/// Runs tasks on one NIO event loop: the thread that also does their I/O, so resuming after a
/// read is no hop to another thread.
final class EventLoopExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
