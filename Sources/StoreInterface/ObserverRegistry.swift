// The store's observers: of revisions, of status, and of queries (grouped by path and query).
import JSONTree
import LiveQuery

/// Everything registered with one store, by handle.
///
/// Delivery copies a list before calling its handlers and checks `live` before each call, so a
/// handler may add or remove observers (its own or others') while being called.
struct ObserverRegistry {
    private var lastID: UInt64 = 0
    /// Handles not yet removed.
    private(set) var live: Set<ObserverHandle> = []
    var revisionObservers: [(handle: ObserverHandle, handler: (Revision) -> Void)] = []
    var statusObservers: [(handle: ObserverHandle, handler: (StoreStatus) -> Void)] = []
    /// Query observers, one group per distinct (path, query), in creation order.
    var groups: [ListenerGroup] = []
    private var lastGroupID = 0
    private var lastOwner: UInt64 = 0

    mutating func newHandle() -> ObserverHandle {
        lastID += 1
        let handle = ObserverHandle(id: lastID)
        live.insert(handle)
        return handle
    }

    /// A new owner token for a reference.
    mutating func newOwner() -> UInt64 {
        lastOwner += 1
        return lastOwner
    }

    /// The index of the group for (path, query), created when there is none.
    mutating func groupIndex(path: Path, query: Query) -> Int {
        if let i = groups.firstIndex(where: { $0.path == path && $0.query == query }) { return i }
        lastGroupID += 1
        groups.append(ListenerGroup(id: lastGroupID, path: path, query: query))
        return groups.count - 1
    }

    func groupIndex(id: Int) -> Int? { groups.firstIndex { $0.id == id } }

    /// Forgets `handle`, when `owner` is nil or registered it; returns whether it was removed.
    @discardableResult
    mutating func remove(_ handle: ObserverHandle, owner: UInt64? = nil) -> Bool {
        guard live.contains(handle) else { return false }
        if let owner {
            guard groups.contains(where: { $0.observers.contains { $0.handle == handle && $0.owner == owner } }) else {
                return false
            }
        }
        live.remove(handle)
        revisionObservers.removeAll { $0.handle == handle }
        statusObservers.removeAll { $0.handle == handle }
        for i in groups.indices { groups[i].observers.removeAll { $0.handle == handle } }
        // A group without observers keeps no window.
        groups.removeAll { $0.observers.isEmpty }
        return true
    }

    /// Forgets every query observer registered by `owner`.
    mutating func removeAll(owner: UInt64) {
        for group in groups {
            for observer in group.observers where observer.owner == owner { live.remove(observer.handle) }
        }
        for i in groups.indices { groups[i].observers.removeAll { $0.owner == owner } }
        groups.removeAll { $0.observers.isEmpty }
    }
}
