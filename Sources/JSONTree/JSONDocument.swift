import EngineMemory
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A parsed JSON file: the bytes as read, and a tape of nodes pointing into them.

/// One entry of the tape: 8 bytes. A node's kind is read from its first byte.
///
/// - `start`: where the node starts in the document (a string's opening quote).
/// - `word`: a container's next index (the first entry after its subtree) shifted left
///   by one, with bit 0 set; a scalar's length in bytes shifted left by 3, with
///   `Tape.escaped` and, for object keys, `Tape.shadowed` (a duplicate key overridden by
///   a later one) in bits 1 and 2.
///
/// A container takes two entries: its own, and after it one whose `start` is where the
/// container ends (just past its closing bracket). Its children follow, from its index + 2.
/// Keeping a container's end there rather than in every entry makes the tape 8 bytes a node
/// instead of 12: the tape is most of a large file's memory beside its bytes.
@usableFromInline
struct TapeEntry: Sendable {
    @usableFromInline var start: UInt32
    @usableFromInline var word: UInt32

    @inlinable init(start: UInt32, word: UInt32) {
        self.start = start
        self.word = word
    }

    /// A scalar (or key) at `start..<end` with `flags`.
    @inlinable init(start: Int, end: Int, flags: UInt32) {
        self.start = UInt32(truncatingIfNeeded: start)
        word = UInt32(min(end - start, Int(Tape.longLength))) << 3 | flags
    }

    /// A container's entry, next index not known yet.
    @inlinable static func container(start: Int) -> TapeEntry {
        TapeEntry(start: UInt32(truncatingIfNeeded: start), word: 1)
    }

    @inlinable var isContainer: Bool { word & 1 != 0 }
    /// A container's next index.
    @inlinable var next: Int { Int(word >> 1) }
    /// A scalar's length, or `Tape.longLength` for one that long or longer.
    @inlinable var length: UInt32 { word >> 3 }
}

@usableFromInline
enum Tape {
    @usableFromInline static let escaped: UInt32 = 2
    @usableFromInline static let shadowed: UInt32 = 4
    /// The largest length a scalar's entry holds: longer ones (a string of 512 MiB or more)
    /// are measured from their bytes when their end is asked for.
    @usableFromInline static let longLength: UInt32 = (1 << 29) - 1

    /// Tape indexes are below this: a container's word holds its next index in 31 bits (and
    /// child lists hold indexes as `Int32`). A file under 4 GiB can hold more nodes than that
    /// (`[[],[],…]` takes 1.5 bytes an entry): the parse refuses it.
    static let entryLimit = 1 << 31

    /// A container's word for next index `next`.
    @inlinable static func containerWord(next: Int) -> UInt32 { UInt32(truncatingIfNeeded: next) << 1 | 1 }

    /// Where the scalar starting at `start` ends, read from the bytes: a string to its closing
    /// quote, anything else to the first byte that cannot continue a number or literal.
    @usableFromInline
    static func scalarEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        if bytes[i] == UInt8(ascii: "\"") {
            i += 1
            while bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
            return i + 1
        }
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "E"):
                i += 1
            default:
                return i
            }
        }
        return i
    }
}

/// Tape memory and who owns it: one tape, the revisions of a JSON Lines list, which share one
/// block that only grows past the entries any of them reads, or the tapes spliced from a large
/// tape as pieces, which read its entries where it stored them.
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

/// A run of a tape's entries kept where an earlier tape stored them: entries `start..<end` are
/// the stored ones from `stored` on, each moved by `byteShift` and, a container's next index, by
/// `wordShift` (a tape spliced by an edit shares the entries after it this way instead of copying
/// them shifted). Shifts are modulo 2^32, so a negative one works too.
@usableFromInline
struct TapePiece {
    @usableFromInline let start: Int
    @usableFromInline let end: Int
    @usableFromInline let stored: UnsafePointer<TapeEntry>
    @usableFromInline let byteShift: UInt32
    /// Added to a container's word (bit 0 set), whose next index is the bits above.
    @usableFromInline let wordShift: UInt32

    init(start: Int, end: Int, stored: UnsafePointer<TapeEntry>, byteShift: UInt32 = 0, wordShift: UInt32 = 0) {
        self.start = start
        self.end = end
        self.stored = stored
        self.byteShift = byteShift
        self.wordShift = wordShift
    }

    var isShifted: Bool { byteShift != 0 || wordShift != 0 }

    @inlinable func entry(_ i: Int) -> TapeEntry {
        var e = stored[i - start]
        e.start &+= byteShift
        e.word &+= (e.word & 1) &* wordShift
        return e
    }
}

