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
import Rules
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
/// try await server.run { port in print("listening on", port) }   // until server.stopGracefully()
/// ```
public final class DatabaseServer: Sendable {
    /// What is served, for people (a path, `-`, or the databases' names): in messages, never to
    /// clients.
    public let name: String
    @available(*, deprecated, renamed: "name")
    public var file: String { name }
    public let options: ServeOptions
    /// The databases served, by name (`?ns=NAME`); with one, it answers whatever `ns` a request
    /// names, as a lone emulator database does.
    let databases: [String: ServedDatabase]
    /// The first database's, for a server of one.
    var feed: RevisionFeed { first.feed }
    var reads: RevisionCache<CachedRead> { first.reads }
    var events: RevisionCache<EventBytes> { first.events }
    private let first: ServedDatabase
    let connections: ConnectionLimit
    /// The bytes clients may make the server hold, in all and each.
    let budget: MemoryBudget
    /// The running server's services, and whether a graceful stop was asked for before they ran.
    private let lifecycle = Mutex<(group: ServiceGroup?, stopRequested: Bool)>((nil, false))

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
    public convenience init(name: String, options: ServeOptions, store open: @escaping @Sendable () throws -> any LiveStore) throws(ServeError) {
        try self.init(databases: [(name, open)], options: options, name: name)
    }

    /// Serves several databases, each a store of its own with its own rules, chosen by a
    /// request's `ns` (the Firebase emulator's several namespaces); a request naming none of
    /// them is answered 404. Each starts with the rules of `options.rulesFile`; rules a client
    /// puts in force for one database are kept in memory (the file is not shared between them).
    /// - Throws: `ServeError` as `init(file:options:)`, and for two databases of one name.
    public init(databases: [(name: String, open: @Sendable () throws -> any LiveStore)], options: ServeOptions, name: String? = nil) throws(ServeError) {
        if options.authToken?.isEmpty == true {
            throw ServeError("the auth token is empty: give one, or none to serve without")
        }
        if options.acceptUnverifiedTokens && !isLoopback(options.host) {
            throw ServeError("--accept-unverified-tokens lets anyone claim to be any user: it is refused on \(options.host), "
                + "an address other than loopback (127.0.0.1, ::1, localhost)")
        }
        guard !databases.isEmpty else { throw ServeError("nothing to serve: give a file, a folder of them or --namespace NAME=FILE") }
        self.name = name ?? databases.map(\.name).joined(separator: ", ")
        self.options = options
        let rules = try options.rulesFile.map { path throws(ServeError) in try RulesFile.read(path) }
        let cap = ConnectionLimit.maximum(descriptors: descriptorLimit())
        connections = ConnectionLimit(maximum: min(options.maxConnections ?? cap, cap))
        budget = MemoryBudget(total: options.maxMemoryBytes ?? MemoryBudget.machineDefault)
        var opened = [String: ServedDatabase]()
        var own = options
        if databases.count > 1 { own.rulesFile = nil }
        // The windows kept for WebSocket listens: an eighth of the budget, shared by the databases.
        let windowBytes = budget.total / 8 / databases.count
        for (name, open) in databases {
            do throws(ServeError) {
                guard opened[name] == nil else { throw ServeError("two databases are named \(name)") }
                opened[name] = try ServedDatabase(name: name, options: own, rules: rules, windowBytes: windowBytes, open: open)
            } catch {
                for database in opened.values { database.store.stop() }
                throw error
            }
        }
        self.databases = opened
        first = opened[databases[0].name]!
    }

    /// The database a request's `ns` names; nil for a name not served by a server of several.
    func database(named ns: String?) -> ServedDatabase? {
        databases.count == 1 ? first : ns.flatMap { databases[$0] }
    }

    /// `run`, for a caller that is not async (a command): blocks the calling thread until the
    /// server stops (`stopGracefully()`).
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

