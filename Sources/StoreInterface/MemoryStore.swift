// A live store of a document in memory: revisions given by the program (a test, a generator),
// and writes applied at once.
import JSONTree
import LiveQuery
import Synchronization

/// A `LiveStore` whose revisions are documents the program gives it with `publish(_:)` (from
/// another thread: through its `publisher`), and whose writes are applied to the current
/// document in memory. It watches no file and starts no thread but the hub's worker for first
/// windows over many children.
///
/// Like every store it belongs to one loop thread, which polls `pollDescriptors` and calls
/// `processPendingChanges()`; observers are called there.
///
/// ```swift
/// let store = try MemoryStore(["players": ["a": ["score": 1]]])
/// let array = SyncedArray(try store.reference("/players"))
/// store.publish(["players": ["a": ["score": 2]]])
/// try store.waitForRevision(2)
/// ```
public final class MemoryStore: DocumentStore {
    public let hub: RevisionHub
    public let name: String
    /// Whether only `append` writes (a log in memory: records keyed 0, 1, 2… at the root).
    public let isAppendOnly: Bool
    public var loadingMessage: String { "waiting for \(name)…" }
    public var pollDescriptors: [Int32] { [wake.fd] }
    public var hasWritesInProgress: Bool { !startedWrites.isEmpty }

    private let wake: WakeSignal
    private let inbox: Inbox
    /// Writes started with `startWrite`, made (and their callers told) on the loop thread.
    private var startedWrites: [() -> Void] = []

    /// A store with `value` as its first revision (none until `publish` when nil).
    /// - Parameters:
    ///   - appendOnly: a log: set, update and remove are refused, `append` adds records.
    ///   - inlineEvaluationLimit: a query over more children than this gets its first window
    ///     from the worker, off the loop thread.
    public init(_ value: JSON? = nil, name: String = "memory", appendOnly: Bool = false,
                inlineEvaluationLimit: Int = 50_000) throws(FileStoreError) {
        self.name = name
        isAppendOnly = appendOnly
        wake = try WakeSignal()
        inbox = Inbox(wake: wake)
        hub = RevisionHub(status: StoreStatus(revision: 0, problem: nil, watchMode: .inotify), wake: wake,
                          inlineEvaluationLimit: inlineEvaluationLimit)
        if let value { commit(JSONDocument(value)) }
    }

    /// Makes `value` the next revision. Observers hear of it on the loop thread, at the next
    /// `processPendingChanges()`.
    public func publish(_ value: JSON) { publisher.publish(value) }

    /// Makes `document` (a parse, with its own layout) the next revision, as `publish(_:)` does.
    public func publish(_ document: JSONDocument) { publisher.publish(document) }

    /// What publishes revisions from another thread.
    public var publisher: Publisher { Publisher(inbox: inbox) }

    /// Gives a `MemoryStore` its next revisions, from any thread, in order.
    public struct Publisher: Sendable {
        fileprivate let inbox: Inbox

        /// Makes `value` the store's next revision (see `MemoryStore.publish`).
        public func publish(_ value: JSON) { publish(JSONDocument(value)) }

        /// Makes `document` (a parse, with its own layout) the store's next revision.
        public func publish(_ document: JSONDocument) {
            inbox.documents.withLock { $0.append(document) }
            inbox.wake.signal()
        }
    }

    /// Documents published from any thread, made revisions on the loop thread in this order.
    fileprivate final class Inbox: Sendable {
        let documents = Mutex<[JSONDocument]>([])
        let wake: WakeSignal
        init(wake: WakeSignal) { self.wake = wake }
    }

    public func processPendingChanges() {
        wake.drain()
        for document in inbox.documents.withLock({ queue in defer { queue.removeAll() }; return queue }) {
            commit(document)
        }
        hub.deliverEvaluatedWindows()
        // Each write is in progress until it is made: its revision is this store's own.
        while !startedWrites.isEmpty {
            startedWrites[0]()
            startedWrites.removeFirst()
        }
        hub.deliverStatusIfChanged()
    }

    public func write(deriving derive: (JSONDocument) throws(WriteError) -> [JSONWrite]) throws(WriteError) -> WriteResult {
        guard !isAppendOnly else { throw Self.appendOnlyError(name) }
        let current = currentRevision?.document ?? JSONDocument(.null)
        let writes = try derive(current)
        let edited: JSONDocument
        do { edited = try current.applying(writes, serverTime: Int64(PushIDGenerator.systemMilliseconds())) } catch {
            throw .edit(error)
        }
        let changed = edited.bytes != current.bytes
        if changed { commit(edited) }
        return WriteResult(document: edited, identity: Self.identity(of: edited), changed: changed, attempts: 1)
    }

    /// Applies `writes` at the next `processPendingChanges()` (as a file store's writer thread
    /// would, later), then tells `done`; until then the write is in progress.
    public func startWrite(_ writes: [JSONWrite], watching path: Path, ifStill expected: JSON??,
                           done: @escaping (Result<WatchedWrite, WriteError>) -> Void) {
        startedWrites.append { [unowned self] in
            var before: JSON?
            var applied = true
            let outcome = Result { () throws(WriteError) -> WriteResult in
                try write { document in
                    before = document.watchedValue(at: path)
                    applied = expected.map { before == $0 } ?? true
                    return applied ? writes : []
                }
            }
            done(outcome.map { result in
                WatchedWrite(before: before, after: applied ? result.document.watchedValue(at: path) : before,
                             applied: applied, result: result)
            })
        }
        wake.signal()
    }

    /// Adds `value` as a new child of `path`: for a log, the root's next record (its key: the
    /// records before it); else under a new push key (an array's next index).
    public func append(_ value: JSON, under path: Path) throws(WriteError) -> String {
        let current = currentRevision?.document ?? JSONDocument(.object(JSONObject([])))
        let key: String
        if isAppendOnly {
            guard path.isRoot else {
                throw .appendOnly(path: name, what: "a log takes new records at its root (its end), not at \(path)")
            }
            key = String(current.root.count)
        } else {
            key = current.pushKey(under: path)
        }
        let edited: JSONDocument
        do { edited = try current.applying(JSONWrite.set(path.child(key), value)) } catch { throw .edit(error) }
        commit(edited)
        return key
    }

    private func commit(_ document: JSONDocument) {
        hub.publish(document: document, identity: Self.identity(of: document))
    }

    private static func identity(of document: JSONDocument) -> FileIdentity {
        let now = Int64(PushIDGenerator.systemMilliseconds()) * 1_000_000
        return FileIdentity(device: 0, inode: 0, size: Int64(document.bytes.count), modified: now, changed: now)
    }

    private static func appendOnlyError(_ name: String) -> WriteError {
        .appendOnly(path: name, what: "a log is only appended to: set, update and remove would rewrite its records; "
            + "push appends a record")
    }
}
