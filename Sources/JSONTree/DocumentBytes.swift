// The bytes of a document: an array, the first bytes of a block that only grows, or pieces.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import EngineMemory

/// Memory for a document's bytes, written before any document reads it and never changed
/// after: only bytes past every document's `count` may still be written (a JSON Lines file's
/// next records), so documents share one block as they share a prefix.
///
/// A large file's revision is a memory file's pages (`SharedPages`), or a copy-on-write mapping
/// of them with the pages where it differs written; tuned, other large blocks are recycled
/// mappings (`RecycledMemory`).
public final class ByteBlock: @unchecked Sendable {
    private let memory: RecycledMemory<UInt8>?
    private let release: (@Sendable () -> Void)?
    /// The memory file whose pages these bytes are, or share (`SharedPages`): the next revision
    /// of a large file, when it has the same length, shares them too.
    package let sharedPages: SharedPages?
    /// For a copy-on-write mapping of `sharedPages`, the pages this revision wrote (where it may
    /// differ from the memory file); nil for the memory file's own bytes. Told once, by the read
    /// that wrote them, before any other thread sees the block.
    package private(set) var writtenPages: PageSet?
    /// For a memory file's bytes or a mapping of them, each page's fingerprint, when a read
    /// computed them all: the next revision's pages are compared with these. Told once, as
    /// `writtenPages` is.
    package private(set) var fingerprints: PageFingerprints?
    /// Where the bytes start; stays put for the block's life (it never grows in place).
    public let base: UnsafeMutablePointer<UInt8>
    public let capacity: Int

    /// A block of at least `capacity` bytes, uninitialized. Any spare that holds them is taken:
    /// a block too large is either read into while a file is rewritten (and dropped when the
    /// read finds half a file) or the rare revision of a file that shrank by more than a quarter.
    /// Tuned, blocks of 1 MiB or more are mappings: from malloc, the blocks of half-written files
    /// that a reader meets (any size) stayed in glibc's heaps and the resident size grew by steps.
    public init(capacity: Int) {
        let memory = RecycledMemory<UInt8>(capacity: capacity, waste: 1, mappedFrom: 1 << 20)
        (self.memory, release, base, self.capacity, sharedPages) = (memory, nil, memory.base, memory.capacity, nil)
    }

    /// The bytes of `pages` itself (a revision written into it), or `mapping`, a copy-on-write
    /// mapping of it (a later revision), unmapped when the block goes.
    package init(sharing pages: SharedPages, mapping: UnsafeMutablePointer<UInt8>? = nil) {
        (memory, sharedPages, capacity) = (nil, pages, pages.capacity)
        base = mapping ?? pages.base
        release = mapping.map { mapped in
            let address = UInt(bitPattern: mapped), bytes = pages.capacity
            return { Posix.unmap(UnsafeMutableRawPointer(bitPattern: address)!, bytes) }
        }
    }

    /// The `count` bytes at `base`, which someone else owns (a file's mapping, which the
    /// owner must keep unchanged): `release` gives them back when the block goes.
    public init(lent base: UnsafeRawPointer, count: Int, release: @escaping @Sendable () -> Void) {
        (memory, self.release, sharedPages) = (nil, release, nil)
        self.base = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        capacity = count
    }

    /// Records the pages a read wrote into this block, a copy-on-write mapping (`writtenPages`).
    package func noteWritten(_ pages: PageSet) { writtenPages = pages }

    /// Records the fingerprints of this block's pages (`fingerprints`), when every one is known.
    package func noteFingerprints(_ prints: PageFingerprints?) {
        fingerprints = prints?.complete.load(ordering: .relaxed) == true ? prints : nil
    }

    /// Whether the block's memory is kept as a spare when it goes (`RecycledMemory`).
    private var keepsSpare = true

    /// Gives the memory back when the block goes instead of keeping it as a spare: a block sized
    /// for a half-written file fits no later revision, and held up to 15 MB while a large file
    /// was followed.
    package func keepsNoSpare() { keepsSpare = false }

    deinit {
        if keepsSpare { memory?.releaseKeepingSpare() } else { memory?.release() }
        release?()
    }
}

