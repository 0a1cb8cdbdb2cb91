// Turning revisions into query events: one window per group, one change per revision.
import JSONTree
import LiveQuery

extension RevisionHub {
    /// Adds a query observer and gives it the current window as a change from nothing: at once,
    /// or — over more than `inlineEvaluationLimit` children — once the worker has evaluated it.
    /// - Parameter known: the window of this query over the current revision, when the caller
    ///   has just read it: a new group starts from it instead of evaluating it again, and the
    ///   observer is not given it back (a first change of a million rows costs a million events).
    func register(_ callback: QueryObserver.Callback, path: Path, query: Query, owner: UInt64, known: Window? = nil) -> ObserverHandle {
        let handle = observers.newHandle()
        let index = observers.groupIndex(path: path, query: query)
        observers.groups[index].observers.append(QueryObserver(handle: handle, owner: owner, callback: callback))
        var window = observers.groups[index].window
        if window == nil, !observers.groups[index].evaluating, let known, let currentRevision,
           known.document === currentRevision.document, known.query == query, known.path == path {
            window = known
            observers.groups[index].window = known
            observers.groups[index].version += 1
        }
        if window == nil, let currentRevision {
            if observers.groups[index].evaluating { return handle }
            if hasMoreChildren(than: inlineEvaluationLimit, at: path, in: currentRevision.document) {
                observers.groups[index].evaluating = true
                worker.evaluate(group: observers.groups[index].id, query: query, path: path, revision: currentRevision)
                return handle
            }
            window = Window(query: query, path: path, document: currentRevision.document)
            observers.groups[index].window = window
            observers.groups[index].version += 1
        }
        // The caller has this window already only when `known` is it: the same revision, query and path.
        if let window, !(window.document === known?.document && known?.query == query && known?.path == path) {
            let observer = observers.groups[index].observers.last!
            deliver(WindowChange.initial(window), to: [observer])
        }
        return handle
    }

    /// Delivers a first window the worker evaluated, unless the group is gone or a newer
    /// revision has given it a window already (or is about to).
    func deliverFirstWindow(_ evaluated: EvaluatedWindow) {
        guard let i = observers.groupIndex(id: evaluated.group) else { return }
        observers.groups[i].evaluating = false
        guard observers.groups[i].window == nil, let currentRevision else { return }
        guard evaluated.revision == currentRevision.number else {
            // A newer revision without the group's window: evaluate again, for it.
            observers.groups[i].evaluating = true
            worker.evaluate(group: evaluated.group, query: observers.groups[i].query, path: observers.groups[i].path,
                            revision: currentRevision)
            return
        }
        observers.groups[i].window = evaluated.window
        observers.groups[i].version += 1
        deliver(WindowChange.initial(evaluated.window), to: observers.groups[i].observers)
    }

    /// Whether the node at `path` has more than `limit` children (counting stops there).
    private func hasMoreChildren(than limit: Int, at path: Path, in document: JSONDocument) -> Bool {
        guard let node = document.root.node(at: path) else { return false }
        var count = 0
        switch node.kind {
        case .object: for _ in node.members { count += 1; if count > limit { return true } }
        case .array: for _ in node.elements { count += 1; if count > limit { return true } }
        default: break
        }
        return false
    }

    /// Tells the worker which first-window evaluations are still wanted: after observers are
    /// removed (a group may be gone) or groups got their window from a revision.
    func dropUnwantedEvaluations() {
        worker.keepEvaluations(for: Set(observers.groups.filter(\.evaluating).map(\.id)))
    }

    /// Whether a first window is being evaluated on the worker (revisions published meanwhile do
    /// not reach its group: a source replaying many waits for it).
    package var isEvaluatingFirstWindows: Bool { observers.groups.contains { $0.evaluating } }

    /// The groups' queries and windows, for the worker to compute their next changes.
    package var listenerSnapshots: [ListenerSnapshot] { observers.groups.map(\.snapshot) }

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
            } else if group.window == nil && group.evaluating {
                // Its first window is being evaluated on the worker, and is evaluated again for
                // this revision when it arrives: no full evaluation on the loop thread.
                continue
            } else {
                change = group.snapshot.change(to: revision.document)
            }
            observers.groups[i].window = change.new
            observers.groups[i].version += 1
            if observers.groups[i].evaluating {
                // The revision brought its first window: the evaluation under way is not needed.
                observers.groups[i].evaluating = false
                dropUnwantedEvaluations()
            }
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
