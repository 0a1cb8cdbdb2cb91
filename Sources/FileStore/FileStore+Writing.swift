// Writing to the JSON file: set, update, push and remove, as atomic, minimal edits that the
// store's own listeners see at once.
import JSONTree
import LiveQuery
import StoreInterface

extension JSONEdit: FileContent {}

extension FileStore {
    /// Push ids for every store of the process (one generator, so ids stay in creation order).
    static var pushIDs: PushIDGenerator { .shared }

    @available(*, deprecated, message: "use document.pushKey(under:)")
    public static func pushKey(under parent: Path, in document: JSONDocument) -> String { document.pushKey(under: parent) }

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
        try write(toFile: path, options: options, basedOn: hint, serverTime: serverTime) { _ throws(WriteError) in writes }
    }

    /// Applies the writes that `derive` chooses for the file's content at the moment of writing,
    /// as one atomic, minimal edit: a compare-and-swap whose writes depend on what they replace
    /// (a conditional write, a push onto an array at its next index).
    ///
    /// `derive` may be called several times, each time with newer content when another process
    /// changed the file meanwhile; it returns no writes to leave the file as it is.
    /// - Throws: `WriteError`, or what `derive` throws; the file is untouched.
    @discardableResult
    public static func write(
        toFile path: String, options: AtomicFile.Options = .init(), basedOn hint: JSONDocument? = nil,
        serverTime: () -> Int64 = { Int64(PushIDGenerator.systemMilliseconds()) },
        deriving derive: (JSONDocument) throws(WriteError) -> [JSONWrite]
    ) throws(WriteError) -> WriteResult {
        var last: JSONDocument?
        let outcome = try AtomicFile.modify(path, options: options) { snapshot throws(WriteError) -> JSONEdit? in
            let document = try parse(snapshot, hint: hint)
            last = document
            guard let edit = try edit(document, derive(document), serverTime: serverTime) else { return nil }
            // Parsed before the file is replaced: bytes that would not parse (an editor bug)
            // are never written.
            do throws(JSONEditError) { last = try edit.editedDocument() } catch { throw .edit(error) }
            return edit
        }
        // The last call of `transform` parsed what the file holds now (kept or written).
        return WriteResult(document: last!, identity: outcome.identity, changed: outcome.written != nil, attempts: outcome.attempts)
    }

    /// Applies `writes` to the JSON file at `path` as `write(_:toFile:…)` does, without parsing
    /// the file's new content (for a command that writes a file it does not read after).
    /// - Returns: whether the file was replaced, and after how many attempts.
    /// - Throws: `WriteError`; the file is untouched.
    @discardableResult
    public static func writeUnread(
        _ writes: [JSONWrite], toFile path: String, options: AtomicFile.Options = .init(),
        serverTime: () -> Int64 = { Int64(PushIDGenerator.systemMilliseconds()) }
    ) throws(WriteError) -> (changed: Bool, attempts: Int) {
        let outcome = try writeUnreadOutcome(writes, toFile: path, options: options, serverTime: serverTime)
        return (outcome.written != nil, outcome.attempts)
    }

    /// `writeUnread(_:toFile:…)`, and all it did. One number, string or boolean set, and one
    /// removal (null set), are foreseen: the new file is written on from the bytes found while
    /// the parse runs on.
    static func writeUnreadOutcome(
        _ writes: [JSONWrite], toFile path: String, options: AtomicFile.Options, serverTime: () -> Int64
    ) throws(WriteError) -> AtomicFile.ContentOutcome<JSONEdit> {
        var early = EarlyStart.copying
        if writes.count == 1 && !writes[0].path.keys.isEmpty {
            let value = writes[0].value
            if value == .null { early = .removal } else if value.isScalar { early = .value(value.serialized()) }
        }
        return try writeUnread(
            toFile: path, options: options, serverTime: serverTime, reading: commonAncestor(of: writes),
            early: early
        ) { _ throws(WriteError) in writes }
    }

    /// The deepest path that is `path` of every write or above it. (Keys compare by their
    /// bytes: `"é"` composed and decomposed are two keys, which `String ==` would call one.)
    private static func commonAncestor(of writes: [JSONWrite]) -> Path {
        guard var keys = writes.first?.path.keys else { return .root }
        for write in writes.dropFirst() {
            keys = Array(zip(keys, write.path.keys).prefix { $0.0.utf8.elementsEqual($0.1.utf8) }.map(\.0))
        }
        return keys.reduce(Path.root) { $0.child($1) }
    }

    /// Applies the writes that `derive` chooses for the file's content at the moment of writing,
    /// as `write(toFile:…deriving:)` does, without parsing the file's new content. The new file
    /// is written from the old file's bytes around the values spliced in, so the peak memory is
    /// the old file's bytes and their parse: no second copy of the file, no second parse.
    ///
    /// The edited bytes are not parsed again before they are written (`write(toFile:…)` does):
    /// the editor's splices are trusted here, as its property tests and fuzz target check them.
    ///
    /// With `reading`, the writes (and `derive`) read only that path and below it: the file is
    /// parsed as strictly as ever, but its tape keeps only the nodes on the way there and under
    /// it (`JSONDocument(parsing:keeping:)`), a fraction of a whole tape for one value of a
    /// large file.
    /// - Returns: whether the file was replaced, and after how many attempts.
    /// - Throws: `WriteError`, or what `derive` throws; the file is untouched.
    @discardableResult
    public static func writeUnread(
        toFile path: String, options: AtomicFile.Options = .init(),
        serverTime: () -> Int64 = { Int64(PushIDGenerator.systemMilliseconds()) }, reading kept: Path? = nil,
        deriving derive: (JSONDocument) throws(WriteError) -> [JSONWrite]
    ) throws(WriteError) -> (changed: Bool, attempts: Int) {
        let outcome = try writeUnread(toFile: path, options: options, serverTime: serverTime, reading: kept, early: .copying, deriving: derive)
        return (outcome.written != nil, outcome.attempts)
    }

    /// How a write may start its new file before its parse has ended (`EarlyWrite`).
    enum EarlyStart {
        /// Not before the parse has ended.
        case none
        /// A write of a number, string or boolean (these bytes) at the path read, which
        /// `derive` returns alone: the new file is written once the parse finds the value it
        /// replaces.
        case value([UInt8])
        /// A removal of the path read, which `derive` returns alone: the new file is written
        /// once the parse finds the member after it.
        case removal
        /// The old bytes are copied as the parse passes them, until it reaches the path read;
        /// the edit goes on from there when it changes nothing before. Writes at or under the
        /// path (a value replaced, a child removed or added at the end of its parent) change
        /// nothing before it, unless a removal empties a container above it.
        case copying
    }

    /// `writeUnread(toFile:…deriving:)`, starting the new file early as `early` allows: its
    /// old bytes are copied while the parse checks the file (`EditInProgress`). The edit made
    /// once the parse has ended keeps that file only where it is the same; else it is dropped
    /// and the edit written after (a duplicate key may have moved the value, an equal value
    /// changes nothing, a missing parent is made higher up).
    static func writeUnread(
        toFile path: String, options: AtomicFile.Options, serverTime: () -> Int64, reading kept: Path?,
        early start: EarlyStart, deriving derive: (JSONDocument) throws(WriteError) -> [JSONWrite]
    ) throws(WriteError) -> AtomicFile.ContentOutcome<JSONEdit> {
        // Nothing is kept of the file's content after: a large file is mapped, not copied.
        var options = options
        if options.mappingThreshold == nil { options.mappingThreshold = 4 << 20 }
        return try AtomicFile.modify(path, options: options) { snapshot, early throws(WriteError) -> JSONEdit? in
            guard let kept else {
                let document = try parse(snapshot, hint: nil)
                return try edit(document, derive(document), serverTime: serverTime)
            }
            let copy: EditInProgress?
            switch start {
            case .none: copy = nil
            case .value(let bytes): copy = EditInProgress(base: snapshot.bytes, foreseeing: .value(bytes))
            case .removal: copy = EditInProgress(base: snapshot.bytes, foreseeing: .removal)
            case .copying: copy = EditInProgress(base: snapshot.bytes, foreseeing: nil)
            }
            if let copy { early.start(copy) }
            do throws(WriteError) {
                let document: JSONDocument
                do throws(JSONParseError) { document = try JSONDocument(parsing: snapshot.bytes, keeping: kept, watch: copy?.watch) } catch {
                    throw .invalidJSON(error)
                }
                let made = try edit(document, derive(document), serverTime: serverTime)
                if let copy {
                    let same: Bool
                    if let made, let found = copy.found, let bytes = copy.bytes {
                        same = made.isOnly(replacing: found, with: bytes)
                    } else {
                        same = made.map { copy.finish(with: $0) } ?? false
                    }
                    if !same {
                        copy.abandon()
                        early.cancel()
                    }
                }
                return made
            } catch {
                copy?.abandon()
                throw error
            }
        }
    }

    /// The document of `snapshot`: `hint` when it has exactly those bytes.
    private static func parse(_ snapshot: FileSnapshot, hint: JSONDocument?) throws(WriteError) -> JSONDocument {
        if let hint, hint.bytes == snapshot.bytes { return hint }
        do throws(JSONParseError) { return try JSONDocument(parsing: snapshot.bytes) } catch { throw .invalidJSON(error) }
    }

    /// `writes` applied to `document` as splices of its bytes; nil when they change nothing.
    private static func edit(_ document: JSONDocument, _ writes: [JSONWrite], serverTime: () -> Int64) throws(WriteError) -> JSONEdit? {
        if writes.isEmpty { return nil }
        do throws(JSONEditError) { return try document.edit(writes, serverTime: serverTime()) } catch { throw .edit(error) }
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
        try write { _ throws(WriteError) in writes }
    }

    /// Applies the writes `derive` chooses for the file's content at the moment of writing (see
    /// the static `write(toFile:deriving:)`), and makes the result the current revision at once,
    /// as `write(_:)` does. A JSON Lines file (or standard input) is only appended to (`push`).
    /// - Throws: `WriteError`, or what `derive` throws; the file and the store are untouched.
    @discardableResult
    public func write(deriving derive: (JSONDocument) throws(WriteError) -> [JSONWrite]) throws(WriteError) -> WriteResult {
        if options.format == .jsonLines || isStream { throw FileStore.appendOnlyError(path) }
        let result = try FileStore.write(toFile: absolutePath, basedOn: currentRevision?.document, deriving: derive)
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
    /// A JSON Lines file or a stream is never rewritten: `done` hears `.appendOnly` at once.
    public func startWrite(_ writes: [JSONWrite], done: @escaping (Result<WriteResult, WriteError>) -> Void) {
        let path = absolutePath
        let hint = currentRevision?.document
        startWatchedWrite({ () throws(WriteError) in
            // Nothing watched: only the result is passed on.
            let result = try FileStore.write(writes, toFile: path, basedOn: hint)
            return WatchedWrite(before: nil, after: nil, applied: true, result: result)
        }, done: { done($0.map(\.result)) })
    }

    /// Runs `write` on the writer thread; `done` hears of it on the loop thread (see `startWrite`).
    func startWatchedWrite(_ write: @escaping @Sendable () throws(WriteError) -> WatchedWrite,
                           done: @escaping (Result<WatchedWrite, WriteError>) -> Void) {
        if isAppendOnly { return done(.failure(FileStore.appendOnlyError(path))) }
        let id = nextWriteID
        nextWriteID += 1
        pendingWrites[id] = PendingWrite(revision: currentRevision?.number, done: done)
        writer.start(id: id, write)
    }

    /// Starts adding `value` under `path` with a new push id as its key (see `startWrite`).
    /// - Returns: the new key, at once.
    @discardableResult
    public func startPush(_ path: Path, _ value: JSON, done: @escaping (Result<WriteResult, WriteError>) -> Void) -> String {
        let key = FileStore.pushIDs.next()
        startWrite(JSONWrite.set(path.child(key), value), done: done)
        return key
    }

    /// Whether a write started with `startWrite` has not yet been handed back to its caller.
    public var hasWritesInProgress: Bool { !pendingWrites.isEmpty }

    /// A write started with `startWrite` has finished: its result becomes the current revision
    /// (if nothing newer was published meanwhile), then its caller hears of it.
    func finish(_ write: FinishedWrite) {
        // Still in progress while its revision is published: observers can tell it is this store's own.
        guard let pending = pendingWrites[write.id] else { return }
        if case .success(let watched) = write.result, watched.result.changed {
            let result = watched.result
            if currentRevision?.number == pending.revision {
                if currentRevision?.document.bytes != result.document.bytes {
                    commitWrittenRevision(document: result.document, identity: result.identity)
                }
            } else {
                // A read published meanwhile may be older or newer than the write: read again.
                noteChange(complete: false)
            }
        }
        pendingWrites[write.id] = nil
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

    /// Adds `value` under `path` as a new child: at the next index when `path` holds an array
    /// (which stays an array), else with a new push id as its key; in a JSON Lines file, appends
    /// it as the last line (`path` must be the root), whose index is its key.
    /// - Returns: the new key.
    @discardableResult
    public func push(_ path: Path, _ value: JSON) throws(WriteError) -> String {
        if options.format == .jsonLines || isStream { return String(try appendLine(path, value)) }
        var key = ""
        try write { document throws(WriteError) in
            key = document.pushKey(under: path)
            return JSONWrite.set(path.child(key), value)
        }
        return key
    }

    /// Adds `value` under `path` at once, as `push(_:_:)` does: a log's next line.
    public func append(_ value: JSON, under path: Path) throws(WriteError) -> String { try push(path, value) }

    /// Adds `value` under `parent` in the file at `path` as `push(_:_:)` does, without a store.
    /// - Returns: the new key.
    @discardableResult
    public static func push(
        _ value: JSON, under parent: Path, toFile path: String, options: AtomicFile.Options = .init()
    ) throws(WriteError) -> String {
        var key = ""
        // The parse keeps the parent's members, each one node: all a push reads (an array's
        // length, the layout) and not the whole of a large parent. The child it keeps is one
        // that cannot be there, a new push id: under an object, the key the push adds.
        let id = pushIDs.next()
        // The new child goes at the end of its parent: the new file is copied as the parse runs.
        _ = try writeUnread(
            toFile: path, options: options, serverTime: { Int64(PushIDGenerator.systemMilliseconds()) },
            reading: parent.child(id), early: .copying
        ) { document throws(WriteError) in
            let isArray = document.root.node(at: parent)?.kind == .array
            key = isArray ? document.pushKey(under: parent) : id
            return JSONWrite.set(parent.child(key), value)
        }
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
    let done: (Result<WatchedWrite, WriteError>) -> Void
}

extension StoreReference {
    /// Replaces the value at this location (null removes it).
    @discardableResult
    public func set(_ value: JSON) throws(WriteError) -> WriteResult { try writeAndWait(JSONWrite.set(path, value)) }

    /// Replaces the value at each relative path below this location, all in one write.
    @discardableResult
    public func update(_ values: [(path: Path, value: JSON)]) throws(WriteError) -> WriteResult {
        try writeAndWait(JSONWrite.update(path, values))
    }

    /// Adds `value` under this location as a new child (see `FileStore.push(_:_:)`).
    /// - Returns: a reference to the new child.
    @discardableResult
    public func push(_ value: JSON) throws(WriteError) -> StoreReference {
        if let file = store as? FileStore { return child(try file.push(path, value)) }
        let key = FileStore.newPushID()
        try writeAndWait(JSONWrite.set(path.child(key), value))
        return child(key)
    }

    /// Removes this location.
    @discardableResult
    public func remove() throws(WriteError) -> WriteResult { try writeAndWait(JSONWrite.remove(path)) }

    /// Writes and returns once the write is the current revision: a file store writes on this
    /// thread; another store's loop runs here until its write is done.
    @discardableResult
    private func writeAndWait(_ writes: [JSONWrite]) throws(WriteError) -> WriteResult {
        if let file = store as? FileStore { return try file.write(writes) }
        var outcome: Result<WatchedWrite, WriteError>?
        store.startWrite(writes, watching: path, ifStill: nil) { outcome = $0 }
        try? store.run { outcome != nil }
        return try outcome!.get().result
    }
}
