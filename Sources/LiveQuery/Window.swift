// A query's result over one revision: the ordered rows a listener sees.
import JSONTree

/// The children of one location that a query selects in one revision, in query order.
///
/// A window is an immutable value. Rows are read by index (`window[i].key`, `window.value(at: i)`);
/// keys are materialised as `String` only when read, so a window of a million children costs a
/// few bytes per child. `index(ofKey:)` finds a row by key (code units, not `String ==`).
///
/// ```swift
/// let doc = try JSONDocument(parsing: bytes)
/// let query = try Query().orderByChild("score").limitToLast(3)
/// let window = Window(query: query, path: try Path("/players"), document: doc)
/// for row in window { print(row.key, row.value.json) }       // lowest of the top 3 first
/// let change = window.advanced(to: nextDoc)                   // events and batch for the next revision
/// ```
public struct Window: Sendable {
    /// One row: a child's key and value.
    public struct Row: Sendable {
        public let key: String
        public let value: JSONNode
    }

    public let query: Query
    /// The location whose children the query orders.
    public let path: Path

    let children: ChildList
    /// Children known to be in range, in query order, as ordinals into `children`: every child in
    /// range when `boundary` is nil; otherwise every child in range up to `boundary` (limitToFirst)
    /// or from it (limitToLast) — the rows plus a reserve that refills the window when rows leave.
    let members: MemberList
    /// The last (limitToFirst) or first (limitToLast) member's sort key, or nil when the members
    /// are all children in range.
    let boundary: StoredSortKey?
    /// The rows shown, as a range of `members`.
    let rows: Range<Int>
    private let lookup: Locked<OrdinalTable?>

    init(query: Query, path: Path, children: ChildList, members: MemberList, boundary: StoredSortKey?) {
        self.query = query
        self.path = path
        self.children = children
        self.members = members
        self.boundary = boundary
        switch query.limit {
        case nil: rows = 0..<members.count
        case .first(let k): rows = 0..<Swift.min(k, members.count)
        case .last(let k): rows = Swift.max(0, members.count - k)..<members.count
        }
        lookup = Locked(nil)
    }

    /// The document (revision) this window was read from.
    public var document: JSONDocument { children.document }

    /// How many children the location has in that revision, as the database counts them
    /// (nulls and metadata members left out), in the window or not.
    public var childCount: Int { children.count }

    /// The child ordinal of row `i`.
    @inline(__always)
    func ordinal(at i: Int) -> Int { Int(members[rows.lowerBound + i]) }

    /// The key of row `i`.
    public func key(at i: Int) -> String { children.key(ordinal(at: i)) }

    /// The value of row `i`.
    public func value(at i: Int) -> JSONNode { children.value(ordinal(at: i)) }

    /// Calls `body` with the UTF-8 bytes of row `i`'s key.
    public func withKeyBytes<R>(at i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try children.withKeyBytes(ordinal(at: i), body)
    }

    /// Every row's key, in order.
    /// - Complexity: O(n) `String`s.
    public var keys: [String] { (0..<count).map { key(at: $0) } }

    /// The row whose key has exactly these code units, or nil.
    /// - Complexity: O(1) expected; the first call builds a table of the rows' keys in O(n).
    public func index(ofKey key: String) -> Int? {
        var key = key
        return key.withUTF8 { index(ofKeyBytes: $0) }
    }

    /// The row whose key has exactly these UTF-8 bytes, or nil.
    public func index(ofKeyBytes key: UnsafeBufferPointer<UInt8>) -> Int? {
        let table = lookup.withLock { table in
            if table == nil { table = buildLookup() }
            return table!
        }
        let found = table.find(hash: hashBytes(key)) { row in
            withKeyBytes(at: Int(row)) { $0.elementsEqual(key) }
        }
        return found.map(Int.init)
    }

    private func buildLookup() -> OrdinalTable {
        var table = OrdinalTable(capacity: count)
        for row in 0..<count {
            let h = withKeyBytes(at: row) { hashBytes($0) }
            _ = table.insert(Int32(row), hash: h) { _ in false }
        }
        return table
    }
}

extension Window: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { rows.count }
    public subscript(i: Int) -> Row { Row(key: key(at: i), value: value(at: i)) }
}
