#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A parsed JSON file: the bytes as read, and a flat tape of nodes pointing into them.

/// One node of the tape. 12 bytes; the node's kind is read from its first byte.
///
/// - `start`, `end`: the node's byte range in the document (strings include their quotes).
/// - `payload`: containers: index of the next node after the subtree; strings:
///   `Tape.escaped` and, for object keys, `Tape.shadowed` (a duplicate key overridden by
///   a later one).
@usableFromInline
struct TapeEntry: Sendable {
    @usableFromInline var start: UInt32
    @usableFromInline var end: UInt32
    @usableFromInline var payload: UInt32
}

@usableFromInline
enum Tape {
    @usableFromInline static let escaped: UInt32 = 1
    @usableFromInline static let shadowed: UInt32 = 2
}

/// Tape memory and who owns it: one tape, or the revisions of a JSON Lines list, which share
/// one block that only grows past the entries any of them reads.
final class TapeBlock: @unchecked Sendable {
    let memory: TapeMemory
    /// Whether the memory is kept as a spare when it goes: a re-parsed tape (a file followed
    /// edit by edit, whose next re-parse needs the same size), not a one-off parse.
    private let keepsSpare: Bool

    init(memory: TapeMemory, keepsSpare: Bool = false) {
        self.memory = memory
        self.keepsSpare = keepsSpare
    }

    deinit { if keepsSpare { memory.releaseKeepingSpare() } else { memory.release() } }
}

/// The finished tape of one document: its first `count` entries of a block. Written before the
/// document exists and read-only after (entries past `count` may still be written, for a later
/// document), which is why sharing it between threads is safe.
///
/// The root's entry is the document's own: in a JSON Lines list, where the revisions share every
/// record's entries, each has its own root (its end and next index are where its records end).
@usableFromInline
final class TapeStorage: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutablePointer<TapeEntry>
    @usableFromInline let count: Int
    @usableFromInline let root: TapeEntry
    private let block: TapeBlock

    init(memory: TapeMemory, count: Int, keepsSpare: Bool = false) {
        block = TapeBlock(memory: memory, keepsSpare: keepsSpare)
        base = memory.base
        self.count = count
        root = base[0]
    }

    /// The first `count` entries of `block`, with `root` as entry 0.
    init(sharing block: TapeBlock, count: Int, root: TapeEntry) {
        precondition(count >= 1 && count <= block.memory.capacity)
        self.block = block
        base = block.memory.base
        self.count = count
        self.root = root
    }

    @inlinable subscript(i: Int) -> TapeEntry { i == 0 ? root : base[i] }
}

/// A parsed JSON document. Immutable and `Sendable`: every revision of a file is one.
///
/// Strings and numbers are not decoded when parsing; a node reads them from `bytes`
/// when asked, so parsing a file allocates only the tape (12 bytes a node).
public final class JSONDocument: Sendable {
    /// The document's bytes, exactly as parsed.
    public let bytes: DocumentBytes
    @usableFromInline let tape: TapeStorage
    /// The document this one was re-parsed from, while it exists (see `sharedEnds(with:)`).
    private weak let previous: JSONDocument?
    /// How many leading and trailing bytes this document shares with `previous`.
    private let sharedWithPrevious: (prefix: Int, suffix: Int)

    init(bytes: DocumentBytes, tape: TapeStorage, previous: JSONDocument? = nil, shared: (prefix: Int, suffix: Int) = (0, 0)) {
        self.bytes = bytes
        self.tape = tape
        self.previous = previous
        self.sharedWithPrevious = shared
    }

    /// How many leading bytes this document shares with `other`, and how many trailing bytes
    /// (at most the rest of the shorter one), when this document was re-parsed from `other`
    /// (`reparsing`), which measured them: later stages need not compare the bytes again.
    /// nil otherwise.
    public func sharedEnds(with other: JSONDocument) -> (prefix: Int, suffix: Int)? {
        guard let previous, previous === other else { return nil }
        return sharedWithPrevious
    }

    /// Parses `bytes` strictly (RFC 8259).
    /// - Throws: `JSONParseError` with line, column and byte offset.
    /// - Complexity: O(n).
    public convenience init(parsing bytes: [UInt8]) throws(JSONParseError) {
        try self.init(parsing: DocumentBytes(bytes))
    }

    /// Parses `bytes` strictly (RFC 8259).
    /// - Throws: `JSONParseError` with line, column and byte offset.
    /// - Complexity: O(n).
    public convenience init(parsing bytes: DocumentBytes) throws(JSONParseError) {
        let tape = try JSONParser.parse(bytes)
        self.init(bytes: bytes, tape: tape)
    }

    /// Parses `bytes` as strictly as `init(parsing:)` (the same errors), keeping only what a
    /// writer of `path` reads: the nodes on the way to it (every member of each container there)
    /// and everything under it. Any other container is one node with its bytes and no children
    /// (it reads as empty), so the tape of a large file edited at one path is a fraction of a
    /// whole one. For writes, which splice bytes and read only along their path.
    package convenience init(parsing bytes: DocumentBytes, keeping path: Path) throws(JSONParseError) {
        guard bytes.count < Int(UInt32.max) else {
            throw JSONParseError(message: "file larger than 4 GiB", offset: 0, line: 1, column: 1)
        }
        let tape = try bytes.withUnsafeBufferPointer { buf throws(JSONParseError) in try JSONParser.parse(buf, keeping: path) }
        self.init(bytes: bytes, tape: tape)
    }

    public convenience init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// A document holding `value`, serialized compactly.
    public convenience init(_ value: JSON) {
        // A serialized value always parses; a failure here is a serializer bug.
        try! self.init(parsing: value.serialized())
    }

    /// The top-level value.
    public var root: JSONNode { JSONNode(document: self, index: 0) }

    /// Number of nodes (values and keys) in the document.
    public var nodeCount: Int { tape.count }
}
