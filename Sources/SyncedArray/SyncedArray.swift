// The synced array: a query's window on a live store, kept as an array with index-precise updates.
import StoreInterface
import JSONTree
import LiveQuery

/// A query's window on a live store (a `FileStore` or a `RemoteStore`), kept as an array that
/// tells a list view exactly which rows to insert, delete, move and reload — FirebaseUI's
/// `FUIArray` / `FUIBatchedArray`, made exact.
///
/// Bind it to a table in a few lines:
///
/// ```swift
/// let store = try FileStore(path: "players.json")
/// let players = SyncedArray(
///     try store.reference(Path("/players")).orderByChild(Path("score")),
///     paging: Paging(pageSize: 50, from: .end),          // the top 50 scores; loadMore() adds 50
///     cache: FirstPageCache.standard())                   // last run's first page, shown at once
/// players.batchDelegate = table                           // one BatchDiff per revision
/// players.onCacheWarning = { status.show($0.description) }
/// players.startSync()                                     // cached rows now, real rows as one batch
///
/// // The table's data source reads the array:
/// //   players.count, players[i].key, players[i].value (a JSONNode), players.index(ofKey: k)
/// // The table's batch update, in `syncedArray(_:didApply:)`:
/// //   table.performBatch(deleting: batch.deletes, inserting: batch.inserts,
/// //                      moving: batch.moves, reloading: batch.reloads)
///
/// // Keys the viewer handles:
/// players.replaceQuery(try Query().orderByChild(Path("name")))   // rows animate to new places
/// if players.hasMore && selectedRow >= players.count - 5 { players.loadMore() }
///
/// // The store's loop delivers revisions (or `store.run(until:)`):
/// store.processPendingChanges()
/// ```
///
/// The array belongs to the thread that runs the store's loop; delegates are called there,
/// inside `processPendingChanges()`, `startSync()`, `replaceQuery(_:)` and `loadMore()`.
/// Keys are identified by their code units (`JSONKey`), never by `String ==`.
///
/// Two delegate styles, both exact on every update (a revision, a query replacement, the cache
/// replaced by real rows): `eventDelegate` (single-row steps with sequential indexes, wrapped in
/// will/did update) and `batchDelegate` (one `BatchDiff` in old/new coordinates). Updates that
/// leave the rows as they were are not reported.
public final class SyncedArray {
    /// The store observed.
    public let store: any LiveStore
    /// The location whose children the query orders.
    public let location: Path
    /// The query as given (a paged array replaces its limit); see `observedQuery`.
    public internal(set) var query: Query
    /// The array's paging, or nil to show the query's whole window.
    public internal(set) var paging: Paging?
    /// Pages shown (with paging).
    public internal(set) var pages = 1
    /// Where the first page is cached between runs; nil for no cache.
    public let cache: FirstPageCache?

    public weak var eventDelegate: SyncedArrayEventDelegate?
    public weak var batchDelegate: SyncedArrayBatchDelegate?
    /// Called when the first-page cache cannot be used or written (missing, stale, corrupt…);
    /// the array goes on without it.
    public var onCacheWarning: ((CacheWarning) -> Void)?

    /// The rows, in query order.
    public internal(set) var rows: [SyncedRow] = []
    /// Row index by key, kept in sync with `rows`.
    var indexOfKey: [JSONKey: Int] = [:]

    /// Whether more rows exist beyond those shown (paged arrays; false without paging or data).
    public internal(set) var hasMore = false
    /// Whether the rows come from the first-page cache, the store's first revision not yet applied.
    public internal(set) var isShowingCache = false
    /// Whether the array is observing its store.
    public var isSyncing: Bool { observation != nil }
    /// Whether the store has a revision but the current query's rows have not arrived yet:
    /// after `replaceQuery` or `loadMore` over a large location, while the store's worker
    /// evaluates the new window. The rows meanwhile are the previous query's.
    public var isAwaitingRows: Bool { observation != nil && awaitingFirstChange && store.currentRevision != nil }
    /// The last window of the observed query applied (nil before data, or while showing the cache).
    public internal(set) var window: Window?
    /// The most recent cache problem, if any.
    public internal(set) var lastCacheWarning: CacheWarning?
    /// The rows' changes, revision by revision, when kept (set before `startSync()`).
    public var history: RevisionHistory?
    /// Counts and time of the array's work, for tests and benchmarks.
    public internal(set) var statistics = Statistics()

