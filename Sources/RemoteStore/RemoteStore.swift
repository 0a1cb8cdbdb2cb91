// A Realtime Database location over the network as a live store: streamed events become revisions.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface
import JSONTree
import LiveQuery
import Synchronization

/// A database location followed over the REST streaming protocol, as a `LiveStore`: the same
/// queries, synced arrays and viewer run on it as on a file.
///
/// The connection's first `put` is the first revision. Every later chunk of events the server
/// sends (a `put` or `patch` each) is applied to the location's value, and all the chunks that
/// arrived since the loop last ran become one revision: a burst is one batch, and after a
/// reconnection the server's fresh `put` of the whole location is one revision that changes
/// only what changed while offline. While the connection is down, the last revision stays and
/// `status.connection` says why.
///
/// Writes (`startWrite`) read the watched location with its ETag and write it back with
/// `if-match`, again on `412`, so increments and compare-and-swap are exact while other
/// clients write. A write's effect arrives as a revision through the stream, like anyone's.
///
/// Like a `FileStore`, it belongs to the thread that polls `pollDescriptors` and calls
/// `processPendingChanges()`.
public final class RemoteStore: LiveStore {
    public struct Options: Sendable {
        /// The stream's idle timeout, backoff and query parameters.
        public var connection: EventStreamConnection.Options
        /// A query observer added over at most this many children gets its first window at once.
        public var inlineEvaluationLimit: Int
        /// The query the first screen shows, at `path` below the location: when it has a limit,
        /// its children are asked for with a query `GET` (as the database's own clients do) and
        /// are the first revision if they come before the stream's first `put`, which replaces
        /// them. A large location then shows its first window without waiting for all of it.
        public var firstWindow: (path: Path, query: Query)?

        public init(connection: EventStreamConnection.Options = .init(), inlineEvaluationLimit: Int = 50_000,
                    firstWindow: (path: Path, query: Query)? = nil) {
            self.connection = connection
            self.inlineEvaluationLimit = inlineEvaluationLimit
            self.firstWindow = firstWindow
        }
    }

    public let hub: RevisionHub
    /// The followed location.
    public let url: DatabaseURL
    /// The URL as given to people (never with a token).
    public var name: String { url.display }
    public var loadingMessage: String { "connecting to \(url.display)…" }
    public var pollDescriptors: [Int32] { [wake.fd] }
    /// A database location is written in place, never only appended to.
    public var isAppendOnly: Bool { false }
    public var isRemote: Bool { true }
    public var hasWritesInProgress: Bool { !pendingWrites.isEmpty }

    /// What the network threads hand to the loop thread.
    private struct Inbox {
        var batches: [[StreamEvent]] = []
        var state: ConnectionState?
        var writes: [(id: Int, result: Result<WatchedWrite, WriteError>)] = []
        /// The first window's children, read with a query.
        var firstWindow: JSON?
    }

    /// The inbox, shared with the network's callbacks and tasks.
    private final class Mailbox: Sendable {
        let inbox = Mutex(Inbox())
    }

    private let wake: WakeSignal
    private let client: RemoteClient
    private let ownsClient: Bool
    private let rest: RestClient
    private let connection: EventStreamConnection
    private let mailbox = Mailbox()
    private var pendingWrites: [Int: (Result<WatchedWrite, WriteError>) -> Void] = [:]
    private var nextWriteID = 1
    /// Writes run one after another, in the order started.
    private var lastWrite: Task<Void, Never>?