/// A document's bytes in pieces, each contiguous in memory, cut only between tokens: a string,
/// number or literal lies in one piece. The way a revision of a large file that an edit made
/// longer or shorter can share the last revision's memory on both sides of the edit
/// (docs/engine/gigabyte.md, "A plan"); so far only tests make them, to hold every reader to it.
public final class BytePieces: @unchecked Sendable {
    // @unchecked: immutable after init, and so are the bytes of the blocks that the pieces cover.
    /// Where each piece starts in the document, ascending from 0.
    @usableFromInline let starts: [Int]
    /// Each piece's first byte.
    @usableFromInline let bases: [UnsafePointer<UInt8>]
    /// How many bytes in all.
    public let count: Int
    /// The memory the pieces lie in, kept while they are.
    private let blocks: [ByteBlock]

    /// The bytes `parts` hold, one after another: each the `count` bytes of `block` from `offset`.
    /// - Precondition: no token is cut (not checked: a reader would see a token in two pieces).
    public init(_ parts: [(block: ByteBlock, offset: Int, count: Int)]) {
        var starts: [Int] = [], bases: [UnsafePointer<UInt8>] = [], at = 0
        for part in parts where part.count != 0 {
            precondition(part.offset >= 0 && part.count > 0 && part.offset + part.count <= part.block.capacity, "a piece outside its block")
            starts.append(at)
            bases.append(UnsafePointer(part.block.base + part.offset))
            at += part.count
        }
        (self.starts, self.bases, count, blocks) = (starts, bases, at, parts.map(\.block))
    }

    /// The index of the piece holding byte `offset`.
    @usableFromInline
    func piece(holding offset: Int) -> Int {
        precondition(offset >= 0 && offset < count, "byte index out of range")
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// Where byte `offset` lies.
    @usableFromInline
    func address(of offset: Int) -> UnsafePointer<UInt8> {
        let k = piece(holding: offset)
        return bases[k] + (offset - starts[k])
    }

    /// The piece holding byte `offset`: its bytes, and where it starts in the document.
    @usableFromInline
    func run(holding offset: Int) -> (bytes: UnsafeBufferPointer<UInt8>, start: Int) {
        let k = piece(holding: offset)
        let end = k + 1 < starts.count ? starts[k + 1] : count
        return (UnsafeBufferPointer(start: bases[k], count: end - starts[k]), starts[k])
    }

    /// Calls `body` with the bytes in `range`: in place when one piece holds them, else copied.
    @usableFromInline
    func withBytes<R, E: Error>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "byte range out of range")
        guard !range.isEmpty else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        let (run, start) = run(holding: range.lowerBound)
        if range.upperBound - start <= run.count {
            return try body(UnsafeBufferPointer(rebasing: run[(range.lowerBound - start)..<(range.upperBound - start)]))
        }
        var copy = [UInt8]()
        copy.reserveCapacity(range.count)
        var at = range.lowerBound
        while at < range.upperBound {
            let (run, start) = self.run(holding: at)
            let end = Swift.min(range.upperBound, start + run.count)
            copy.append(contentsOf: run[(at - start)..<(end - start)])
            at = end
        }
        return try copy.withUnsafeBufferPointer(body)
    }
}

/// A document's bytes: exactly as read or made, immutable while the document exists.
///
/// An array for documents made from one, the first `count` bytes of a `ByteBlock` (a large
/// file's revision read into recycled memory, or a JSON Lines list whose revisions share one
/// growing block), or pieces (`BytePieces`). `TapeReader` reads any of them in place; the
/// readers that need all the bytes as one buffer, `withUnsafeBufferPointer`, get pieces copied.
public struct DocumentBytes: RandomAccessCollection, Sendable {
    @usableFromInline enum Storage: Sendable {
        case array([UInt8])
        case block(ByteBlock)
        case pieces(BytePieces)
    }

    @usableFromInline let storage: Storage
    public let count: Int

    public init(_ array: [UInt8]) {
        storage = .array(array)
        count = array.count
    }

