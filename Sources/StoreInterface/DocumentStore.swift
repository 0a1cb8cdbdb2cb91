// A store whose document can be rewritten in one atomic step: what a server needs to take writes.
import JSONTree
import LiveQuery

/// A live store that applies writes to its current document as one atomic step, on its loop
/// thread: a JSON file (`FileStore`) or a document in memory (`MemoryStore`). A server takes
/// every kind of write through this; a store that is only appended to takes pushes (`append`).
public protocol DocumentStore: LiveStore {
    /// Applies the writes `derive` chooses for the current document, as one atomic step, and
    /// makes the result the current revision at once.
    /// - Throws: `WriteError`, or what `derive` throws; the store is untouched.
    @discardableResult
    func write(deriving derive: (JSONDocument) throws(WriteError) -> [JSONWrite]) throws(WriteError) -> WriteResult
}

extension JSONDocument {
    /// The key a push under `parent` adds: an array's next index (its length, so that the
    /// elements keep their indexes), else a new push id (`PushIDGenerator.shared`).
    public func pushKey(under parent: Path) -> String {
        if let node = root.node(at: parent), node.kind == .array { return String(node.count) }
        return PushIDGenerator.shared.next()
    }
}