    /// Starts following `url` (the first revision arrives through the loop).
    /// - Parameter client: shared with other stores; by default the store has its own, shut down
    ///   with `close()`.
    /// - Throws: `FileStoreError` when the system is out of descriptors.
    public init(url: DatabaseURL, credential: Credential?, client: RemoteClient? = nil,
                options: Options = Options()) throws(FileStoreError) {
        self.url = url
        wake = try WakeSignal()
        self.client = client ?? RemoteClient()
        ownsClient = client == nil
        rest = RestClient(client: self.client, url: url, credential: credential)
        hub = RevisionHub(
            // Changes are pushed to it, as inotify pushes a file's.
            status: StoreStatus(revision: 0, problem: nil, watchMode: .inotify, connection: .connecting),
            wake: wake, inlineEvaluationLimit: options.inlineEvaluationLimit)
        let mailbox = self.mailbox, wake = self.wake
        connection = EventStreamConnection(
            client: self.client, url: url, credential: credential, options: options.connection,
            onEvents: { events in
                mailbox.inbox.withLock { $0.batches.append(events) }
                wake.signal()
            },
            onState: { state in
                mailbox.inbox.withLock { $0.state = state }
                wake.signal()
            })
        connection.start()
        if let (path, query) = options.firstWindow, query.limit != nil, let parameters = query.restParameters {
            let rest = self.rest, location = url.location.appending(path)
            // On the client's event loop, as the stream is: the shared pool may be busy with
            // work that blocks (a test run's other tests; a host program's own tasks).
            Task(executorPreference: self.client.executor) {
                // A failure costs nothing: the stream's first `put` comes anyway.
                guard let value = try? await rest.get(location, parameters: parameters).value else { return }
                var root = value
                for key in path.keys.reversed() { root = .object(JSONObject([(key: key, value: root)])) }
                mailbox.inbox.withLock { $0.firstWindow = root }
                wake.signal()
            }
        }
    }

    deinit { close() }

    /// Stops following and, when the store made its own client, shuts it down. Writes still
    /// under way are abandoned (their callers are not called). Calling it again does nothing.
    public func close() {
        connection.stop()
        lastWrite?.cancel()
        if ownsClient { try? client.syncShutdown() }
    }

    public func processPendingChanges() {
        // First, so that a wake-up arriving while the rest runs is kept for the next call.
        wake.drain()
        let taken = mailbox.inbox.withLock { inbox in
            defer { inbox = Inbox() }
            return inbox
        }
        if let first = taken.firstWindow, taken.batches.isEmpty, currentRevision == nil {
            hub.publish(document: JSONDocument(first), identity: remoteIdentity)
        }
        if !taken.batches.isEmpty { apply(taken.batches) }
        if let state = taken.state { hub.status.connection = state }
        for write in taken.writes { pendingWrites.removeValue(forKey: write.id)?(write.result) }
        hub.deliverEvaluatedWindows()
        hub.deliverStatusIfChanged()
    }

    /// Applies the events of every batch in order; publishes one revision when the value changed
    /// (or for the first `put`, even of nothing).
    private func apply(_ batches: [[StreamEvent]]) {
        let before = currentRevision?.document
        var document = before ?? JSONDocument(.null)
        var received = false
        for event in batches.joined() {
            let writes = event.writes
            guard !writes.isEmpty else { continue }
            received = true
            do {
                document = try document.applying(writes)
            } catch {
                // A put below a leaf replaces the leaf in the database, where the document's
                // editor refuses to go through it: apply such an event to the value instead.
                var value = document.root.json
                for write in writes { value = replacing(value, at: write.path.keys[...], with: write.value) }
                document = JSONDocument(value)
            }
        }
        guard received, before == nil || before!.bytes != document.bytes else { return }
        hub.publish(document: document, identity: remoteIdentity)
    }

    /// A remote revision has no file behind it.
    private var remoteIdentity: FileIdentity { FileIdentity(device: 0, inode: 0, size: 0, modified: 0, changed: 0) }

    // MARK: - Writing

    public func startWrite(_ writes: [JSONWrite], watching path: Path, ifStill expected: JSON??,
                           done: @escaping (Result<WatchedWrite, WriteError>) -> Void) {
        let id = nextWriteID
        nextWriteID += 1
        pendingWrites[id] = done
        let previous = lastWrite, rest = self.rest, mailbox = self.mailbox, wake = self.wake
        let base = url.location, shown = url.display
        let document = currentRevision?.document ?? JSONDocument(.null)
        lastWrite = Task(executorPreference: client.executor) { [previous, rest, mailbox, wake, base, shown, document] in
            await previous?.value
            let result = await watchedWrite(writes, at: path, ifStill: expected, base: base, rest: rest,
                                            document: document, shown: shown)
            mailbox.inbox.withLock { $0.writes.append((id: id, result: result)) }
            wake.signal()
        }
    }

