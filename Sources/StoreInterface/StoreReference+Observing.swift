// Observing a reference: per-event handlers, value handlers, and per-revision batches.
import LiveQuery

extension StoreReference {
    /// Calls `handler` for each event of `type`, on the loop thread: first for the current
    /// window (a new listener gets `childAdded` for every row, then `value`), then for every
    /// revision that changes the window, with the revision's events in the design's order.
    @discardableResult
    public func observe<Payload>(_ type: EventType<Payload>, _ handler: @escaping (Payload) -> Void) -> ObserverHandle {
        register(.event(type.kind) { event in
            if let payload = type.payload(event) { handler(payload) }
        })
    }

    /// Calls `handler` once per revision that changes the window, with the whole change: old
    /// and new window, the events in order, and the same change as a `BatchDiff`. The first call
    /// is the current window as a change from nothing (every row inserted).
    @discardableResult
    public func observeChanges(_ handler: @escaping (WindowChange) -> Void) -> ObserverHandle {
        register(.changes(handler))
    }

    /// The same, from `known`: this query's window over the current revision, which the caller
    /// has just read (a chart of a million children). The store starts from it rather than
    /// evaluating the same window again off the loop thread, and the first call is the next
    /// revision's change (the caller has the window); nil, or a window of another revision, is
    /// as `observeChanges(_:)`.
    @discardableResult
    public func observeChanges(startingFrom known: Window?, _ handler: @escaping (WindowChange) -> Void) -> ObserverHandle {
        register(.changes(handler), known: known)
    }

    /// Removes `handle` if this reference registered it; returns whether it did.
    @discardableResult
    public func removeObserver(_ handle: ObserverHandle) -> Bool {
        defer { store.hub.dropUnwantedEvaluations() }
        return store.hub.observers.remove(handle, owner: owner)
    }

    /// Removes every observer registered through this reference (or a copy of it), and no other.
    public func removeAllObservers() {
        store.hub.observers.removeAll(owner: owner)
        store.hub.dropUnwantedEvaluations()
    }

    private func register(_ callback: QueryObserver.Callback, known: Window? = nil) -> ObserverHandle {
        store.hub.register(callback, path: path, query: query, owner: owner, known: known)
    }
}
