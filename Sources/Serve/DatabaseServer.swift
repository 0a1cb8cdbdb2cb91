// `synctable serve`: a JSON file (or any live store) as a Realtime Database, over its REST,
// streaming and WebSocket protocols.
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Dispatch
import Logging
import NIOCore
import ServiceLifecycle
import FileStore
import StoreInterface
import Synchronization

/// Serves one live store over the Realtime Database's REST, streaming and WebSocket
/// protocols, on Hummingbird: a JSON file, or any `LiveStore` (a JSON Lines log or a pipe, a
/// document in memory).
///
/// Reads are answered from the latest revision; streams follow every revision, whoever wrote
/// it. Writes go through the store on its own thread: a `DocumentStore` (a JSON file: the
/// atomic, minimal, compare-and-swap writer, so other processes may keep editing it) takes
/// every kind; a store that is only appended to (a log) takes pushes to its root; any other
/// store is read only.
///
/// ```swift
/// let server = try DatabaseServer(file: "demo.json", options: ServeOptions(port: 0))
/// try await server.run { port in print("listening on", port) }   // until SIGINT or SIGTERM
/// ```
public final class DatabaseServer: Sendable {
    /// What is served, for people (a path, `-`): in messages, never to clients.
    public let name: String
    @available(*, deprecated, renamed: "name")
    public var file: String { name }
    public let options: ServeOptions
    let feed: RevisionFeed
    private let store: StoreThread
    private let access: Access
    /// Answers to reads, and streams' events, of the newest revision.
    let reads: RevisionCache<CachedRead>
    let events: RevisionCache<EventBytes>
    let connections: ConnectionLimit
    /// The bytes clients may make the server hold, in all and each.
    let budget: MemoryBudget

    /// Opens the file's store (on its own thread), and reads the rules file if one is given.
    /// - Throws: `ServeError` when the store cannot be opened, the rules file has an error
    ///   (`FILE:LINE:COLUMN: MESSAGE`), unverified tokens are to be accepted on an address other
    ///   than loopback, or the auth token is empty (an unset variable would otherwise give an
    ///   open server that looks closed).
    public convenience init(file: String, options: ServeOptions) throws(ServeError) {
        try self.init(name: file, options: options) { () throws(ServeError) in
            do { return try FileStore(path: file) } catch { throw ServeError("\(file): \(error)") }
        }
    }

    /// Serves the store `open` makes, on the store's own thread (see `init(file:options:)`).
    public init(name: String, options: ServeOptions, store open: @escaping @Sendable () throws -> any LiveStore) throws(ServeError) {
        if options.authToken?.isEmpty == true {
            throw ServeError("the auth token is empty: give one, or none to serve without")
        }
        self.name = name
        self.options = options
        if options.acceptUnverifiedTokens && !isLoopback(options.host) {
            throw ServeError("--accept-unverified-tokens lets anyone claim to be any user: it is refused on \(options.host), "
                + "an address other than loopback (127.0.0.1, ::1, localhost)")
        }
        access = Access(options: options, rules: try options.rulesFile.map { path throws(ServeError) in try RulesFile.read(path) })
        feed = RevisionFeed(mailboxLimit: options.streamBacklogLimit, unsentLimit: options.streamUnsentLimit)
        reads = RevisionCache(byteLimit: options.cacheBytes)
        events = RevisionCache(byteLimit: options.cacheBytes)
        let cap = ConnectionLimit.maximum(descriptors: raiseDescriptorLimit())
        connections = ConnectionLimit(maximum: min(options.maxConnections ?? cap, cap))
        budget = MemoryBudget(total: options.maxMemoryBytes ?? MemoryBudget.machineDefault)
        store = try StoreThread(open: open, feed: feed)
    }