    /// Adds `value` under `path` with a push id the server picks, waiting for its answer.
    /// - Returns: the new key.
    public func append(_ value: JSON, under path: Path) throws(WriteError) -> String {
        let rest = self.rest, absolute = url.location.appending(path), shown = url.display
        do {
            return try client.blocking { try await rest.push(absolute, value) }
        } catch {
            throw WriteError.remote(url: shown, reason: "\(error)")
        }
    }
}

/// The tries of a compare-and-swap before it gives up.
private let writeTries = 25

/// Applies `writes` (paths relative to the followed location) to the value at `path` as one
/// compare-and-swap: GET with its ETag, PUT with `if-match`, again on 412. Writes that are not
/// all below `path` go as one multi-path PATCH of the location instead.
private func watchedWrite(
    _ writes: [JSONWrite], at path: Path, ifStill expected: JSON??, base: Path, rest: RestClient,
    document: JSONDocument, shown: String
) async -> Result<WatchedWrite, WriteError> {
    let result = WriteResult(document: document, identity: FileIdentity(device: 0, inode: 0, size: 0, modified: 0, changed: 0),
                             changed: true, attempts: 1)
    do {
        guard let relative = relativeWrites(writes, below: path) else {
            // Relative paths as the members' keys (a database key never holds a `/`).
            let members = JSONObject(writes.map { (key: $0.path.keys.joined(separator: "/"), value: $0.value) })
            try await rest.update(base, members)
            return .success(WatchedWrite(before: nil, after: nil, applied: true, result: result))
        }
        let target = base.appending(path)
        var (value, etag) = try await rest.get(target)
        for attempt in 1...writeTries {
            let before = value == .null ? nil : value
            if case .some(let expected) = expected, before != expected {
                return .success(WatchedWrite(before: before, after: before, applied: false, result: result))
            }
            guard let tag = etag else {
                return .failure(.remote(url: shown, reason: "the server gave no ETag for \(path): it cannot compare and swap"))
            }
            let new = try JSONDocument(value).applying(relative, serverTime: currentMilliseconds()).root.json
            switch try await rest.set(target, new, ifMatch: tag) {
            case .written:
                let done = WriteResult(document: document, identity: result.identity, changed: new != value, attempts: attempt)
                return .success(WatchedWrite(before: before, after: new == .null ? nil : new, applied: true, result: done))
            case .preconditionFailed(let newTag, let current):
                (value, etag) = (current, newTag)
            }
        }
        return .failure(.remote(url: shown, reason: "\(path) changed under each of \(writeTries) tries to write it; gave up"))
    } catch let error as JSONEditError {
        return .failure(.edit(error))
    } catch {
        return .failure(.remote(url: shown, reason: "\(error)"))
    }
}

/// `writes` with paths relative to `path`; nil when one is not at or below it.
private func relativeWrites(_ writes: [JSONWrite], below path: Path) -> [JSONWrite]? {
    var relative = [JSONWrite]()
    for write in writes {
        guard write.path.keys.starts(with: path.keys) else { return nil }
        relative.append(JSONWrite(Path(keys: Array(write.path.keys.dropFirst(path.keys.count))), write.value))
    }
    return relative
}

/// `value` with `new` at `keys` (null removes it, and objects left empty go too), as the
/// database writes: a leaf on the way is replaced by an object.
private func replacing(_ value: JSON, at keys: ArraySlice<String>, with new: JSON) -> JSON {
    guard let key = keys.first else { return new }
    var object: JSONObject
    switch value {
    case .object(let o): object = o
    case .array(let elements): object = JSONObject(elements.enumerated().map { (key: String($0.offset), value: $0.element) })
    default: object = JSONObject()
    }
    let child = replacing(object[key] ?? .null, at: keys.dropFirst(), with: new)
    object[key] = child.isNull ? nil : child
    return object.count == 0 ? .null : .object(object)
}

/// Wall-clock milliseconds since 1970: the time a server value `{".sv": "timestamp"}` takes.
private func currentMilliseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}
