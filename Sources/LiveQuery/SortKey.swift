// A child's place in a query's order: its sort value and its key, and how two places compare.
import JSONTree

/// The order of value kinds: null < false < true < numbers < strings < objects (arrays are objects).
enum ValueRank {
    static let null: UInt8 = 0
    static let `false`: UInt8 = 1
    static let `true`: UInt8 = 2
    static let number: UInt8 = 3
    static let string: UInt8 = 4
    static let object: UInt8 = 5
    /// Null and missing with `Query.valuesFirst()`.
    static let afterValues: UInt8 = 6
}

/// A sort value and a key, pointing at bytes that outlive it (a document inside
/// `withTapeReader`, or a `ByteArena`). Transient: built and compared during one evaluation.
struct SortKey {
    var rank: UInt8
    var number: Double
    var string: UnsafePointer<UInt8>?
    var stringCount: Int32
    var key: KeyRef

    init(rank: UInt8, number: Double = 0, string: UnsafeBufferPointer<UInt8>? = nil, key: KeyRef) {
        self.rank = rank
        self.number = number
        self.string = string?.baseAddress
        self.stringCount = Int32(string?.count ?? 0)
        self.key = key
    }

    var stringBuffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: string, count: Int(stringCount)) }
}

/// Orders two sort values: by rank, then numbers numerically and strings by UTF-16 code units;
/// all objects are equal.
func compareValues(_ a: SortKey, _ b: SortKey) -> Int {
    if a.rank != b.rank { return a.rank < b.rank ? -1 : 1 }
    switch a.rank {
    case ValueRank.number: return a.number < b.number ? -1 : (a.number > b.number ? 1 : 0)
    case ValueRank.string: return utf16Compare(a.stringBuffer, b.stringBuffer)
    default: return 0
    }
}

/// The query order: sort value, then key.
func compareSortKeys(_ a: SortKey, _ b: SortKey) -> Int {
    let v = compareValues(a, b)
    return v != 0 ? v : compareKeys(a.key, b.key)
}

/// Whether two sort values are the same for the query (equal rank and value; objects all equal).
func sameSortValue(_ a: SortKey, _ b: SortKey) -> Bool { compareValues(a, b) == 0 }

/// Stable storage for the bytes sort keys point to (decoded escaped strings, bounds, a stored
/// boundary), freed with the arena. Used by one evaluation on one thread.
final class ByteArena {
    private var blocks: [UnsafeMutablePointer<UInt8>] = []
    private var next: UnsafeMutablePointer<UInt8>?
    private var remaining = 0

    init() {}

    deinit { for b in blocks { b.deallocate() } }

    /// A copy of `bytes` that lives as long as the arena.
        func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let n = bytes.count
        if n == 0 { return UnsafeBufferPointer(start: nil, count: 0) }
        if n > remaining {
            let size = max(n, 4096)
            let block = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
            blocks.append(block)
            next = block
            remaining = size
        }
        let p = next!
        p.update(from: bytes.baseAddress!, count: n)
        next = p + n
        remaining -= n
        return UnsafeBufferPointer(start: p, count: n)
    }

    func copy(_ bytes: [UInt8]) -> UnsafeBufferPointer<UInt8> { bytes.withUnsafeBufferPointer { copy($0) } }

    func copy(_ string: String) -> UnsafeBufferPointer<UInt8> {
        var s = string
        return s.withUTF8 { copy($0) }
    }
}

/// A sort key that owns its bytes, kept in a window between revisions (its boundary).
struct StoredSortKey: Sendable {
    var rank: UInt8
    var number: Double
    var string: [UInt8]
    var keyRank: KeyRef.Rank
    var keyInt: Int32
    var keyLength: Int32
    /// nil for array indexes and sentinels.
    var keyBytes: [UInt8]?

    init(_ k: SortKey) {
        rank = k.rank
        number = k.number
        string = Array(k.stringBuffer)
        keyRank = k.key.rank
        keyInt = k.key.int
        keyLength = k.key.length
        keyBytes = k.key.bytes.map { Array(UnsafeBufferPointer(start: $0, count: Int(k.key.length))) }
    }

    /// The key as a `SortKey` whose bytes live in `arena`.
    func sortKey(in arena: ByteArena) -> SortKey {
        let keyPointer = keyBytes.map { arena.copy($0).baseAddress } ?? nil
        return SortKey(
            rank: rank, number: number, string: arena.copy(string),
            key: KeyRef(rank: keyRank, int: keyInt, length: keyLength, bytes: keyPointer))
    }
}

// MARK: - Reading sort keys from a document

extension TapeReader {
    /// The sort value of node `i` (an absent node is null), with `key`.
    /// - Complexity: O(1), plus decoding an escaped string into `arena`.
    func sortKey(ofValue i: Int?, key: KeyRef, arena: ByteArena) -> SortKey {
        guard let i else { return SortKey(rank: ValueRank.null, key: key) }
        switch firstByte(i) {
        case UInt8(ascii: "n"): return SortKey(rank: ValueRank.null, key: key)
        case UInt8(ascii: "f"): return SortKey(rank: ValueRank.false, key: key)
        case UInt8(ascii: "t"): return SortKey(rank: ValueRank.true, key: key)
        case UInt8(ascii: "{"), UInt8(ascii: "["): return SortKey(rank: ValueRank.object, key: key)
        case UInt8(ascii: "\""): return SortKey(rank: ValueRank.string, string: stringBytes(i, arena: arena), key: key)
        default: return SortKey(rank: ValueRank.number, number: number(i), key: key)
        }
    }

    /// The decoded bytes of string node `i`: in the document when unescaped, else copied into `arena`.
    func stringBytes(_ i: Int, arena: ByteArena) -> UnsafeBufferPointer<UInt8> {
        if !hasEscapes(i) { return unescapedStringBytes(i) }
        return withStringBytes(i) { arena.copy($0) }
    }

    /// The child of node `i` named `key`: an object member, or an array element for `"0"`, `"1"`, ….
    func child(of i: Int, named key: UnsafeBufferPointer<UInt8>, arrayIndex: Int?) -> Int? {
        switch firstByte(i) {
        case UInt8(ascii: "{"):
            return member(of: i, named: key)
        case UInt8(ascii: "["):
            guard let arrayIndex else { return nil }
            var e = firstChild(i), n = 0
            let stop = nextIndex(i)
            while e < stop {
                if n == arrayIndex { return e }
                e = nextIndex(e)
                n += 1
            }
            return nil
        default:
            return nil
        }
    }
}
