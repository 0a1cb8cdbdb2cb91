// Turning revisions into query events: one window per group, one change per revision.
import JSONTree
import LiveQuery

extension FileStore {
    /// Adds a query observer and gives it the current window as a change from nothing.
    func register(_ callback: QueryObserver.Callback, path: Path, query: Query, owner: UInt64) -> ObserverHandle {
        let handle = observers.newHandle()
        let index = observers.groupIndex(path: path, query: query)
        observers.groups[index].observers.append(QueryObserver(handle: handle, owner: owner, callback: callback))
        var window = observers.groups[index].window
        if window == nil, let currentRevision {
            window = Window(query: query, path: path, document: currentRevision.document)
            observers.groups[index].window = window
            observers.groups[index].version += 1
        }
        if let window {
            let observer = observers.groups[index].observers.last!
            deliver(WindowChange.initial(window), to: [observer])
        }
        return handle
    }

    /// The groups' queries and windows, for the worker to compute their next changes.
    var listenerSnapshots: [ListenerSnapshot] { observers.groups.map(\.snapshot) }

    /// Advances every group's window to `revision` and delivers the events.
    /// - Parameter precomputed: changes the worker computed; used when they start from the
    ///   group's current window, else the change is computed here.
    func deliverQueryEvents(_ revision: Revision, precomputed: [PrecomputedChange]) {
        for id in observers.groups.map(\.id) {
            // Observers may remove groups (or add them) while earlier groups are delivered.
            guard let i = observers.groupIndex(id: id) else { continue }
            let group = observers.groups[i]
            let change: WindowChange
            if let ready = precomputed.first(where: { $0.group == id && $0.version == group.version }) {
                change = ready.change
            } else {
                change = group.snapshot.change(to: revision.document)
            }
            observers.groups[i].window = change.new
            observers.groups[i].version += 1
            if change.isEmpty { continue }
            deliver(change, to: group.observers)
        }
    }

    /// Calls each observer for each event of `change` that it listens to: child events in order,
    /// then value, then whole-change observers.
    private func deliver(_ change: WindowChange, to list: [QueryObserver]) {
        for event in change.childEvents {
            for observer in list {
                guard case .event(.child(event.kind), let handler) = observer.callback,
                    observers.live.contains(observer.handle)
                else { continue }
                handler(.child(event))
            }
        }
        for observer in list {
            guard case .event(.value, let handler) = observer.callback, observers.live.contains(observer.handle) else {
                continue
            }
            handler(.value(change.new))
        }
        for observer in list {
            guard case .changes(let handler) = observer.callback, observers.live.contains(observer.handle) else { continue }
            handler(change)
        }
    }
}