/// The pieces of a tape read past its head (see `TapeStorage`), found through a directory: the
/// piece holding every 4,096th entry (`1 << directoryShift`). Plain pointers, so that a
/// `TapeReader` holds them without retaining anything; valid while their `TapeStorage` is.
@usableFromInline
struct TapePieces {
    static let directoryShift = 12
    @usableFromInline let table: UnsafePointer<TapePiece>?
    @usableFromInline let directory: UnsafePointer<UInt32>?

    static var none: TapePieces { TapePieces(table: nil, directory: nil) }

    /// Entry `i`, which lies in one of the pieces.
    @usableFromInline func entry(_ i: Int) -> TapeEntry {
        var p = Int(directory.unsafelyUnwrapped[i >> Self.directoryShift])
        let table = table.unsafelyUnwrapped
        while table[p].end <= i { p += 1 }
        return table[p].entry(i)
    }
}

/// The finished tape of one document. Written before the document exists and read-only after
/// (entries of its memory past `count` may still be written, for a later document), which is
/// why sharing it between threads is safe.
///
/// Its first `headCount` entries are read as stored from `head`: for a parsed tape, all of them.
/// A tape spliced from a large one by an edit that moved entries (`JSONDocument.reparsedInPlace`)
/// is pieces instead: the last tape's entries before the edit, the edited container's own parse,
/// the last tape's entries after it with their offsets shifted, and the edit's ancestors with
/// their next indexes and ends moved. It keeps the memory its pieces are stored in.
///
/// The root's next index and end are the document's own: in a JSON Lines list, where the
/// revisions share every record's entries, each has its own (where its records end).
@usableFromInline
final class TapeStorage: @unchecked Sendable {
    @usableFromInline let head: UnsafePointer<TapeEntry>
    @usableFromInline let headCount: Int
    @usableFromInline let pieces: TapePieces
    @usableFromInline let count: Int
    /// When the root is a container: its next index and where it ends.
    @usableFromInline let rootNext: Int
    @usableFromInline let rootEnd: Int
    /// A parsed tape's memory; nil for pieces.
    private let block: TapeBlock?
    /// For pieces: each piece, in order, and the memory they are stored in (empty for a parsed tape).
    private let pieceTable: [TapePiece]
    private let pieceBlocks: [TapeBlock]
    /// For a tape parsed on two threads: the object whose members they shared, and the tape
    /// index of the first member the second thread parsed (a key near the input's middle).
    let split: (object: Int, member: Int)?
    /// False only when the parse that wrote the tape saw no key that may be metadata (one
    /// starting with "." or with an escape); true when unknown.
    let metadataKeys: Bool

    init(memory: TapeMemory, count: Int, keepsSpare: Bool = false, split: (object: Int, member: Int)? = nil,
         metadataKeys: Bool = true) {
        block = TapeBlock(memory: memory, keepsSpare: keepsSpare)
        head = UnsafePointer(memory.base)
        headCount = count
        pieces = .none
        pieceTable = []
        pieceBlocks = []
        self.count = count
        self.split = split
        self.metadataKeys = metadataKeys
        let rootIsContainer = head[0].isContainer
        rootNext = rootIsContainer ? head[0].next : 1
        rootEnd = rootIsContainer ? Int(head[1].start) : 0
    }

    /// The first `count` entries of `block`, whose root (a container) has this next index and end.
    init(sharing block: TapeBlock, count: Int, rootNext: Int, rootEnd: Int) {
        precondition(count >= 2 && count <= block.memory.capacity)
        self.block = block
        head = UnsafePointer(block.memory.base)
        headCount = count
        pieces = .none
        pieceTable = []
        pieceBlocks = []
        self.count = count
        split = nil
        metadataKeys = true
        self.rootNext = rootNext
        self.rootEnd = rootEnd
    }

    /// A tape of `pieces` (in order, covering `0..<count`), stored in `blocks` (and perhaps in
    /// blocks no piece reads any more: those are let go).
    init(pieces list: [TapePiece], count: Int, blocks: [TapeBlock]) {
        precondition(list.first?.start == 0 && list.last?.end == count)
        assert(zip(list, list.dropFirst()).allSatisfy { $0.end == $1.start && $0.start < $0.end }, "pieces not in order")
        block = nil
        pieceTable = list
        self.count = count
        pieceBlocks = blocks.filter { b in
            let range = UnsafePointer(b.memory.base)..<UnsafePointer(b.memory.base + b.memory.capacity)
            return list.contains { range.contains($0.stored) }
        }
        let first = list[0]
        head = first.stored
        headCount = first.isShifted ? 0 : first.end
        let table = UnsafeMutablePointer<TapePiece>.allocate(capacity: list.count)
        table.initialize(from: list, count: list.count)
        let directory = UnsafeMutablePointer<UInt32>.allocate(capacity: (count >> TapePieces.directoryShift) + 1)
        var p = 0
        for k in 0...(count >> TapePieces.directoryShift) {
            while list[p].end <= k << TapePieces.directoryShift && p + 1 < list.count { p += 1 }
            directory[k] = UInt32(p)
        }
        pieces = TapePieces(table: table, directory: directory)
        split = nil
        metadataKeys = true
        func entry(_ i: Int) -> TapeEntry { list.first { $0.start <= i && i < $0.end }!.entry(i) }
        let root = entry(0)
        rootNext = root.isContainer ? root.next : 1
        rootEnd = root.isContainer ? Int(entry(1).start) : 0
    }

