// Rates as columns: any store's revisions with each child's per-second rates added.
import JSONTree
import LiveQuery
import StoreInterface

/// A `LiveStore` showing another store's revisions with rate columns (`--rate`, the viewer's `R`):
/// each child of a rate's location gets, under `$rate`, the per-second rate of change of the
/// rate's numeric column between the source's last two revisions (see `rates(of:…)`), so that a
/// rate sorts, filters, charts and is kept in the history like any column.
///
/// It runs on its source's loop thread and its writes are the source's (a rate is never written).
public final class RateStore: LiveStore {
    public let hub: RevisionHub
    public let source: any LiveStore
    /// The rates shown, in the order they were asked for.
    public private(set) var columns: [RateColumn]
    public var name: String { source.name }
    public var loadingMessage: String { source.loadingMessage }
    public var pollDescriptors: [Int32] { source.pollDescriptors + [wake.fd] }
    public var isRemote: Bool { source.isRemote }
    public var isAppendOnly: Bool { source.isAppendOnly }
    public var hasWritesInProgress: Bool { source.hasWritesInProgress }

    private let wake: WakeSignal
    /// The source's state before the current one, and the current one.
    private var previous: Sample?
    private var current: Sample?
    /// The source's last run (a command's), whose output may have been the same as the one before.
    private var lastRun = 0

    public init(source: any LiveStore, columns: [RateColumn] = []) throws(FileStoreError) {
        self.source = source
        self.columns = columns
        wake = try WakeSignal()
        hub = RevisionHub(status: source.status, wake: wake)
        hub.status.revision = 0
        // Each revision as it is published: a source may publish several in one round (a journal replayed).
        // (The source is not asked to process anything here: a journal would replay before any reader listens.)
        source.observeRevisions { [unowned self] revision in take(revision) }
    }

    /// Adds a rate (the current revision is shown again with it, as a new revision).
    /// - Returns: false when it is shown already.
    @discardableResult
    public func add(_ column: RateColumn) -> Bool {
        guard !columns.contains(column) else { return false }
        columns.append(column)
        if current != nil { publishCurrent() }
        return true
    }

    public func processPendingChanges() {
        source.processPendingChanges()
        wake.drain()
        if let run = source.status.lastRun, run.number != lastRun, !run.failed, let now = current, run.startTime > now.time,
           !columns.isEmpty {
            // A run whose output was the last one's: no change, so every rate is 0 until the next.
            previous = now
            current = Sample(revision: now.revision, time: run.startTime)
            publishCurrent()
        }
        lastRun = source.status.lastRun?.number ?? 0
        var status = source.status
        status.revision = hub.status.revision
        // A problem of the source stays; publishing cleared ours.
        hub.status = status
        hub.deliverEvaluatedWindows()
        hub.deliverStatusIfChanged()
    }

    private func take(_ revision: Revision) {
        guard revision.number != current?.revision.number else { return }
        // A command's store says which run made the revision before publishing it.
        lastRun = source.status.lastRun?.number ?? lastRun
        previous = current
        current = Sample(revision: revision, time: revision.time)
        publishCurrent()
    }

    private func publishCurrent() {
        guard let current else { return }
        var document = current.revision.document
        if let previous, !columns.isEmpty {
            document = withRates(columns.map { ($0, rates(of: $0, old: previous.revision.root, oldTime: previous.time,
                                                               new: current.revision.root, newTime: current.time)) },
                                 in: document)
        }
        hub.publish(document: document, identity: current.revision.identity, time: current.time, writer: current.revision.writer)
    }

    /// A state of the source and when it held (a command's run can repeat the last revision).
    private struct Sample {
        let revision: Revision
        let time: Double
    }

    public func startWrite(_ writes: [JSONWrite], watching path: Path, ifStill expected: JSON??,
                           done: @escaping (Result<WatchedWrite, WriteError>) -> Void) {
        source.startWrite(writes, watching: path, ifStill: expected, done: done)
    }

    public func append(_ value: JSON, under path: Path) throws(WriteError) -> String {
        try source.append(value, under: path)
    }

    public func readEveryRecord() { source.readEveryRecord() }
}

/// `document` with a `$rate` member added at the end of each child object that has a rate:
/// `{"$rate":{"stats64":{"rx":{"bytes":1250.5}}}}`. The rest of its bytes stay as they were.
/// - Complexity: O(document bytes) for the copy and its parse.
func withRates(_ found: [(column: RateColumn, rates: [String: Rate])], in document: JSONDocument) -> JSONDocument {
    var inserts = [(offset: Int, bytes: [UInt8])]()
    var locations = [Path: [(column: RateColumn, rates: [String: Rate])]]()
    for entry in found { locations[entry.column.location, default: []].append(entry) }
    for (location, entries) in locations {
        guard let parent = document.root.node(at: location) else { continue }
        for (key, child) in children(parent) where child.kind == .object {
            var member = JSON.object(JSONObject())
            for entry in entries {
                guard let rate = entry.rates[key] else { continue }
                member = setting(rate.json, at: entry.column.column.keys[...], in: member)
            }
            guard member.objectValue?.count ?? 0 > 0 else { continue }
            var bytes = Array((child.count == 0 ? "\"" : ",\"").utf8) + Array(rateMember.utf8) + Array("\":".utf8)
            member.write(to: &bytes, style: .compact, depth: 0)
            inserts.append((child.byteRange.upperBound - 1, bytes))
        }
    }
    guard !inserts.isEmpty else { return document }
    inserts.sort { $0.offset < $1.offset }
    var out = [UInt8]()
    var start = 0
    document.bytes.withUnsafeBytes { base in
        out.reserveCapacity(base.count + inserts.reduce(0) { $0 + $1.bytes.count })
        for insert in inserts {
            out.append(contentsOf: base[start..<insert.offset])
            out.append(contentsOf: insert.bytes)
            start = insert.offset
        }
        out.append(contentsOf: base[start...])
    }
    // Bytes made of a valid document and valid members: parsing cannot fail.
    return (try? JSONDocument(parsing: out)) ?? document
}

/// `value` with `replacement` at `path`, objects made on the way.
private func setting(_ replacement: JSON, at path: ArraySlice<String>, in value: JSON) -> JSON {
    guard let first = path.first else { return replacement }
    var object = value.objectValue ?? JSONObject()
    object[first] = setting(replacement, at: path.dropFirst(), in: object[first] ?? .null)
    return .object(object)
}
