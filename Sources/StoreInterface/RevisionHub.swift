// What every live store shares: the current revision, the status, and the observers told of both.
import JSONTree
import LiveQuery

/// The part of a live store that its readers see: the current revision, the status, and every
/// observer (of revisions, of the status, of queries), told on the loop thread.
///
/// A store (a `FileStore`, or a store of a database over the network) finds new states its own
/// way and hands each one to `publish`; the hub turns it into a revision and into each query's
/// events. It belongs to its store's loop thread.
public final class RevisionHub {
    /// The latest state; nil until the first one.
    public package(set) var currentRevision: Revision?
    /// The current revision's number and what is wrong, if anything.
    public package(set) var status: StoreStatus
    var observers = ObserverRegistry()
    /// The queries listened to (listeners of the same query share one).
    package var listenedQueryCount: Int { observers.groups.count }
    /// Evaluates first windows over many children off the loop thread.
    let worker: WindowWorker
    /// A query observer added over at most this many children gets its first window at once.
    let inlineEvaluationLimit: Int
    private var deliveredStatus: StoreStatus?

    package init(status: StoreStatus, worker: WindowWorker, inlineEvaluationLimit: Int) {
        self.status = status
        self.worker = worker
        self.inlineEvaluationLimit = inlineEvaluationLimit
    }

    /// A hub whose first windows are evaluated on a worker of its own, which signals `wake`.
    package convenience init(status: StoreStatus, wake: WakeSignal, inlineEvaluationLimit: Int = 50_000) {
        self.init(status: status, worker: WindowWorker(wake: wake, label: "RevisionHub.windows"),
                  inlineEvaluationLimit: inlineEvaluationLimit)
    }

    /// Makes `document` the current revision and tells the observers.
    /// - Parameter precomputed: the query groups' changes, computed off the loop thread.
    /// - Parameter number: the revision's number, when the store numbers its own (a journal's
    ///   last revision, published without the ones before it); nil: one more than the last.
    package func publish(document: JSONDocument, identity: FileIdentity, time: Double? = nil, writer: String? = nil,
                         number: Int? = nil) {
        publish(document: document, identity: identity, precomputed: [], time: time, writer: writer, number: number)
    }

    /// - Parameters:
    ///   - time: when the state was made (see `Revision.time`); nil: now.
    ///   - writer: who wrote it, where the source says.
    package func publish(document: JSONDocument, identity: FileIdentity, precomputed: [PrecomputedChange],
                         time: Double? = nil, writer: String? = nil, number: Int? = nil) {
        let revision = Revision(
            number: number ?? (currentRevision?.number ?? 0) + 1, document: document, identity: identity,
            publishedAt: monotonicNanoseconds(), time: time, writer: writer)
        currentRevision = revision
        status.revision = revision.number
        status.problem = nil
        deliver(revision)
        deliverQueryEvents(revision, precomputed: precomputed)
    }

    /// Delivers the first windows the worker has evaluated (call when its wake signal fires).
    package func deliverEvaluatedWindows() {
        for evaluated in worker.takeEvaluatedWindows() { deliverFirstWindow(evaluated) }
    }

    /// Tells the status observers, when the status differs from what they were last told.
    package func deliverStatusIfChanged() {
        guard deliveredStatus != status else { return }
        deliveredStatus = status
        for entry in observers.statusObservers where observers.live.contains(entry.handle) {
            entry.handler(status)
        }
    }

    // MARK: Observers of revisions and status

    /// See `LiveStore.observeRevisions`.
    func observeRevisions(_ handler: @escaping (Revision) -> Void) -> ObserverHandle {
        let handle = observers.newHandle()
        observers.revisionObservers.append((handle, handler))
        if let currentRevision { handler(currentRevision) }
        return handle
    }

    /// See `LiveStore.observeStatus`.
    func observeStatus(_ handler: @escaping (StoreStatus) -> Void) -> ObserverHandle {
        let handle = observers.newHandle()
        observers.statusObservers.append((handle, handler))
        handler(status)
        return handle
    }

    func removeObserver(_ handle: ObserverHandle) {
        observers.remove(handle)
        dropUnwantedEvaluations()
    }

    private func deliver(_ revision: Revision) {
        for entry in observers.revisionObservers where observers.live.contains(entry.handle) {
            entry.handler(revision)
        }
    }
}
