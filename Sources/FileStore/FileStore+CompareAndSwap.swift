// A write that reports the value it replaced, and one that happens only when a value is still
// what the caller expects (compare-and-swap): the viewer's undo.
import JSONTree
import LiveQuery
import StoreInterface

extension FileStore {
    /// A new push id (the generator every write of the process shares, so ids sort in creation order).
    public static func newPushID() -> String { pushIDs.next() }

    /// Applies `writes` as `write(_:)` does, reading the value at `path` before and after in
    /// the same atomic step. With `expected`, the writes happen only while the value at `path`
    /// is still `expected` (`.some(nil)`: missing), compared as JSON values; otherwise nothing is
    /// written and `after` is the value found.
    /// - Throws: `WriteError`; the file and the store are untouched.
    public func write(_ writes: [JSONWrite], watching path: Path, ifStill expected: JSON?? = nil) throws(WriteError) -> WatchedWrite {
        let done = try FileStore.write(writes, toFile: absolutePath, basedOn: currentRevision?.document,
                                       watching: path, ifStill: expected)
        if currentRevision?.document.bytes != done.result.document.bytes {
            commitWrittenRevision(document: done.result.document, identity: done.result.identity)
        }
        return done
    }

    /// Starts the watched write of `write(_:watching:ifStill:)` on the store's writer thread
    /// (shared with `startWrite`, so writes stay in the order started) and returns at once;
    /// `done` is called on the loop thread, from `processPendingChanges()`, once it has finished,
    /// after its result became the current revision (as with `startWrite`).
    public func startWrite(_ writes: [JSONWrite], watching path: Path, ifStill expected: JSON?? = nil,
                           done: @escaping (Result<WatchedWrite, WriteError>) -> Void) {
        let file = absolutePath
        let hint = currentRevision?.document
        startWatchedWrite({ () throws(WriteError) in
            try FileStore.write(writes, toFile: file, basedOn: hint, watching: path, ifStill: expected)
        }, done: done)
    }

    /// The watched write on the file at `file`, without a store: the compare-and-swap writer of
    /// `write(toFile:deriving:)`, with the value at `path` read in the same atomic step.
    static func write(_ writes: [JSONWrite], toFile file: String, basedOn hint: JSONDocument?,
                      watching path: Path, ifStill expected: JSON??) throws(WriteError) -> WatchedWrite {
        var before: JSON?
        var applied = true
        let result = try FileStore.write(toFile: file, basedOn: hint) { document in
            before = document.watchedValue(at: path)
            applied = expected.map { before == $0 } ?? true
            return applied ? writes : []
        }
        let after = applied ? result.document.watchedValue(at: path) : before
        return WatchedWrite(before: before, after: after, applied: applied, result: result)
    }
}