    deinit {
        if let table = pieces.table { UnsafeMutablePointer(mutating: table).deallocate() }
        if let directory = pieces.directory { UnsafeMutablePointer(mutating: directory).deallocate() }
    }

    @inlinable subscript(i: Int) -> TapeEntry { i < headCount ? head[i] : pieces.entry(i) }

    /// The first entry after node `i`'s subtree.
    @inlinable func next(_ i: Int) -> Int {
        let e = self[i]
        return e.isContainer ? (i == 0 ? rootNext : e.next) : i + 1
    }

    /// Where node `i` ends in `bytes` (just past its last byte).
    @inlinable func end(_ i: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let e = self[i]
        if e.isContainer { return i == 0 ? rootEnd : Int(self[i + 1].start) }
        let length = e.length
        return length != Tape.longLength ? Int(e.start + length) : Tape.scalarEnd(bytes, from: Int(e.start))
    }

    /// Every entry as pieces in order (one, unshifted, for a parsed tape): what a splice cuts.
    var pieceList: [TapePiece] { pieceTable.isEmpty ? [TapePiece(start: 0, end: count, stored: head)] : pieceTable }

    /// Entries `range` as pieces, moved to start `indexDelta` later and shifted by `byteShift`
    /// and `wordShift` more.
    func piecesCovering(_ range: Range<Int>, movedBy indexDelta: Int = 0, byteShift: UInt32 = 0,
                        wordShift: UInt32 = 0) -> [TapePiece] {
        pieceList.compactMap { p in
            let lo = max(p.start, range.lowerBound), hi = min(p.end, range.upperBound)
            guard lo < hi else { return nil }
            return TapePiece(start: lo + indexDelta, end: hi + indexDelta, stored: p.stored + (lo - p.start),
                             byteShift: p.byteShift &+ byteShift, wordShift: p.wordShift &+ wordShift)
        }
    }

    /// The memory this tape's entries are stored in, which a tape spliced from it as pieces keeps.
    var blocksRead: [TapeBlock] { block.map { [$0] } ?? pieceBlocks }
}

/// A parsed JSON document. Immutable and `Sendable`: every revision of a file is one.
///
/// Strings and numbers are not decoded when parsing; a node reads them from `bytes`
/// when asked, so parsing a file allocates only the tape (8 bytes a node, 16 a container).
public final class JSONDocument: Sendable {
    /// The document's bytes, exactly as parsed.
    public let bytes: DocumentBytes
    @usableFromInline let tape: TapeStorage
    /// The document this one was re-parsed from, while it exists (see `sharedEnds(with:)`).
    private weak let previous: JSONDocument?
    /// How many leading and trailing bytes this document shares with `previous`.
    private let sharedWithPrevious: (prefix: Int, suffix: Int)
    /// The bytes a re-parse in place from `previous` parsed anew (nil for a whole parse).
    private let reparsed: Range<Int>?
    /// For a document parsed for a writer (`init(parsing:keeping:)`): what its parse found in
    /// the objects on the path.
    let pathMembers: PathMembers?
    /// Where a re-parse finds the child an edit touched in a large container.
    let childSamples: ChildSamples

    init(bytes: DocumentBytes, tape: TapeStorage, previous: JSONDocument? = nil, shared: (prefix: Int, suffix: Int) = (0, 0),
         reparsed: Range<Int>? = nil, pathMembers: PathMembers? = nil, childSamples: ChildSamples = ChildSamples()) {
        self.bytes = bytes
        self.tape = tape
        self.previous = previous
        self.sharedWithPrevious = shared
        self.reparsed = reparsed
        self.pathMembers = pathMembers
        self.childSamples = childSamples
    }

    /// How many leading bytes this document shares with `other`, and how many trailing bytes
    /// (at most the rest of the shorter one), when this document was re-parsed from `other`
    /// (`reparsing`), which measured them: later stages need not compare the bytes again.
    /// nil otherwise.
    public func sharedEnds(with other: JSONDocument) -> (prefix: Int, suffix: Int)? {
        guard let previous, previous === other else { return nil }
        return sharedWithPrevious
    }

