// The queries a revision history was recorded under: a segment per query, and how an older
// segment's rows are shown under the present query.
import JSONTree
import LiveQuery

/// What a synced array's rows were: its location, query and the pages it showed.
public struct HistoryView: Sendable, Equatable {
    public let location: Path
    public let query: Query
    public let paging: Paging?
    public let pages: Int

    public init(location: Path, query: Query, paging: Paging?, pages: Int) {
        self.location = location
        self.query = query
        self.paging = paging
        self.pages = pages
    }

    /// Whether the query selects every child (no range, filter or limit): the rows are then all
    /// the location's children whenever the pages shown hold them all.
    public var selectsEveryChild: Bool {
        query.start == nil && query.end == nil && query.limit == nil && query.filters.isEmpty
    }

    /// The same location and query, paged the same way (the pages shown may differ).
    func sameQuery(as other: HistoryView) -> Bool {
        location == other.location && query == other.query && paging == other.paging
    }

    /// This view's rows of a location whose children are `children`, from a window evaluated
    /// from scratch, as the synced array shows them (paged: the pages shown).
    /// - Complexity: O(children's bytes) to copy them into a document, plus the evaluation.
    public func rows(of children: [SyncedRow]) -> [SyncedRow] {
        rows(in: rowsDocument(children), at: .root)
    }

    /// This view's rows of its location in `document` (a whole revision), as `rows(of:)` makes them.
    public func rows(in document: JSONDocument) -> [SyncedRow] {
        rows(in: document, at: location)
    }

    private func rows(in document: JSONDocument, at path: Path) -> [SyncedRow] {
        var query = self.query
        var shown: Int?
        if let paging {
            let n = paging.rowCount(pages: pages)
            let unlimited = query.withoutLimit
            query = (paging.edge == .start ? try? unlimited.limitToFirst(n) : try? unlimited.limitToLast(n)) ?? unlimited
            shown = n
        }
        let window = Window(query: query, path: path, document: document)
        let count = min(window.count, shown ?? window.count)
        return (0..<count).map { SyncedRow(key: window.key(at: $0), value: window.value(at: $0)) }
    }
}

/// The records a history kept under one query: from `baseSequence` (its first rows) to the next
/// segment's base, or to the present for the last.
public struct HistorySegment: Sendable {
    /// Told apart from the segment that replaces it after a trim.
    public let id: Int
    public let view: HistoryView
    /// The position of its first rows: its records are the ones after it, up to the next
    /// segment's base.
    public internal(set) var baseSequence: Int
    /// The revision of its first rows.
    public internal(set) var baseRevision: Int?
    /// Whether every state of its rows was every child of the location: then it can be shown
    /// under any query of the location.
    public internal(set) var holdsEveryChild: Bool
    /// Its rows when the next segment began, a copy holding no revision's document (nil for the
    /// present segment).
    var endRows: [SyncedRow]? {
        didSet { endIndexOfKey = Dictionary((endRows ?? []).enumerated().map { ($1.jsonKey, $0) }, uniquingKeysWith: { a, _ in a }) }
    }
    /// Where each key is in `endRows` (a row's timeline reads its value there).
    private var endIndexOfKey: [JSONKey: Int] = [:]
    var endByteCount = 0

    /// The value of the child `key` in `endRows`, nil when it is not there.
    func endValue(ofKey key: String) -> JSONNode? {
        endIndexOfKey[JSONKey(key)].map { endRows![$0].value }
    }

    init(id: Int, view: HistoryView, baseSequence: Int, baseRevision: Int?, holdsEveryChild: Bool) {
        self.id = id
        self.view = view
        self.baseSequence = baseSequence
        self.baseRevision = baseRevision
        self.holdsEveryChild = holdsEveryChild
    }

    /// How its rows are shown when the present rows are `present`'s, or nil when they cannot be.
    func presentation(under present: HistoryView) -> SegmentPresentation? {
        if view == present { return .asRecorded }
        guard view.location == present.location else { return nil }
        if holdsEveryChild { return .evaluated(present) }
        // Same query, other pages: the rows as shown then, fewer or more of them.
        return view.sameQuery(as: present) ? .asRecorded : nil
    }
}

/// How a segment's rows become the rows a cursor shows.
enum SegmentPresentation {
    /// As they were recorded.
    case asRecorded
    /// The present query evaluated on them (they were every child of the location).
    case evaluated(HistoryView)
}

/// The rows as the children of one object in a document of their own bytes: a copy that holds
/// no revision's document.
/// - Complexity: O(the rows' bytes).
func rowsDocument(_ rows: [SyncedRow]) -> JSONDocument {
    var bytes: [UInt8] = [UInt8(ascii: "{")]
    for (i, row) in rows.enumerated() {
        if i > 0 { bytes.append(UInt8(ascii: ",")) }
        bytes += JSON.string(row.key).serializedString().utf8
        bytes.append(UInt8(ascii: ":"))
        bytes += row.value.rawBytes
    }
    bytes.append(UInt8(ascii: "}"))
    // The bytes are JSON the parser read before (values) and the serializer wrote (keys).
    return try! JSONDocument(parsing: bytes)
}

/// A copy of `rows` holding no revision's document, and about what it takes in memory.
func copiedRows(_ rows: [SyncedRow]) -> (rows: [SyncedRow], byteCount: Int) {
    let document = rowsDocument(rows)
    var copied = [SyncedRow]()
    copied.reserveCapacity(rows.count)
    for member in document.root.members {
        copied.append(SyncedRow(key: member.key.stringValue ?? "", value: member.value))
    }
    // The bytes and their parse, a row, and its place in the segment's index of keys.
    return (copied, 64 + document.bytes.count * 2 + 88 * rows.count)
}