    /// The store observer: the reference registered through (it owns the handle) and the handle.
    var observation: (reference: StoreReference, handle: ObserverHandle?)?
    /// The next change from the store starts from a window these rows are not (a new observer).
    var awaitingFirstChange = true
    /// The cache is written once real rows of the current query have arrived.
    var cacheNeedsWrite = false
    /// What was last written to the cache (a page of one revision is not written twice).
    var lastCacheWrite: CacheWrite?
    /// Above 0 while an update is applied or an observer registered: query changes and sync
    /// calls made then (from a delegate) wait until it ends.
    var updateDepth = 0
    var deferredWhileUpdating: [() -> Void] = []
    /// Typed views kept in step with the rows (held weakly: a view holds its array).
    var mirrorReferences: [WeakMirror] = []
    var mirrors: [any RowMirror] { mirrorReferences.compactMap(\.mirror) }

    /// An array on `reference`'s location and query; call `startSync()` to fill it.
    /// - Parameters:
    ///   - paging: show the query's window a page at a time (its own limit is then replaced).
    ///   - cache: keep the first page between runs and show it while the file is first parsed.
    public init(_ reference: StoreReference, paging: Paging? = nil, cache: FirstPageCache? = nil) {
        store = reference.store
        location = reference.path
        query = reference.query
        self.paging = paging
        self.cache = cache
    }

    deinit {
        if let observation, let handle = observation.handle { observation.reference.removeObserver(handle) }
    }

    // MARK: Reading

    /// The row whose key has exactly these code units, or nil.
    /// - Complexity: O(1) expected.
    public func index(ofKey key: String) -> Int? { indexOfKey[JSONKey(key)] }

    /// Every row's key, in order.
    public var keys: [String] { rows.map(\.key) }

    /// The query actually observed: with paging, the query's range limited to the rows shown
    /// plus one.
    public var observedQuery: Query {
        guard let paging else { return query }
        let n = paging.rowCount(pages: pages) + 1
        let unlimited = query.withoutLimit
        let limited = paging.edge == .start ? try? unlimited.limitToFirst(n) : try? unlimited.limitToLast(n)
        return limited ?? unlimited
    }

    // MARK: Syncing

    /// Starts observing the store: the current window arrives at once when the store has a
    /// revision; otherwise the cached first page (if any) is shown at once, and the real rows
    /// replace it as one batch when the first revision arrives. Does nothing when syncing.
    public func startSync() {
        guard observation == nil else { return }
        if isUpdating { return deferredWhileUpdating.append { [weak self] in self?.startSync() } }
        if cache != nil && store.currentRevision == nil && rows.isEmpty { showCachedPage() }
        cacheNeedsWrite = cache != nil
        observe()
    }

    /// Stops observing (removing only this array's observer) and writes the cache. The rows
    /// stay; a later `startSync()` reports what changed meanwhile as one batch.
    public func stopSync() {
        if isUpdating { return deferredWhileUpdating.append { [weak self] in self?.stopSync() } }
        guard observation != nil else { return }
        unobserve()
        writeCache()
    }

    /// Registers the observer for `observedQuery`; the store may deliver the current window
    /// before this returns.
    func observe() {
        let reference = store.reference(location).withQuery(observedQuery)
        observation = (reference, nil)
        awaitingFirstChange = true
        whileUpdating {
            let handle = reference.observeChanges { [weak self] change in self?.apply(change) }
            observation?.handle = handle
        }
    }

    func unobserve() {
        if let observation, let handle = observation.handle { observation.reference.removeObserver(handle) }
        observation = nil
    }
}

extension SyncedArray: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { rows.count }
    public subscript(i: Int) -> SyncedRow { rows[i] }
}

extension SyncedArray {
    /// What the array has done so far.
    public struct Statistics: Sendable, Equatable {
        /// Updates reported to delegates.
        public var updates = 0
        /// Store changes applied with the store's own batch (rows were the change's old window),
        /// cut to the rows shown when paged.
        public var storeBatches = 0
        /// Updates whose batch the array computed by matching keys and comparing values (a first
        /// change, a replaced query, a page more, the cache).
        public var keyedBatches = 0
        /// Time spent applying changes (computing rows and batches, not in delegates), nanoseconds.
        public var applyNanoseconds: UInt64 = 0
    }
}
