// How a file is served: address, access and limits.

/// The options of `synctable serve`.
public struct ServeOptions: Sendable {
    /// The address to bind: loopback unless asked otherwise.
    public var host: String
    /// The port; 0 picks a free one (see `DatabaseServer.port`).
    public var port: Int
    /// Refuse every write with 401.
    public var readOnly: Bool
    /// When set, every request must carry it (`Authorization: Bearer T` or `?auth=T`).
    public var authToken: String?
    /// Larger request bodies are refused with 413.
    public var maxBodyBytes: Int
    /// A stream more revisions behind than this (its client not reading) is dropped.
    public var streamBacklogLimit: Int
    /// How often an idle stream gets a `keep-alive` event.
    public var keepAliveMilliseconds: Int
    /// The Security Rules file (`database.rules.json`) deciding each request; nil: the token
    /// gate alone. A rules `PUT` is written back to it.
    public var rulesFile: String?
    /// Accept Firebase ID tokens without verifying their signature (a local test setup; the
    /// server refuses it on an address other than loopback).
    public var acceptUnverifiedTokens = false
    /// A stream that still has more than this many bytes to send when the file changes (its
    /// client reads too slowly, or not at all) is dropped.
    public var streamUnsentLimit: Int
    /// The bytes of answers kept for reads of the newest revision (and as much for streams' events).
    public var cacheBytes: Int
    /// A connection with no request in progress, or whose request's head has not all arrived,
    /// is closed after this long.
    public var idleTimeoutMilliseconds: Int
    /// Connections past this many are answered 503 and closed at once; never more than the
    /// descriptor limit allows, less a reserve (nil: that many).
    public var maxConnections: Int?
    /// A WebSocket connection's most listens at once, and most onDisconnect writes (whose data
    /// together stay under `maxBodyBytes`): one client's state is bounded whatever it sends.
    public var maxListensPerConnection: Int
    /// What clients may make the server hold in all (messages being received, payloads once
    /// parsed, onDisconnect writes); a connection may hold a sixteenth of it. nil: a quarter of
    /// the machine's memory.
    public var maxMemoryBytes: Int?

    public init(
        host: String = "127.0.0.1", port: Int = 9000, readOnly: Bool = false, authToken: String? = nil,
        maxBodyBytes: Int = 16 << 20, streamBacklogLimit: Int = 256, keepAliveMilliseconds: Int = 30_000,
        streamUnsentLimit: Int = 16 << 20, cacheBytes: Int = 64 << 20, idleTimeoutMilliseconds: Int = 30_000,
        maxConnections: Int? = nil, maxListensPerConnection: Int = 1_000, rulesFile: String? = nil,
        acceptUnverifiedTokens: Bool = false, maxMemoryBytes: Int? = nil
    ) {
        self.host = host
        self.port = port
        self.readOnly = readOnly
        self.authToken = authToken
        self.maxBodyBytes = maxBodyBytes
        self.streamBacklogLimit = streamBacklogLimit
        self.keepAliveMilliseconds = keepAliveMilliseconds
        self.streamUnsentLimit = streamUnsentLimit
        self.cacheBytes = cacheBytes
        self.idleTimeoutMilliseconds = idleTimeoutMilliseconds
        self.maxConnections = maxConnections
        self.maxListensPerConnection = maxListensPerConnection
        self.rulesFile = rulesFile
        self.acceptUnverifiedTokens = acceptUnverifiedTokens
        self.maxMemoryBytes = maxMemoryBytes
    }
}

extension ServeOptions {
    /// What serving on a address other than loopback without a token exposes, in words; nil
    /// on loopback or with `authToken`.
    public var exposure: String? {
        guard !isLoopback(host), authToken == nil else { return nil }
        return "serving on \(host) without --auth-token: anyone who reaches this address "
            + (rulesFile == nil ? "may read and write the whole file" : "is judged by the rules alone (the owner credential is refused)")
            + "; give --auth-token to require a token"
    }
}
