// The store's observers: of revisions, of status, and (in FileStore+Listening) of queries.
import JSONTree

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

    mutating func newHandle() -> ObserverHandle {
        lastID += 1
        let handle = ObserverHandle(id: lastID)
        live.insert(handle)
        return handle
    }

    /// Forgets `handle`; returns whether it was registered.
    @discardableResult
    mutating func remove(_ handle: ObserverHandle) -> Bool {
        guard live.remove(handle) != nil else { return false }
        revisionObservers.removeAll { $0.handle == handle }
        statusObservers.removeAll { $0.handle == handle }
        return true
    }
}

extension FileStore {
    /// Calls `handler` with every new revision, on the loop thread — first with the current
    /// revision, if there is one. For whole-file consumers; most code observes a query instead.
    @discardableResult
    public func observeRevisions(_ handler: @escaping (Revision) -> Void) -> ObserverHandle {
        let handle = observers.newHandle()
        observers.revisionObservers.append((handle, handler))
        if let currentRevision { handler(currentRevision) }
        return handle
    }

    /// Calls `handler` whenever the status changes (new revision, problem found or cleared,
    /// watch mode), on the loop thread — first with the current status.
    @discardableResult
    public func observeStatus(_ handler: @escaping (StoreStatus) -> Void) -> ObserverHandle {
        let handle = observers.newHandle()
        observers.statusObservers.append((handle, handler))
        handler(status)
        return handle
    }

    /// Removes one observer registered with this store (of any kind).
    public func removeObserver(_ handle: ObserverHandle) {
        observers.remove(handle)
    }

    func deliver(_ revision: Revision, previous: Revision?) {
        for entry in observers.revisionObservers where observers.live.contains(entry.handle) {
            entry.handler(revision)
        }
    }

    func deliver(_ status: StoreStatus) {
        for entry in observers.statusObservers where observers.live.contains(entry.handle) {
            entry.handler(status)
        }
    }
}