    /// Stops the server gracefully, as a program does on SIGTERM: the streams ended, the writes
    /// queued refused, what a client still holds open cancelled after 300 ms. Any thread.
    public func stopGracefully() {
        guard let group = lifecycle.withLock({ state -> ServiceGroup? in
            state.stopRequested = true
            return state.group
        }) else { return }
        Task { await group.triggerGracefulShutdown() }
    }

    /// Waits for the file's first revision, then serves until `stopGracefully()` or until the
    /// task is cancelled; `onListening` gets the bound port. Returns once its stores have
    /// stopped (their threads ended and their files let go, but for a read still under way on
    /// a store's read queue, which lets go when it ends: a program serving one file after
    /// another, or a test, does not run out of watches or mappings). Signals are the program's:
    /// a program stops the server on SIGTERM by calling `stopGracefully()` (`synctable serve`
    /// does).
    /// - Throws: `ServeError` when the file cannot be read as JSON at the start, or the address
    ///   cannot be bound.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let served: Result<Void, any Error>
        do {
            served = .success(try await serve(onListening: onListening))
        } catch {
            served = .failure(error)
        }
        for database in databases.values { database.store.stop() }
        for database in databases.values { await database.store.ended() }
        try served.get()
    }

    /// `run` but for closing the stores.
    private func serve(onListening: @escaping @Sendable (Int) -> Void) async throws {
        for database in self.databases.values.sorted(by: { $0.name < $1.name }) {
            if case .failure(let error) = await database.feed.firstRevision() {
                throw ServeError("\(self.databases.count == 1 ? name : database.name): \(error.description)")
            }
        }
        var logger = Logger(label: "synctable.serve")
        logger.logLevel = .critical
        let listening = OnceFlag()
        let app = application(logger: logger, listening: listening, onListening: onListening)
        // The ticker comes last, so a graceful shutdown stops it first: it ends the streams,
        // which the server would otherwise wait for, and stops the store, refusing the writes
        // still queued. Whatever else a client holds open (a body it never finishes) is
        // cancelled after 300 ms, so a signal ends the server within half a second.
        let stopping = OnceFlag()
        var configuration = ServiceGroupConfiguration(
            services: [app] + self.databases.values.map(\.sweeper)
                + [StreamTicker(databases: Array(self.databases.values), milliseconds: options.keepAliveMilliseconds, stopping: stopping)],
            gracefulShutdownSignals: [], logger: logger)
        configuration.maximumGracefulShutdownDuration = .milliseconds(300)
        let group = ServiceGroup(configuration: configuration)
        guard !lifecycle.withLock({ state -> Bool in
            state.group = group
            return state.stopRequested
        }) else { return }
        do {
            try await group.run()
        } catch where !listening.isSet {
            throw ServeError("cannot listen on \(options.host):\(options.port): \(error)")
        } catch where stopping.isSet {
            // Connections cut short by the shutdown: not a failure of the server.
        }
    }

    /// The HTTP server: REST, and the client SDKs' WebSocket protocol on the same port.
    private func application(logger: Logger, listening: OnceFlag, onListening: @escaping @Sendable (Int) -> Void) -> some Service {
        let databases = self
        let connections = self.connections
        let idleTimeout = TimeAmount.milliseconds(Int64(options.idleTimeoutMilliseconds))
        let (options, budget) = (options, budget)
        return Application(
            responder: NamespaceRouter(server: databases),
            // The client SDKs' WebSocket protocol on the same port: `/.ws?v=5&ns=NAME`.
            server: HTTPServerBuilder { responder in
                GuardedChannel(
                    base: HTTP1WebSocketUpgradeChannel(
                        responder: responder,
                        configuration: .init(
                            http1: .init(idleTimeout: idleTimeout),
                            ws: .init(maxFrameSize: WebSocketSession.maxFrameBytes, validateUTF8: true))
                    ) { request, channel, _ in
                        let target = request.path?.split(separator: "?", maxSplits: 1) ?? []
                        guard target.first == "/.ws" else { return .dontUpgrade }
                        let ns = target.count > 1 ? RequestParameters.value(of: "ns", inURLQuery: String(target[1])) : nil
                        guard let database = databases.database(named: ns) else { return .dontUpgrade }
                        let host = request.authority ?? "\(options.host):\(options.port)"
                        return .upgrade([:]) { inbound, outbound, _ in
                            await WebSocketSession.serve(
                                inbound: inbound, outbound: outbound, channel: channel, host: host, feed: database.feed,
                                store: database.store, options: database.options, access: database.access, cache: database.wire,
                                budget: budget, sweeper: database.sweeper)
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
    }
}

/// A fact that becomes true once: the server got as far as listening (an error before that is
/// about the address); the server is stopping.
private final class OnceFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// The process's descriptor limit (a program that is a server raises it first, at its edge:
/// each stream holds a descriptor, and the usual soft limit, 1,024, would cap a server at
/// about a thousand clients).
func descriptorLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return 1024 }
    return Int(clamping: limit.rlim_cur)
}

#if canImport(Glibc)
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif

/// Sends idle streams their keep-alives, and ends every stream and stops the store when the
/// server shuts down (so that a graceful shutdown waits neither for streams that never end nor
/// for a queue of writes).
private struct StreamTicker: Service {
    let databases: [ServedDatabase]
    let milliseconds: Int
    fileprivate let stopping: OnceFlag

    func run() async throws {
        await ServiceTimer().every(.milliseconds(Int64(milliseconds))) {
            for database in databases { database.feed.tick() }
        }
        stopping.set()
        // The stores stop once the server has (`run`'s end): a session ending now still makes
        // its onDisconnect writes, and writes still queued after that are refused.
        for database in databases { database.feed.close() }
    }
}

/// One database of a server: its store on a thread of its own, the revisions it publishes,
/// the rules in force and the answers kept for its newest revisions.
final class ServedDatabase: Sendable {
    let name: String
    /// The server's options, with the rules file this database writes its rules to, if any.
    let options: ServeOptions
    let feed: RevisionFeed
    let store: StoreThread
    let access: Access
    /// Answers to reads, and streams' events, of the newest revision.
    let reads: RevisionCache<CachedRead>
    let events: RevisionCache<EventBytes>
    /// Windows kept for the WebSocket listens.
    let wire: WireCache
    /// Watches the WebSocket connections' unfinished messages.
    let sweeper: UnfinishedSweeper

    init(name: String, options: ServeOptions, rules: SecurityRules?, windowBytes: Int,
         open: @escaping @Sendable () throws -> any LiveStore) throws(ServeError) {
        self.name = name
        self.options = options
        access = Access(options: options, rules: rules)
        feed = RevisionFeed(mailboxLimit: options.streamBacklogLimit, unsentLimit: options.streamUnsentLimit)
        reads = RevisionCache(byteLimit: options.cacheBytes)
        events = RevisionCache(byteLimit: options.cacheBytes)
        wire = WireCache(windowByteLimit: windowBytes)
        sweeper = UnfinishedSweeper(limit: .milliseconds(options.idleTimeoutMilliseconds))
        store = try StoreThread(open: open, feed: feed)
    }

    var responder: DatabaseResponder {
        DatabaseResponder(feed: feed, store: store, options: options, access: access, reads: reads, events: events)
    }
}

/// Answers each REST request with the database its `ns` names (404 for one not served).
private struct NamespaceRouter: HTTPResponder {
    typealias Context = ServeContext
    let server: DatabaseServer

    func respond(to request: Request, context: Context) async throws -> Response {
        let ns = RequestParameters.value(of: "ns", inURLQuery: request.uri.query ?? "")
        guard let database = server.database(named: ns) else {
            let served = server.databases.keys.sorted().joined(separator: ", ")
            return DatabaseResponder.response(RequestError(.notFound, "no database named \(ns ?? "(none: give ?ns=NAME)") here; this server has \(served)"))
        }
        return try await database.responder.respond(to: request, context: context)
    }
}
