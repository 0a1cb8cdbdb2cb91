// A log (a JSON Lines file, a pipe, a command's stream) seen through a key: one child per key.
import Expressions
import JSONTree
import LiveQuery
import StoreInterface

/// A `LiveStore` showing another store's log folded by a key (`KeyedFold`): each record is the
/// new value of the child with its key, instead of a new child per record. The status (a
/// problem, the log's counts, a command's last run) is the log's.
///
/// It runs on the log's loop thread: its `pollDescriptors` include the log's, and
/// `processPendingChanges()` lets the log process first. It is read-only.
public final class KeyedStore: ReadOnlyStore {
    public let hub: RevisionHub
    public let log: any LiveStore
    public var name: String { log.name }
    public var loadingMessage: String { log.loadingMessage }
    public var pollDescriptors: [Int32] { log.pollDescriptors + [wake.fd] }
    public var isRemote: Bool { log.isRemote }

    private let wake: WakeSignal
    private var fold: KeyedFold
    private let emptyFold: KeyedFold
    /// How often the log had started over when it was folded last.
    private var foldedRestarts = 0
    /// A growing log's newest revision not folded yet: its revisions are each a longer list of
    /// records, so only the last of a burst needs folding.
    private var unfolded: Revision?
    private var observation: ObserverHandle?

    /// - Parameter fold: the key and the deletion rule, with nothing folded yet.
    public init(log: any LiveStore, fold: KeyedFold) throws(FileStoreError) {
        self.log = log
        self.fold = fold
        emptyFold = fold
        wake = try WakeSignal()
        hub = RevisionHub(status: log.status, wake: wake)
        hub.status.revision = 0
        // The log's revision so far is folded now; the log is not asked to read on here, so that
        // what its reader sets first (a journal's `publishesEveryRevision`) holds from its first.
        // Other sources' revisions (a journal's, a command's runs) are each folded as they come:
        // a journal replayed for `history` publishes many in one call, one document at a time.
        observation = log.observeRevisions { [unowned self] revision in
            if log.status.lines != nil { unfolded = revision } else { foldRevision(revision) }
        }
        foldUnfolded()
    }

    deinit {
        if let observation { log.removeObserver(observation) }
    }

    public func processPendingChanges() {
        log.processPendingChanges()
        wake.drain()
        foldUnfolded()
        var status = log.status
        status.revision = hub.status.revision
        hub.status = status
        hub.deliverEvaluatedWindows()
        hub.deliverStatusIfChanged()
    }

    private func foldUnfolded() {
        guard let revision = unfolded else { return }
        unfolded = nil
        foldRevision(revision)
    }

    private func foldRevision(_ revision: Revision) {
        // A log that started over (truncated, replaced), or a revision that is not an append
        // (each run of a command is a whole new output), is folded again from its first record.
        let restarts = log.status.lines?.restarts ?? 0
        if log.status.lines == nil || restarts != foldedRestarts || !isExtension(revision.document.root) {
            foldedRestarts = restarts
            fold = emptyFold
        }
        // Numbered as the source's revisions, except a growing log's (one for each that changed
        // the table, as before).
        if fold.fold(revision.document.root) || hub.currentRevision == nil {
            hub.publish(document: fold.document, identity: revision.identity, time: revision.time, writer: revision.writer,
                        number: log.status.lines == nil ? revision.number : nil)
        }
    }

    /// Whether `root` holds at least the records already folded (a log only grows).
    private func isExtension(_ root: JSONNode) -> Bool {
        root.isContainer && root.count >= fold.folded
    }

    public func readEveryRecord() { log.readEveryRecord() }
}