    /// Waits for the file's first revision, then serves until SIGINT or SIGTERM (or until the
    /// task is cancelled); `onListening` gets the bound port.
    /// - Throws: `ServeError` when the file cannot be read as JSON at the start, or the address
    ///   cannot be bound.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        try await run(stopsOnSignals: true, onListening: onListening)
    }

    /// `run`, for a caller that is not async (a command): blocks the calling thread until the
    /// server stops.
    /// - Throws: what `run` throws.
    public func runUntilStopped(onListening: @escaping @Sendable (Int) -> Void) throws {
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do { try await run(onListening: onListening) } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// `run`, stopped gracefully by SIGINT and SIGTERM or only by cancelling its task.
    func run(stopsOnSignals: Bool, onListening: @escaping @Sendable (Int) -> Void) async throws {
        defer { store.stop() }
        if case .failure(let error) = await feed.firstRevision() {
            throw ServeError("\(name): \(error.description)")
        }
        var logger = Logger(label: "synctable.serve")
        logger.logLevel = .critical
        let listening = OnceFlag()
        let connections = self.connections
        let responder = DatabaseResponder(feed: feed, store: store, options: options, access: access, reads: reads, events: events)
        // Windows kept for the WebSocket listens: an eighth of the budget.
        let wire = WireCache(windowByteLimit: budget.total / 8)
        let idleTimeout = TimeAmount.milliseconds(Int64(options.idleTimeoutMilliseconds))
        let (feed, store, options, access, budget) = (feed, store, options, access, budget)
        let app = Application(
            responder: responder,
            // The client SDKs' WebSocket protocol on the same port: `/.ws?v=5&ns=NAME`.
            server: HTTPServerBuilder { responder in
                GuardedChannel(
                    base: HTTP1WebSocketUpgradeChannel(
                        responder: responder,
                        configuration: .init(
                            http1: .init(idleTimeout: idleTimeout),
                            ws: .init(maxFrameSize: WebSocketSession.maxFrameBytes, validateUTF8: true))
                    ) { request, channel, _ in
                        guard request.path?.split(separator: "?").first == "/.ws" else { return .dontUpgrade }
                        let host = request.authority ?? "\(options.host):\(options.port)"
                        return .upgrade([:]) { inbound, outbound, _ in
                            await WebSocketSession.serve(
                                inbound: inbound, outbound: outbound, channel: channel, host: host, feed: feed, store: store,
                                options: options, access: access, cache: wire, budget: budget)
                        }
                    },
                    limit: connections, headTimeout: idleTimeout)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(options.host, port: options.port), serverName: "synctable", backlog: 1024),
            onServerRunning: { channel in
                listening.set()
                onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
        // The ticker comes last, so a graceful shutdown stops it first: it ends the streams,
        // which the server would otherwise wait for, and stops the store, refusing the writes
        // still queued. Whatever else a client holds open (a body it never finishes) is
        // cancelled after 300 ms, so a signal ends the server within half a second.
        let stopping = OnceFlag()
        var configuration = ServiceGroupConfiguration(
            services: [app, StreamTicker(feed: feed, store: store, milliseconds: options.keepAliveMilliseconds, stopping: stopping)],
            gracefulShutdownSignals: stopsOnSignals ? [.sigterm, .sigint] : [], logger: logger)
        configuration.maximumGracefulShutdownDuration = .milliseconds(300)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch where !listening.isSet {
            throw ServeError("cannot listen on \(options.host):\(options.port): \(error)")
        } catch where stopping.isSet {
            // Connections cut short by the shutdown: not a failure of the server.
        }
    }
}

/// A fact that becomes true once: the server got as far as listening (an error before that is
/// about the address); the server is stopping.
private final class OnceFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// Lets the process open as many descriptors as the system allows it: each stream holds one
/// (the usual soft limit, 1,024, would cap a server at about a thousand clients). Returns the
/// limit in force.
func raiseDescriptorLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
        let raised = rlimit(rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max)
        if setrlimit(RLIMIT_NOFILE_VALUE, [raised]) == 0 { limit = raised }
    }
    return Int(clamping: limit.rlim_cur)
}

#if canImport(Glibc)
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif

/// Sends idle streams their keep-alives, and ends every stream and stops the store when the
/// server shuts down (so that a graceful shutdown waits neither for streams that never end nor
/// for a queue of writes).
private struct StreamTicker: Service {
    let feed: RevisionFeed
    let store: StoreThread
    let milliseconds: Int
    fileprivate let stopping: OnceFlag

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .milliseconds(milliseconds))
                feed.tick()
            }
        }
        stopping.set()
        feed.close()
        store.stop()
    }
}
