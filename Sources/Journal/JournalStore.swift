// A journal replayed as a live store: its last revision at once, the ones before it made when a
// time machine steps to them (or, for a reader that needs each one, every revision in turn), with
// their recorded times and writers.
import JSONTree
import LiveQuery
import StoreInterface

/// A `LiveStore` whose revisions are a journal's, read at `init` and numbered 1, 2, … as recorded.
/// When the store's loop first runs it publishes the last revision only; the earlier ones are an
/// archive (`RevisionArchive`) a time machine reads on request. A reader that needs each revision
/// in turn (a headless history, rates) sets `publishesEveryRevision` first. A journal is read-only.
public final class JournalStore: ReadOnlyStore, RevisionArchive {
    public let hub: RevisionHub
    public let name: String
    public var loadingMessage: String { "replaying \(name)…" }
    public var pollDescriptors: [Int32] { [wake.fd] }
    /// What was wrong at the journal's end (a line cut short), in words.
    public let warning: String?
    /// Whether every revision has been published (only the last, unless `publishesEveryRevision`).
    public private(set) var isReplayed = false
    /// Whether the revisions are published one after another (after the store's readers started
    /// listening, so that a synced array's history records each one) rather than the last alone.
    public var publishesEveryRevision = false

    /// Whether each reader of this store's revisions through another store (rates, a keyed fold
    /// over it) is busy evaluating a first window: the replay waits, as it does for its own hub's.
    private var readersBusy: [() -> Bool] = []

    private let wake: WakeSignal
    /// The recording as its first value and each revision's changes.
    private let revisions: JournalRevisions
    /// Revisions published so far, and the value of the last one.
    private var published = 0
    private var value: ReplayTree?

    /// Reads the journal at `path` (and `path.1` before it).
    /// - Parameters: since, until: seconds since 1970 that cut the recording (see `JournalRecording.forEachRevision`).
    /// - Throws: `JournalError` for a file that is not a journal (with its line and column), or
    ///   a change that does not apply (before anything shows).
    public init(path: String, since: Double? = nil, until: Double? = nil) throws(JournalError) {
        name = path
        let recording = try JournalRecording(path: path)
        revisions = try JournalRevisions(recording, since: since, until: until)
        warning = recording.warning
        do { wake = try WakeSignal() } catch { throw .system(file: path, message: "\(error)") }
        hub = RevisionHub(status: StoreStatus(revision: 0, problem: nil, watchMode: .polling), wake: wake)
        wake.signal()
    }

    /// Has the replay wait while `busy` (a reader through another store evaluating a first
    /// window, which would miss the revisions published meanwhile).
    public func waits(while busy: @escaping () -> Bool) { readersBusy.append(busy) }

    /// How many revisions the recording holds (as cut).
    public var revisionCount: Int { revisions.count }

    /// Revision `n`'s value (0: the oldest), made when asked, from the nearest checkpoint.
    public func document(ofRevision n: Int) -> JSONDocument { revisions.value(at: n).document() }

    public func processPendingChanges() {
        wake.drain()
        hub.deliverEvaluatedWindows()
        if !publishesEveryRevision && published == 0 && revisions.count > 0 { published = revisions.count - 1 }
        // One document at a time (the history keeps what changed); none while a first window over
        // many children is evaluated on the hub's worker, which would skip the revisions meanwhile.
        let identity = FileIdentity(device: 0, inode: 0, size: 0, modified: 0, changed: 0)
        while !isReplayed && !hub.isEvaluatingFirstWindows && !readersBusy.contains(where: { $0() }) {
            guard published < revisions.count else {
                isReplayed = true
                if let warning { hub.status.problem = .warning(warning) }
                break
            }
            if value == nil { value = revisions.value(at: published) } else { revisions.advance(&value!, to: published) }
            let entry = revisions.entries[published]
            published += 1
            hub.publish(document: value!.document(), identity: identity, time: entry.time, writer: entry.writer, number: published)
        }
        hub.deliverEvaluatedWindows()
        hub.deliverStatusIfChanged()
    }

    // MARK: The archive (revisions numbered from 1)

    public var archivedRevisions: ClosedRange<Int> { 1...max(1, revisions.count) }

    public func archivedDocument(_ number: Int) -> JSONDocument { document(ofRevision: number - 1) }

    public func archivedStamp(_ number: Int) -> (time: Double, writer: String?) {
        let entry = revisions.entries[number - 1]
        return (entry.time, entry.writer)
    }

    public func archivedChildChanges(_ number: Int, under location: [String]) -> [(key: String, before: JSONDocument)]? {
        guard number >= 2 else { return nil }
        let entry = revisions.entries[number - 1]
        guard case .changes(let changes) = entry.content else { return nil }
        var keys = [String](), seen = Set<String>()
        for change in changes {
            switch childPlace(of: change.pointer, under: location) {
            case .atOrAbove: return nil
            case .beside: continue
            case .child(let key): if seen.insert(key).inserted { keys.append(key) }
            }
        }
        // Only the changed children are made, from the checkpoint before, not the whole value.
        guard let before = revisions.children(seen, under: location, at: number - 2) else { return nil }
        var after = before
        guard JournalRevisions.apply(entry, to: &after, seen, under: location) else { return nil }
        var result = [(key: String, before: JSONDocument)]()
        for key in keys {
            guard let old = before[key], let new = after[key], old.keepsItsPlace, new.keepsItsPlace else { return nil }
            result.append((key, old.document()))
        }
        return result
    }
}