    /// The bytes of this document that were parsed anew when it was re-parsed in place from
    /// `other` (`reparsing`: one container, or a run of a large one's children); nil when it was
    /// not, or was parsed whole. Every key outside them is marked shadowed (or not) as in `other`.
    public func reparsedBytes(since other: JSONDocument) -> Range<Int>? {
        guard let previous, previous === other else { return nil }
        return reparsed
    }

    /// For a document parsed on two threads, when the node at tape index `object` is the object
    /// whose members they shared: the tape index of a member's key near the input's middle, from
    /// which its members may be listed by a second thread.
    package func memberNearMiddle(of object: Int) -> Int? {
        guard let split = tape.split, split.object == object else { return nil }
        return split.member
    }

    /// Whether a key of the document may be metadata (`.priority`, `.value`): false only when
    /// its parse saw none that starts with "." or has an escape.
    package var mayHaveMetadataKeys: Bool { tape.metadataKeys }

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
        try self.init(parsing: bytes, tuning: .current)
    }

    /// Parses `bytes` as `init(parsing:)` does, with `tuning` rather than the process's (tests
    /// compare the two: the documents are the same, tape entry for tape entry).
    package convenience init(parsing bytes: DocumentBytes, tuning: EngineTuning) throws(JSONParseError) {
        let tape = try JSONParser.parse(bytes, tuning: tuning)
        self.init(bytes: bytes, tape: tape)
    }

    /// Parses `bytes` tuned, as `init(parsing:tuning:)` does, except that where the input is split
    /// over two threads the first waits for the second's members when it reaches them, rather
    /// than reading on alone: the split then never depends on which thread is quicker (tests of
    /// what a split gives).
    package static func parsedOnTwoThreads(_ bytes: DocumentBytes) throws(JSONParseError) -> JSONDocument {
        let tape = try bytes.withUnsafeBufferPointer { buf throws(JSONParseError) in
            try JSONParser.parse(buf, depthLimit: maximumJSONDepth, tuning: .tuned, fragmentTaken: { _ in })
        }
        return JSONDocument(bytes: bytes, tape: tape)
    }

    /// Parses `source` as strictly as `init(parsing:)` (the same errors), and makes the
    /// document of the bytes `copy` gives once the parse has ended: the same bytes, in memory
    /// of their own. For a reader that parses a file's mapping while another thread copies it
    /// (the copy following `progress`); `copy` gives nil when it cannot vouch for its bytes (the
    /// file changed meanwhile), and so does this.
    package static func parsing(
        _ source: DocumentBytes, progress: ParseProgress, tuning: EngineTuning, copy: () -> DocumentBytes?
    ) throws(JSONParseError) -> JSONDocument? {
        let tape = try JSONParser.parse(source, progress: progress, tuning: tuning)
        guard let bytes = copy(), bytes.count == source.count else { return nil }
        return JSONDocument(bytes: bytes, tape: tape)
    }

    /// Parses `bytes` as strictly as `init(parsing:)` (the same errors), keeping only what a
    /// writer of `path` reads: the nodes on the way to it (every member of each container there)
    /// and everything under it. Any other container is one node with its bytes and no children
    /// (it reads as empty), so the tape of a large file edited at one path is a fraction of a
    /// whole one. For writes, which splice bytes and read only along their path.
    ///
    /// `watch`, if given, hears of the parse's progress towards `path` while it runs (see
    /// `PathWatch`), for a writer that starts its new file before the parse has finished.
    package convenience init(
        parsing bytes: DocumentBytes, keeping path: Path, watch: PathWatch? = nil
    ) throws(JSONParseError) {
        guard bytes.count < Int(UInt32.max) else {
            throw JSONParseError(message: "file larger than 4 GiB", offset: 0, line: 1, column: 1)
        }
        let (tape, members) = try bytes.withUnsafeBufferPointer { buf throws(JSONParseError) in
            try JSONParser.parse(buf, keeping: path, watch: watch)
        }
        self.init(bytes: bytes, tape: tape, pathMembers: members)
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

    /// The tape index of every node (values and keys), in file order.
    /// - Complexity: O(n).
    public var nodeIndexes: [Int] {
        var indexes = [Int]()
        var i = 0
        while i < tape.count {
            indexes.append(i)
            i += tape[i].isContainer ? 2 : 1
        }
        return indexes
    }

    /// Number of nodes (values and keys) in the document.
    /// - Complexity: O(n).
    public var nodeCount: Int { nodeIndexes.count }
}
