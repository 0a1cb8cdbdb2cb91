// Memory for tapes, for the bytes of large files' revisions, and for the synced lists' child
// lists (LiveQuery's `OrdinalBuffer`): blocks that are allocated, grown, shrunk, recycled and
// given back. Under `EngineTuning.plain` a block comes from malloc, or from 8 MiB is a mapping
// of its own, never kept.
//
// Tuned (`recycledMappings`), large blocks are anonymous mappings with transparent huge pages
// asked for: a 1,000,000-child file has a tape of over 100 MB, and touching it 4 KiB page by
// page cost more than parsing it (800 ms of faults against a 180 ms re-parse). A revision's
// mapping is kept as a spare when its document goes (one of each element type: a revision's
// bytes and its tape): a file followed edit by edit needs blocks of the same sizes for every
// revision, and taking the last ones' pages again saves the kernel faulting and zeroing 150 MB
// of bytes and 110 MB of tape per edit (zeroing alone was 40 % of a revision's time). The price
// is that much more resident memory while following. A spare is not given to the kernel with
// MADV_FREE: on huge pages that frees them at once, and the zeroing comes back. (A large file's
// bytes no longer come from here: its revisions share a memory file's pages, `SharedPages`,
// which holds them once, where a spare held them twice: docs/engine/shared-pages.md.)
// docs/engine/recycled-mappings.md has the figures.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A mapping no block owns, ready to be taken again: its address and size in bytes, and the
/// element type of the block that gave it back.
struct SpareMapping: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let bytes: Int
    let kind: ObjectIdentifier
}

/// The spare mappings a process keeps: at most one of each element type, `limit` in all.
///
/// One of each: a follower needs one for its next revision's bytes and one for its tape. A
/// second spare of bytes, left when three revisions' bytes were alive for a moment, was kept
/// for good: 150 MB more resident for the rest of a session following a 150 MB file, from
/// whenever that moment came.
struct SparePool {
    private(set) var spares: [SpareMapping] = []
    let limit: Int
    /// The largest spare kept (bytes).
    var largest = largestSpare

    /// Keeps `spare`; returns what is no longer kept (to be unmapped): `spare` itself when it is
    /// larger than `largest`, the smaller of two of one element type, or the smallest of all
    /// past the limit (the larger ones fit the next blocks of their size or less).
    mutating func keep(_ spare: SpareMapping) -> SpareMapping? {
        defer { checkInvariants() }
        guard spare.bytes <= largest else { return spare }
        if let same = spares.firstIndex(where: { $0.kind == spare.kind }) {
            guard spares[same].bytes < spare.bytes else { return spare }
            defer { spares[same] = spare }
            return spares[same]
        }
        spares.append(spare)
        guard spares.count > limit else { return nil }
        return spares.remove(at: spares.indices.min { spares[$0].bytes < spares[$1].bytes }!)
    }

    /// Takes a spare that holds `bytes` without wasting more than `waste` of it: the one of
    /// `kind` where it fits (a revision's bytes read short of a file's end must not take the
    /// tape's spare, which one of bytes would then replace), else the smallest.
    mutating func take(fitting bytes: Int, waste: Double, kind: ObjectIdentifier) -> SpareMapping? {
        defer { checkInvariants() }
        let fitting = spares.indices.filter {
            spares[$0].bytes >= bytes && Double(spares[$0].bytes - bytes) <= Double(spares[$0].bytes) * waste
        }
        let best = fitting.first { spares[$0].kind == kind } ?? fitting.min { spares[$0].bytes < spares[$1].bytes }
        return best.map { spares.remove(at: $0) }
    }

    /// Debug builds: at most `limit` spares, one of each element type, each whole pages at a
    /// page boundary.
    func checkInvariants() {
        #if DEBUG
        precondition(spares.count <= limit, "\(spares.count) spares, limit \(limit)")
        precondition(Set(spares.map(\.kind)).count == spares.count, "two spares of one element type")
        for spare in spares {
            precondition(Int(bitPattern: spare.base) % Posix.pageSize == 0 && spare.bytes > 0
                && spare.bytes % Posix.pageSize == 0, "a spare of part pages: \(spare.bytes) bytes at \(spare.base)")
        }
        #endif
    }
}

/// The largest mapping kept as a spare (`SparePool.largest`). A spare is held memory bought for speed: following a
/// 1 GB file whose edits change its length, the spare tape (0.8 GB) took the follower from 1.84 ×
/// the file to 2.56 ×, over the 2 × it may hold (docs/engine/gigabyte.md). A 150 MB file's tape
/// (110 MB) is still kept.
let largestSpare = 256 << 20

/// The spare mappings, shared by every document of the process.
private let spareMappings = Mutex(SparePool(limit: 2))

