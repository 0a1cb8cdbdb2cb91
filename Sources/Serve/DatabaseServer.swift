// `synctable serve`: a JSON file as a Realtime Database, over the REST and streaming protocol.
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import Synchronization

/// Serves one JSON file over the Realtime Database's REST protocol, on Hummingbird.
///
/// Reads are answered from the latest revision of the file; writes go through the file
/// store's atomic, minimal, compare-and-swap writer on the store's own thread, so other
/// processes may keep editing the file; streams follow every revision, whoever wrote it.
///
/// ```swift
/// let server = try DatabaseServer(file: "demo.json", options: ServeOptions(port: 0))
/// try await server.run { port in print("listening on", port) }   // until SIGINT or SIGTERM
/// ```
public final class DatabaseServer: Sendable {
    public let file: String
    public let options: ServeOptions
    private let feed: RevisionFeed
    private let store: StoreThread

    /// Opens the file's store (on its own thread).
    /// - Throws: `ServeError` when the store cannot be opened.
    public init(file: String, options: ServeOptions) throws(ServeError) {
        self.file = file
        self.options = options
        feed = RevisionFeed(mailboxLimit: options.streamBacklogLimit)
        store = try StoreThread(path: file, feed: feed)
    }

    /// Waits for the file's first revision, then serves until SIGINT or SIGTERM (or until the
    /// task is cancelled); `onListening` gets the bound port.
    /// - Throws: `ServeError` when the file cannot be read as JSON at the start, or the address
    ///   cannot be bound.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        defer { store.stop() }
        raiseDescriptorLimit()
        if case .failure(let error) = await feed.firstRevision() {
            throw ServeError("\(file): \(error.description)")
        }
        var logger = Logger(label: "synctable.serve")
        logger.logLevel = .error
        let listening = ListeningFlag()
        let responder = DatabaseResponder(feed: feed, store: store, options: options)
        let wire = WireCache()
        let (feed, store, options) = (feed, store, options)
        let app = Application(
            responder: responder,
            // The client SDKs' WebSocket protocol on the same port: `/.ws?v=5&ns=NAME`.
            server: .http1WebSocketUpgrade(
                configuration: .init(ws: .init(maxFrameSize: WebSocketSession.maxFrameBytes, validateUTF8: true))
            ) { request, _, _ in
                guard request.path?.split(separator: "?").first == "/.ws" else { return .dontUpgrade }
                let host = request.authority ?? "\(options.host):\(options.port)"
                return .upgrade([:]) { inbound, outbound, _ in
                    await WebSocketSession.serve(
                        inbound: inbound, outbound: outbound, host: host, feed: feed, store: store, options: options, cache: wire)
                }
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
        // which the server would otherwise wait for.
        let group = ServiceGroup(configuration: .init(
            services: [app, StreamTicker(feed: feed, milliseconds: options.keepAliveMilliseconds)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch where !listening.isSet {
            throw ServeError("cannot listen on \(options.host):\(options.port): \(error)")
        }
    }
}

/// Whether the server got as far as listening (an error before that is about the address).
private final class ListeningFlag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// Lets the process open as many descriptors as the system allows it: each stream holds one
/// (the usual soft limit, 1,024, would cap a server at about a thousand clients).
func raiseDescriptorLimit() {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
}

#if canImport(Glibc)
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif

/// Sends idle streams their keep-alives, and ends every stream when the server shuts down
/// (so that a graceful shutdown does not wait for streams that never end).
private struct StreamTicker: Service {
    let feed: RevisionFeed
    let milliseconds: Int

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .milliseconds(milliseconds))
                feed.tick()
            }
        }
        feed.close()
    }
}
