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
    /// - Parameter waste: a spare is taken only where at most this part of it is left over
    ///   (a block kept long, as a piece of later revisions, takes one that nearly fits).
    public init(capacity: Int, waste: Double = 1) {
        let memory = RecycledMemory<UInt8>(capacity: capacity, waste: waste, mappedFrom: 1 << 20)
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

/// The `count` bytes of `block` from `offset`: one piece of a document's bytes (`BytePieces`).
public struct BytePart {
    public let block: ByteBlock
    public let offset: Int
    public let count: Int

    public init(block: ByteBlock, offset: Int, count: Int) {
        (self.block, self.offset, self.count) = (block, offset, count)
    }

    /// The bytes of `blocks`, each counted once: what pieces in them keep in memory.
    public static func keptBytes(_ blocks: [ByteBlock]) -> Int {
        var seen = Set<ObjectIdentifier>(), total = 0
        for block in blocks where seen.insert(ObjectIdentifier(block)).inserted { total += block.capacity }
        return total
    }
}

/// A document's bytes in pieces, each contiguous in memory, cut only between tokens: a string,
/// number or literal lies in one piece. How a large file's revision after an edit inside one
/// container shares the last revision's memory on both sides of the edit (FileStore's
/// `readSharing`; docs/engine/gigabyte.md, "Step 3").
public final class BytePieces: @unchecked Sendable {
    // @unchecked: immutable after init, and so are the bytes of the blocks that the pieces cover.
    /// Where each piece starts in the document, ascending from 0.
    @usableFromInline let starts: [Int]
    /// Each piece's first byte.
    @usableFromInline let bases: [UnsafePointer<UInt8>]
    /// How many bytes in all.
    public let count: Int
    /// The memory each piece lies in, kept while the pieces are.
    private let blocks: [ByteBlock]

    /// The bytes `parts` hold, one after another: each the `count` bytes of `block` from `offset`.
    /// - Precondition: no token is cut (not checked: a reader would see a token in two pieces).
    public init(_ parts: [BytePart]) {
        var starts: [Int] = [], bases: [UnsafePointer<UInt8>] = [], blocks: [ByteBlock] = [], at = 0
        for part in parts where part.count != 0 {
            precondition(part.offset >= 0 && part.count > 0 && part.offset + part.count <= part.block.capacity, "a piece outside its block")
            starts.append(at)
            bases.append(UnsafePointer(part.block.base + part.offset))
            blocks.append(part.block)
            at += part.count
        }
        (self.starts, self.bases, count, self.blocks) = (starts, bases, at, blocks)
    }

    /// How many pieces.
    public var pieceCount: Int { starts.count }

    /// The bytes of the blocks the pieces lie in, each block counted once: what the pieces keep.
    public var keptBytes: Int { BytePart.keptBytes(blocks) }

    /// The parts that hold the bytes in `range`, for pieces that share them.
    func parts(_ range: Range<Int>) -> [BytePart] {
        var parts: [BytePart] = [], at = range.lowerBound
        while at < range.upperBound {
            let k = piece(holding: at)
            let end = Swift.min(range.upperBound, k + 1 < starts.count ? starts[k + 1] : count)
            let offset = bases[k] + (at - starts[k]) - UnsafePointer(blocks[k].base)
            parts.append(BytePart(block: blocks[k], offset: offset, count: end - at))
            at = end
        }
        return parts
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

    /// The fingerprints of the block piece `k` lies in, if its read computed them, and where
    /// the piece starts in that block (`ByteBlock.fingerprints`).
    func prints(ofPiece k: Int) -> (prints: PageFingerprints?, blockOffset: Int) {
        (blocks[k].fingerprints, UnsafePointer(bases[k]) - UnsafePointer(blocks[k].base))
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

    /// Calls `body` with a function that gives the contiguous run of bytes holding a byte (the
    /// whole buffer, or the piece), and where the run starts; valid for the call.
    func withRuns<R>(_ body: ((Int) -> (bytes: UnsafeBufferPointer<UInt8>, start: Int)) -> R) -> R {
        if let p = pieces { return body { p.run(holding: $0) } }
        return withUnsafeBufferPointer { all in body { _ in (all, 0) } }
    }

    /// `withRuns`, each run with the fingerprints of the block it lies in (when its read computed
    /// them) and where the run starts in that block.
    private func withPrintedRuns<R>(_ body: ((Int) -> Run) -> R) -> R {
        switch storage {
        case .array, .block:
            let prints = fingerprints
            return withUnsafeBufferPointer { all in body { _ in Run(bytes: all, start: 0, prints: prints, blockOffset: 0) } }
        case .pieces(let p):
            return body { offset in
                let k = p.piece(holding: offset)
                let (bytes, start) = p.run(holding: offset)
                let (prints, blockOffset) = p.prints(ofPiece: k)
                return Run(bytes: bytes, start: start, prints: prints, blockOffset: blockOffset)
            }
        }
    }

    /// A contiguous run of the bytes (`withPrintedRuns`).
    private struct Run {
        let bytes: UnsafeBufferPointer<UInt8>
        let start: Int
        let prints: PageFingerprints?
        let blockOffset: Int
    }

    /// Calls `body` with the bytes in `range`: in place, unless pieces hold them and the range
    /// crosses from one to the next (then copied for the call).
    @inlinable
    public func withBytes<R, E: Error>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "byte range out of range")
        if let p = pieces { return try p.withBytes(range, body) }
        return try withUnsafeBufferPointer { (all) throws(E) in try body(UnsafeBufferPointer(rebasing: all[range])) }
    }

    /// The parts that hold the bytes in `range`, for pieces that share them (`BytePieces`);
    /// nil for bytes in an array, which no piece can share.
    public func parts(_ range: Range<Int>) -> [BytePart]? {
        switch storage {
        case .array: return nil
        case .block(let b): return range.isEmpty ? [] : [BytePart(block: b, offset: range.lowerBound, count: range.count)]
        case .pieces(let p): return p.parts(range)
        }
    }

    /// How many leading bytes of `other` are these bytes from `offset` on (at most to their end).
    /// Where these bytes lie in a block whose pages have fingerprints, `other`'s bytes over each
    /// whole page are compared by fingerprint (read once, not beside the page: half the memory
    /// read), and byte by byte only in a page that differs.
    /// - Complexity: O(bytes matched), a page at a time (`memcmp`, or a fingerprint).
    public func matching(prefixOf other: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        let n = Swift.min(other.count, count - offset)
        guard n > 0 else { return 0 }
        return withPrintedRuns { runs in
            var done = 0
            while done < n {
                let run = runs(offset + done)
                let at = offset + done - run.start
                let step = Swift.min(n - done, run.bytes.count - at)
                let a = other.baseAddress! + done, b = run.bytes.baseAddress! + at
                let same = run.prints.map { matchingPrefix(a, b, step, prints: $0, blockOffset: run.blockOffset + at) }
                    ?? matchingPrefix(a, b, step)
                done += same
                if same < step { break }
            }
            return done
        }
    }

    /// How many trailing bytes of `other` are these bytes just before `end` (at most `end`);
    /// by fingerprint where `matching(prefixOf:at:)` compares by them.
    /// - Complexity: O(bytes matched), a page at a time (`memcmp`, or a fingerprint).
    public func matching(suffixOf other: UnsafeBufferPointer<UInt8>, endingAt end: Int) -> Int {
        let n = Swift.min(other.count, end)
        guard n > 0 else { return 0 }
        return withPrintedRuns { runs in
            var done = 0
            while done < n {
                let last = end - 1 - done
                let run = runs(last)
                let step = Swift.min(n - done, last - run.start + 1)
                let a = other.baseAddress! + (other.count - done), b = run.bytes.baseAddress! + (last - run.start + 1)
                let same = run.prints.map { matchingSuffix(a, b, step, prints: $0, blockEnd: run.blockOffset + last - run.start + 1) }
                    ?? matchingSuffix(a, b, step)
                done += same
                if same < step { break }
            }
            return done
        }
    }

    /// The bytes the memory these bytes lie in holds (each block once): what keeping them keeps.
    public var keptBytes: Int {
        switch storage {
        case .array(let a): return a.capacity
        case .block(let b): return b.capacity
        case .pieces(let p): return p.keptBytes
        }
    }

    /// How many leading bytes these bytes and `other` share, and how many trailing bytes (at
    /// most the rest of the shorter of the two): what an edit left unchanged.
    /// - Complexity: O(bytes shared), a page at a time (`memcmp`); pieces that lie in the same
    ///   memory as the other's bytes at the same place are not compared.
    public func sharedEnds(with other: DocumentBytes) -> (prefix: Int, suffix: Int) {
        let n = Swift.min(count, other.count)
        guard n > 0 else { return (0, 0) }
        return withRuns { runA in
            other.withRuns { runB in
                var prefix = 0
                while prefix < n {
                    let (a, sa) = runA(prefix), (b, sb) = runB(prefix)
                    let pa = a.baseAddress! + (prefix - sa), pb = b.baseAddress! + (prefix - sb)
                    let step = Swift.min(n - prefix, a.count - (prefix - sa), b.count - (prefix - sb))
                    let same = pa == pb ? step : matchingPrefix(pa, pb, step)
                    prefix += same
                    if same < step { break }
                }
                // Byte `count - 1 - k` here against `other.count - 1 - k`, for k below the limit.
                let limit = n - prefix
                var suffix = 0
                while suffix < limit {
                    let ia = count - 1 - suffix, ib = other.count - 1 - suffix
                    let (a, sa) = runA(ia), (b, sb) = runB(ib)
                    let step = Swift.min(limit - suffix, ia - sa + 1, ib - sb + 1)
                    let ea = a.baseAddress! + (ia - sa + 1), eb = b.baseAddress! + (ib - sb + 1)
                    let same = ea == eb ? step : matchingSuffix(ea, eb, step)
                    suffix += same
                    if same < step { break }
                }
                return (prefix, suffix)
            }
        }
    }
}

/// How many leading bytes `a` and `b` share, of `count`: a page at a time (`memcmp`), then
/// byte by byte in the page that differs.
package func matchingPrefix(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Int {
    let page = 4096
    var i = 0
    while i + page <= count && memcmp(a + i, b + i, page) == 0 { i += page }
    while i < count && a[i] == b[i] { i += 1 }
    return i
}

/// `matchingPrefix(a, b, count)` where `b` is at `blockOffset` in a block whose pages have the
/// fingerprints `prints`: each whole page of the block is compared by the fingerprint of `a`'s
/// bytes over it, and byte by byte only where they differ.
func matchingPrefix(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int, prints: PageFingerprints,
                    blockOffset: Int) -> Int {
    let page = Posix.pageSize, fingerprinter = PageFingerprints.Fingerprinter()
    // Up to the block's next page boundary, byte by byte.
    var i = Swift.min(count, (page - blockOffset % page) % page)
    if i > 0 {
        let same = matchingPrefix(a, b, i)
        if same < i { return same }
    }
    while i + page <= count {
        let k = (blockOffset + i) / page
        guard k < prints.count, PageFingerprints.same(fingerprinter.of(a + i, count: page), prints[k]) else { break }
        i += page
    }
    return i + matchingPrefix(a + i, b + i, count - i)
}

/// `matchingSuffix(aEnd, bEnd, count)` by fingerprint, as `matchingPrefix(_:_:_:prints:blockOffset:)`,
/// `bEnd` at `blockEnd` in the block.
func matchingSuffix(_ aEnd: UnsafePointer<UInt8>, _ bEnd: UnsafePointer<UInt8>, _ count: Int, prints: PageFingerprints,
                    blockEnd: Int) -> Int {
    let page = Posix.pageSize, fingerprinter = PageFingerprints.Fingerprinter()
    // Back to the block's last page boundary, byte by byte.
    var i = Swift.min(count, blockEnd % page)
    if i > 0 {
        let same = matchingSuffix(aEnd, bEnd, i)
        if same < i { return same }
    }
    let whole = i
    i += page * trailingMatchingPages(count - whole, page: page) { j in
        let back = whole + (j + 1) * page
        let k = (blockEnd - back) / page
        return k < prints.count && PageFingerprints.same(fingerprinter.of(aEnd - back, count: page), prints[k])
    }
    return i + matchingSuffix(aEnd - i, bEnd - i, count - i)
}

/// How many trailing bytes the `count` bytes before `aEnd` and before `bEnd` share.
func matchingSuffix(_ aEnd: UnsafePointer<UInt8>, _ bEnd: UnsafePointer<UInt8>, _ count: Int) -> Int {
    let page = 4096
    var i = page * trailingMatchingPages(count, page: page) { j in
        memcmp(aEnd - (j + 1) * page, bEnd - (j + 1) * page, page) == 0
    }
    while i < count && aEnd[-i - 1] == bEnd[-i - 1] { i += 1 }
    return i
}

/// How many of the whole pages at the end of `count` bytes match, counted back from the end up
/// to the first that does not (`matches(j)`: page `j` from the end, 0 the last). The last page
/// is tried alone (before an edit it differs at once), then groups of `trailingPageGroup` pages,
/// each in rising address order: the processor prefetches rising addresses, and a walk down
/// them page by page read memory about 1.6 × as slowly (docs/engine/gigabyte.md, "Step 4").
/// A group may test a few pages below the first that fails.
@inline(__always)
func trailingMatchingPages(_ count: Int, page: Int, _ matches: (Int) -> Bool) -> Int {
    let pages = count / page
    guard pages > 0, matches(0) else { return 0 }
    var done = 1
    while done < pages {
        let group = Swift.min(trailingPageGroup, pages - done)
        var failed = -1
        for j in stride(from: done + group - 1, through: done, by: -1) where !matches(j) { failed = j }
        if failed >= 0 { return failed }
        done += group
    }
    return pages
}

/// Pages tried together, in rising address order, by `trailingMatchingPages` (128 KiB).
let trailingPageGroup = 32

extension DocumentBytes: Equatable {
    public static func == (a: DocumentBytes, b: DocumentBytes) -> Bool {
        a.count == b.count && (a.pieces == nil && b.pieces == nil
            ? a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in a.count == 0 || bytesEqual(pa.baseAddress!, pb.baseAddress!, a.count) }
            }
            : a.sharedEnds(with: b).prefix == a.count)
    }
}
