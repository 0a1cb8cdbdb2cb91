// Writing to the JSON file: set, update, push and remove, as atomic, minimal edits that the
// store's own listeners see at once.
import JSONTree
import LiveQuery

/// What a write did.
public struct WriteResult: Sendable {
    /// The file's content after the write (its content when the write changed nothing).
    public let document: JSONDocument
    /// The file's identity then.
    public let identity: FileIdentity
    /// Whether the file was replaced; false when the writes changed nothing.
    public let changed: Bool
    /// 1, or more when the file changed under the write and it was applied again.
    public let attempts: Int
}

extension FileStore {
    /// Push ids for every store of the process (one generator, so ids stay in creation order).
    static let pushIDs = PushIDGenerator()

    /// Applies `writes` to the JSON file at `path` as one atomic, minimal edit (see
    /// `JSONDocument.applying` and `AtomicFile.modify`), without a store.
    ///
    /// The writes are applied to the file's content at the moment of writing; when another
    /// process changes the file meanwhile, they are applied again to its new content, server
    /// values included.
    /// - Parameters:
    ///   - basedOn: a parse of the content the caller last saw, reused when the file still
    ///     has exactly those bytes.
    ///   - serverTime: the clock for `{".sv": "timestamp"}`, in milliseconds since 1970.
    /// - Throws: `WriteError`; the file is untouched.
    @discardableResult
    public static func write(
        _ writes: [JSONWrite], toFile path: String, options: AtomicFile.Options = .init(),
        basedOn hint: JSONDocument? = nil,
        serverTime: () -> Int64 = { Int64(PushIDGenerator.systemMilliseconds()) }
    ) throws(WriteError) -> WriteResult {
        var last: JSONDocument?
        let outcome = try AtomicFile.modify(path, options: options) { snapshot throws(WriteError) in
            let document: JSONDocument
            if let hint, hint.bytes == snapshot.bytes {
                document = hint
            } else {
                do throws(JSONParseError) { document = try JSONDocument(parsing: snapshot.bytes) } catch { throw .invalidJSON(error) }
            }
            let edited: JSONDocument
            do throws(JSONEditError) { edited = try document.applying(writes, serverTime: serverTime()) } catch { throw .edit(error) }
            last = edited
            return edited === document ? nil : edited.bytes
        }
        let bytes = outcome.snapshot.bytes
        let document: JSONDocument
        if let last, last.bytes == bytes {
            document = last
        } else {
            // The file holds content other than our last edit (another writer's, put back).
            do throws(JSONParseError) { document = try JSONDocument(parsing: bytes) } catch { throw .invalidJSON(error) }
        }
        return WriteResult(document: document, identity: outcome.snapshot.identity, changed: outcome.replaced, attempts: outcome.attempts)
    }

    /// Applies `writes` to the store's file as one atomic, minimal edit, and makes the result
    /// the current revision at once: observers hear about it, as one revision, before this
    /// returns, with the same events as if another process had written it. (The file system's
    /// notice of the write later finds the same bytes and publishes nothing.)
    ///
    /// Blocks the calling thread (the store's) for the write, which includes `fsync`.
    /// - Throws: `WriteError`; the file and the store are untouched.
    @discardableResult
    public func write(_ writes: [JSONWrite]) throws(WriteError) -> WriteResult {
        let result = try FileStore.write(writes, toFile: absolutePath, basedOn: currentRevision?.document)
        if currentRevision?.document.bytes != result.document.bytes {
            commitWrittenRevision(document: result.document, identity: result.identity)
        }
        return result
    }

    /// Starts `writes` on the store's writer thread and returns at once; `done` is called on
    /// the loop thread, from `processPendingChanges()`, when the write has finished. Writes
    /// started one after another are done in that order.
    ///
    /// For a loop that must not wait (a UI's): the write may wait up to the lock timeout for
    /// another writer of the file, and `fsync`s. When it succeeds, the result is the current
    /// revision before `done` is called, unless the store has published a newer read since the
    /// write began (the file's next read then brings it, as another process's write would).
    public func startWrite(_ writes: [JSONWrite], done: @escaping (Result<WriteResult, WriteError>) -> Void) {
        let id = nextWriteID
        nextWriteID += 1
        pendingWrites[id] = PendingWrite(revision: currentRevision?.number, done: done)
        writer.start(id: id, writes, toFile: absolutePath, basedOn: currentRevision?.document)
    }

    /// Starts adding `value` under `path` with a new push id as its key (see `startWrite`).
    /// - Returns: the new key, at once.
    @discardableResult
    public func startPush(_ path: Path, _ value: JSON, done: @escaping (Result<WriteResult, WriteError>) -> Void) -> String {
        let key = FileStore.pushIDs.next()
        startWrite(JSONWrite.set(path.child(key), value), done: done)
        return key
    }

    /// A write started with `startWrite` has finished: its result becomes the current revision
    /// (if nothing newer was published meanwhile), then its caller hears of it.
    func finish(_ write: FinishedWrite) {
        guard let pending = pendingWrites.removeValue(forKey: write.id) else { return }
        if case .success(let result) = write.result, result.changed {
            if currentRevision?.number == pending.revision {
                if currentRevision?.document.bytes != result.document.bytes {
                    commitWrittenRevision(document: result.document, identity: result.identity)
                }
            } else {
                // A read published meanwhile may be older or newer than the write: read again.
                noteChange(complete: false)
            }
        }
        pending.done(write.result)
    }

    /// Replaces the value at `path` (null removes it).
    @discardableResult
    public func set(_ path: Path, _ value: JSON) throws(WriteError) -> WriteResult {
        try write(JSONWrite.set(path, value))
    }

    /// Replaces the value at each `path + relative path`, all in one write.
    @discardableResult
    public func update(_ path: Path, _ values: [(path: Path, value: JSON)]) throws(WriteError) -> WriteResult {
        try write(JSONWrite.update(path, values))
    }

    /// Adds `value` under `path` with a new push id as its key.
    /// - Returns: the new key.
    @discardableResult
    public func push(_ path: Path, _ value: JSON) throws(WriteError) -> String {
        let key = FileStore.pushIDs.next()
        try write(JSONWrite.set(path.child(key), value))
        return key
    }

    /// Removes the value at `path` (and any object left empty above it).
    @discardableResult
    public func remove(_ path: Path) throws(WriteError) -> WriteResult {
        try write(JSONWrite.remove(path))
    }
}

/// A write started with `startWrite` and not yet finished.
struct PendingWrite {
    /// The revision current when it started.
    let revision: Int?
    let done: (Result<WriteResult, WriteError>) -> Void
}

extension StoreReference {
    /// Replaces the value at this location (null removes it).
    @discardableResult
    public func set(_ value: JSON) throws(WriteError) -> WriteResult { try store.set(path, value) }

    /// Replaces the value at each relative path below this location, all in one write.
    @discardableResult
    public func update(_ values: [(path: Path, value: JSON)]) throws(WriteError) -> WriteResult {
        try store.update(path, values)
    }

    /// Adds `value` under this location with a new push id as its key.
    /// - Returns: a reference to the new child.
    @discardableResult
    public func push(_ value: JSON) throws(WriteError) -> StoreReference {
        child(try store.push(path, value))
    }

    /// Removes this location.
    @discardableResult
    public func remove() throws(WriteError) -> WriteResult { try store.remove(path) }
}
