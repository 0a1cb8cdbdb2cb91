// A location in the store with a query: what listeners observe.
import JSONTree
import LiveQuery

/// A location in a live store (a `FileStore` or a remote one), with a query over its children —
/// the store's counterpart of
/// the Realtime Database's `DatabaseReference` and `DatabaseQuery`.
///
/// References are cheap values. The query builders return new references and throw
/// `QueryError` for an invalid combination. Observers registered through a reference (or a
/// copy of it) belong to it: `removeAllObservers()` removes those and no one else's.
///
/// ```swift
/// let store = try FileStore(path: "scores.json")
/// let top = try store.reference("/players").orderByChild("score").limitToLast(10)
/// top.observe(.childAdded) { event in print("+", event.key, "after", event.prevKey ?? "nothing") }
/// top.observe(.value) { window in print(window.count, "players") }
/// top.observeChanges { change in table.apply(change.batch) }   // one batch per revision
/// …
/// top.removeAllObservers()
/// ```
///
/// A reference holds its store strongly; an observer that captures its own reference keeps the
/// store alive until it is removed.
public struct StoreReference {
    public let store: any LiveStore
    /// The location whose children the query orders.
    public let path: Path
    public let query: Query
    /// Identifies this reference (and its copies) as the owner of the observers it registers.
    let owner: UInt64

    init(store: any LiveStore, path: Path, query: Query) {
        self.store = store
        self.path = path
        self.query = query
        owner = store.hub.observers.newOwner()
    }

    /// The child `key` of this location, with no query.
    public func child(_ key: String) -> StoreReference {
        StoreReference(store: store, path: path.child(key), query: Query())
    }

    /// This location with `query` instead of the current one.
    public func withQuery(_ query: Query) -> StoreReference {
        StoreReference(store: store, path: path, query: query)
    }

    /// The current window of the query (nil before the first revision).
    /// - Complexity: evaluates the query over the current revision.
    public var currentWindow: Window? {
        store.currentRevision.map { Window(query: query, path: path, document: $0.document) }
    }

    // MARK: Query builders (see `Query`)

    public func orderByKey() throws(QueryError) -> StoreReference { withQuery(try query.orderByKey()) }
    public func orderByValue() throws(QueryError) -> StoreReference { withQuery(try query.orderByValue()) }
    public func orderByPriority() throws(QueryError) -> StoreReference { withQuery(try query.orderByPriority()) }
    public func orderByChild(_ path: Path) throws(QueryError) -> StoreReference {
        withQuery(try query.orderByChild(path))
    }
    /// Orders by the value at `path` (`"metrics/views"`) inside each child.
    /// - Throws: `QueryError` also for a malformed path.
    public func orderByChild(_ path: String) throws(QueryError) -> StoreReference {
        let parsed: Path
        do { parsed = try Path(path) } catch { throw QueryError("orderByChild: \(error)") }
        return try orderByChild(parsed)
    }
    public func startAt(_ value: JSON, key: String? = nil) throws(QueryError) -> StoreReference {
        withQuery(try query.startAt(value, key: key))
    }
    public func startAfter(_ value: JSON, key: String? = nil) throws(QueryError) -> StoreReference {
        withQuery(try query.startAfter(value, key: key))
    }
    public func endAt(_ value: JSON, key: String? = nil) throws(QueryError) -> StoreReference {
        withQuery(try query.endAt(value, key: key))
    }
    public func endBefore(_ value: JSON, key: String? = nil) throws(QueryError) -> StoreReference {
        withQuery(try query.endBefore(value, key: key))
    }
    public func equalTo(_ value: JSON, key: String? = nil) throws(QueryError) -> StoreReference {
        withQuery(try query.equalTo(value, key: key))
    }
    public func limitToFirst(_ n: Int) throws(QueryError) -> StoreReference { withQuery(try query.limitToFirst(n)) }
    public func limitToLast(_ n: Int) throws(QueryError) -> StoreReference { withQuery(try query.limitToLast(n)) }
}