/// A block of `Element`s: where it is, how many fit, and how it was obtained.
/// Sendable because a block has one owner at a time (a tape, a document's bytes, a spare slot).
package struct RecycledMemory<Element>: @unchecked Sendable {
    package private(set) var base: UnsafeMutablePointer<Element>
    package private(set) var capacity: Int
    /// Whether the block is a mapping (else malloc'd).
    package private(set) var isMapped: Bool
    /// Whether a mapping is kept as a spare when released (`EngineTuning.recycledMappings`).
    private let recycles: Bool

    /// Blocks at least this large are mapped: tuned, with huge pages (worth it well below this)
    /// unless a smaller `mappedFrom` is asked for; plain, as mappings of their own.
    package static var mappingThreshold: Int { 8 << 20 }

    /// A block of at least `capacity` elements (one, at least), uninitialized: a spare's old
    /// contents, or zeroes. With `tuning.recycledMappings`, blocks of `mappedFrom` bytes or
    /// more are mappings with huge pages asked for, and a spare is taken when it wastes at most
    /// `waste` of itself. Without, blocks of `mappingThreshold` bytes or more are plain mappings
    /// of their own, given back when released: from malloc, freeing one moved glibc's threshold
    /// for mapping above the next blocks, which then stayed in its heap when freed (a follower
    /// of a 150 MB file held 19 MB of freed blocks). Other blocks are malloc'd.
    package init(capacity: Int, waste: Double = 0.25, mappedFrom threshold: Int = mappingThreshold,
                 tuning: EngineTuning = .current) {
        let count = max(1, capacity)
        let bytes = count * MemoryLayout<Element>.stride
        recycles = tuning.recycledMappings
        if recycles ? bytes >= threshold : bytes >= Self.mappingThreshold {
            if recycles, let spare = spareMappings.withLock({ $0.take(fitting: bytes, waste: waste, kind: ObjectIdentifier(Element.self)) }) {
                (base, self.capacity, isMapped) = (spare.base.assumingMemoryBound(to: Element.self), spare.bytes / MemoryLayout<Element>.stride, true)
                checkInvariants()
                return
            }
            let pages = Posix.wholePages(bytes)
            if let mapped = try? Posix.mapAnonymous(pages) {
                if recycles { Posix.adviseHugePages(mapped, pages) }
                // The whole mapping, so that a block of another element type (each divides a page)
                // taking it as a spare covers every page of it too: a byte block 1–7 bytes into its
                // last page once lost that page to a tape, whose size in entries rounded down.
                (base, self.capacity, isMapped) = (mapped.assumingMemoryBound(to: Element.self), pages / MemoryLayout<Element>.stride, true)
                checkInvariants()
                return
            }
        }
        base = malloc(bytes)!.assumingMemoryBound(to: Element.self)
        isMapped = false
        self.capacity = count
    }

    private var byteCount: Int { capacity * MemoryLayout<Element>.stride }

    /// Resizes to `capacity` elements, keeping the first `min(old, new)`.
    package mutating func resize(to capacity: Int) {
        if isMapped {
            // A mapping grows into a new one (moving the pages would need room after it).
            let bigger = RecycledMemory(capacity: capacity, tuning: recycles ? .tuned : .plain)
            bigger.base.update(from: base, count: min(self.capacity, bigger.capacity))
            release()
            self = bigger
        } else {
            base = realloc(base, max(1, capacity) * MemoryLayout<Element>.stride)!.assumingMemoryBound(to: Element.self)
            self.capacity = max(1, capacity)
        }
        checkInvariants()
    }

    /// Gives back the room past the first `capacity` elements: a mapping's pages past them are
    /// unmapped where they are (no copy, so no second block while shrinking).
    package mutating func shrink(to capacity: Int) {
        let keep = max(1, capacity)
        guard keep < self.capacity else { return }
        guard isMapped else { return resize(to: keep) }
        let stride = MemoryLayout<Element>.stride
        let start = Posix.wholePages(keep * stride)
        let end = Posix.wholePages(byteCount)
        if start < end { Posix.unmap(UnsafeMutableRawPointer(base) + start, end - start) }
        // What remains mapped: whole pages up to `start`.
        self.capacity = start / stride
        checkInvariants()
    }

    /// Gives back a mapping's pages that lie wholly within elements `range` (they read as
    /// zeroes after). Nothing for a malloc'd block.
    ///
    /// The huge pages the range touches are kept small from then on (`MADV_NOHUGEPAGE`):
    /// khugepaged makes a whole huge page again of any 2 MiB with one page of it present, so
    /// the end of a list whose room past it was given back came back as 2 MiB, at a random
    /// moment (the viewer following a 150 MB file grew by 1.9 MB at some edit in most runs).
    package func discardPages(_ range: Range<Int>) {
        guard isMapped else { return }
        precondition(range.lowerBound >= 0 && range.upperBound <= capacity, "pages outside the block")
        let stride = MemoryLayout<Element>.stride, page = Posix.pageSize
        let (first, last) = ((range.lowerBound * stride + page - 1) / page * page, range.upperBound * stride / page * page)
        guard first < last else { return }
        let start = UnsafeMutableRawPointer(base)
        // Anonymous private pages can always be given back: a failure is a wrong range.
        do { try Posix.advise(start + first, last - first, .dontNeed) } catch { preconditionFailure("\(error)") }
        let huge = Posix.hugePageSize, address = Int(bitPattern: start)
        let from = max(0, (address + first) / huge * huge - address)
        let to = min(byteCount / page * page, ((address + last + huge - 1) / huge * huge) - address)
        // Where huge pages are off, the pages are small anyway.
        do { try Posix.advise(start + from, to - from, .noHugePage) } catch { return }
    }

    /// Moves the pages holding the first `count` elements of `other` into this block, without
    /// a copy, to the first place at or after element `index` whose offset within a 2 MiB page
    /// is theirs (so that huge pages move whole): at most 2 MiB past it. Pages of this block
    /// there are replaced; the rest of `other` is unmapped.
    /// - Returns: where `other`'s first element now is, and `other` is given back; nil when
    ///   either block is not a mapping or there is no room, and then nothing has changed.
    package func moveIn(_ other: RecycledMemory, count: Int, after index: Int) -> UnsafeMutablePointer<Element>? {
        guard isMapped, other.isMapped, count > 0 else { return nil }
        let page = UInt(Posix.pageSize), huge = UInt(Posix.hugePageSize)
        let stride = UInt(MemoryLayout<Element>.stride)
        let source = UInt(bitPattern: other.base), bytes = (UInt(count) * stride + page - 1) / page * page
        let least = UInt(bitPattern: base + index), offset = source % huge
        guard least >= offset else { return nil }
        let to = (least - offset + huge - 1) / huge * huge + offset
        guard to + bytes <= UInt(bitPattern: base) + UInt(byteCount),
              (try? Posix.movePages(from: UnsafeMutableRawPointer(other.base), Int(bytes), to: UnsafeMutableRawPointer(bitPattern: to)!)) != nil
        else { return nil }
        let mapped = UInt(Posix.wholePages(other.byteCount))
        if mapped > bytes { Posix.unmap(UnsafeMutableRawPointer(bitPattern: source + bytes)!, Int(mapped - bytes)) }
        return UnsafeMutablePointer(bitPattern: to)
    }

    /// Whether `releaseKeepingSpare` offers the block to the spares (`SparePool.keep` decides
    /// whether it stays): a mapping of a block that recycles.
    package var offersSpare: Bool { isMapped && recycles }

    /// Gives the block back; a mapping is kept as a spare for the next block of its size
    /// (`SparePool`).
    package func releaseKeepingSpare() {
        guard offersSpare else { return release() }
        Self.keepSpare(mapping: UnsafeMutableRawPointer(base), bytes: Posix.wholePages(byteCount))
    }

    /// Keeps `bytes` at `base`, an anonymous read-write mapping of whole pages made elsewhere,
    /// as a spare for the next block of this element type (or unmaps it, `SparePool.keep`).
    package static func keepSpare(mapping base: UnsafeMutableRawPointer, bytes: Int) {
        let spare = SpareMapping(base: base, bytes: bytes, kind: ObjectIdentifier(Element.self))
        if let dropped = spareMappings.withLock({ $0.keep(spare) }) { Posix.unmap(dropped.base, dropped.bytes) }
    }

    /// Gives the block back.
    package func release() {
        if isMapped {
            Posix.unmap(UnsafeMutableRawPointer(base), Posix.wholePages(byteCount))
        } else {
            free(base)
        }
    }

    /// Debug builds: a mapping starts on a page and its capacity covers whole pages but for
    /// less than one element.
    package func checkInvariants() {
        #if DEBUG
        guard isMapped else { return precondition(capacity >= 1, "an empty block") }
        let stride = MemoryLayout<Element>.stride
        precondition(Int(bitPattern: base) % Posix.pageSize == 0, "a mapping off a page boundary")
        precondition(Posix.wholePages(byteCount) - byteCount < stride, "a mapping's capacity short of its pages")
        #endif
    }
}

/// The spare mappings kept now (tests: `SparePool`'s invariants hold between blocks).
package func checkSpareInvariants() {
    spareMappings.withLock { $0.checkInvariants() }
}