    /// The first `count` bytes of `block`, which must not change while these bytes exist.
    public init(block: ByteBlock, count: Int) {
        precondition(count <= block.capacity)
        storage = .block(block)
        self.count = count
    }

    /// The bytes of `pieces`, which must not change while these bytes exist.
    public init(pieces: BytePieces) {
        storage = .pieces(pieces)
        count = pieces.count
    }

    /// The pieces these bytes are held in, if they are not one buffer.
    @inlinable public var pieces: BytePieces? {
        if case .pieces(let p) = storage { return p }
        return nil
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inlinable
    public subscript(i: Int) -> UInt8 {
        precondition(i >= 0 && i < count, "byte index out of range")
        switch storage {
        case .array(let a): return a[i]
        case .block(let b): return b.base[i]
        case .pieces(let p): return p.address(of: i).pointee
        }
    }

    /// Calls `body` with the bytes; the pointer must not escape the call.
    @inlinable
    public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        switch storage {
        case .array(let a):
            return try a.withUnsafeBufferPointer(body)
        case .block(let b):
            defer { withExtendedLifetime(b) {} }
            return try body(UnsafeBufferPointer(start: b.base, count: count))
        case .pieces(let p):
            return try p.withBytes(0..<count, body)
        }
    }

    /// nil for pieces: a slice's bytes are then read one by one, not all copied for each slice.
    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        if pieces != nil { return nil }
        return try withUnsafeBufferPointer { p -> R in try body(p) }
    }

    /// Calls `body` with the bytes as raw memory; the pointer must not escape the call.
    @inlinable
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBufferPointer { (p) throws(E) in try body(UnsafeRawBufferPointer(p)) }
    }

    /// The memory file these bytes share pages with, if any (`ByteBlock.sharedPages`).
    package var sharedPages: SharedPages? {
        if case .block(let b) = storage { return b.sharedPages }
        return nil
    }

    /// The pages these bytes wrote over their memory file's, if they are a copy-on-write
    /// mapping of one (`ByteBlock.writtenPages`).
    package var writtenPages: PageSet? {
        if case .block(let b) = storage { return b.writtenPages }
        return nil
    }

    /// The fingerprints of these bytes' pages, if a read computed them (`ByteBlock.fingerprints`).
    package var fingerprints: PageFingerprints? {
        if case .block(let b) = storage { return b.fingerprints }
        return nil
    }

    /// The bytes as an array (a copy, unless they are one).
    public var array: [UInt8] {
        switch storage {
        case .array(let a): return a
        case .block, .pieces: return withUnsafeBufferPointer { Array($0) }
        }
    }

    /// The bytes in `range`, copied.
    public func copy(_ range: Range<Int>) -> [UInt8] {
        withUnsafeBufferPointer { Array($0[range]) }
    }

    /// How many leading bytes these bytes and `other` share, and how many trailing bytes (at
    /// most the rest of the shorter of the two): what an edit left unchanged.
    /// - Complexity: O(bytes shared), a page at a time (`memcmp`).
    public func sharedEnds(with other: DocumentBytes) -> (prefix: Int, suffix: Int) {
        withUnsafeBufferPointer { a in
            other.withUnsafeBufferPointer { b in
                let n = Swift.min(a.count, b.count)
                guard n > 0 else { return (0, 0) }
                let pa = a.baseAddress!, pb = b.baseAddress!
                let page = 4096
                var prefix = 0
                while prefix + page <= n && memcmp(pa + prefix, pb + prefix, page) == 0 { prefix += page }
                while prefix < n && pa[prefix] == pb[prefix] { prefix += 1 }
                let limit = n - prefix, ea = pa + a.count, eb = pb + b.count
                var suffix = 0
                while suffix + page <= limit && memcmp(ea - suffix - page, eb - suffix - page, page) == 0 { suffix += page }
                while suffix < limit && ea[-suffix - 1] == eb[-suffix - 1] { suffix += 1 }
                return (prefix, suffix)
            }
        }
    }
}

extension DocumentBytes: Equatable {
    public static func == (a: DocumentBytes, b: DocumentBytes) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in a.count == 0 || bytesEqual(pa.baseAddress!, pb.baseAddress!, a.count) }
        }
    }
}
