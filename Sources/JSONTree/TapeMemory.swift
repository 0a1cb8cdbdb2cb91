// Memory for tapes. Small tapes come from malloc. Large ones are anonymous mappings with
// transparent huge pages asked for: a 1,000,000-child file has a 200 MB tape, and touching
// it 4 KiB page by page cost more than parsing it (800 ms of faults against a 180 ms re-parse).
//
// A re-parsed tape's mapping is kept as a spare when its document goes (one at a time): a file
// followed edit by edit needs a tape of the same size for every revision, and taking the last
// one's pages again saves faulting and zeroing 150 MB per edit. The price is that much more
// resident memory while following. The spare is handed to the kernel with MADV_FREE, so it is
// reclaimed first under memory pressure.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The one spare mapping, shared by every document of the process.
private let spareMapping = Mutex<TapeMemory?>(nil)

/// A block of tape entries: where it is, how many entries fit, and how it was obtained.
/// Sendable because a block has one owner at a time (a tape, or the spare slot).
struct TapeMemory: @unchecked Sendable {
    private(set) var base: UnsafeMutablePointer<TapeEntry>
    private(set) var capacity: Int
    /// Whether the block is a mapping (else malloc'd).
    private(set) var isMapped: Bool

    /// Blocks at least this large are mapped (2 MiB huge pages are worth it well below this).
    static let mappingThreshold = 8 << 20

    /// A block of at least `capacity` entries (one, at least), uninitialized.
    init(capacity: Int) {
        let bytes = max(1, capacity) * MemoryLayout<TapeEntry>.stride
        if bytes >= TapeMemory.mappingThreshold, let spare = TapeMemory.takeSpare(fitting: max(1, capacity)) {
            self = spare
            return
        }
        if bytes >= TapeMemory.mappingThreshold, let mapped = TapeMemory.map(bytes) {
            base = mapped
            isMapped = true
        } else {
            base = malloc(bytes)!.assumingMemoryBound(to: TapeEntry.self)
            isMapped = false
        }
        self.capacity = max(1, capacity)
    }

    /// Resizes to `capacity` entries, keeping the first `min(old, new)` entries.
    mutating func resize(to capacity: Int) {
        if isMapped {
            // (mremap is variadic in C, so Swift cannot call it: map anew and copy.)
            let bigger = TapeMemory(capacity: capacity)
            bigger.base.update(from: base, count: min(self.capacity, bigger.capacity))
            release()
            self = bigger
        } else {
            base = realloc(base, max(1, capacity) * MemoryLayout<TapeEntry>.stride)!.assumingMemoryBound(to: TapeEntry.self)
            self.capacity = max(1, capacity)
        }
    }

    /// Gives back the room past the first `capacity` entries: a mapping's pages past them are
    /// unmapped where they are (no copy, so no second tape while shrinking).
    mutating func shrink(to capacity: Int) {
        let keep = max(1, capacity)
        guard keep < self.capacity else { return }
        guard isMapped else { return resize(to: keep) }
        let stride = MemoryLayout<TapeEntry>.stride
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (keep * stride + page - 1) / page * page
        let end = self.capacity * stride
        if start < end { munmap(UnsafeMutableRawPointer(base) + start, end - start) }
        // What remains mapped: whole pages up to `start`.
        self.capacity = start / stride
    }

    /// Gives the block back; a mapping may be kept as the spare for the next tape.
    func releaseKeepingSpare() {
        guard isMapped else { return free(base) }
        #if canImport(Glibc)
        _ = madvise(base, capacity * MemoryLayout<TapeEntry>.stride, MADV_FREE)
        #endif
        let previous = spareMapping.withLock { spare -> TapeMemory? in
            // The larger of the two is kept: it fits the next tape of this size or less.
            if let current = spare, current.capacity >= capacity { return self }
            defer { spare = self }
            return spare
        }
        previous?.release()
    }

    /// The spare mapping when it holds `capacity` entries without wasting more than a quarter.
    private static func takeSpare(fitting capacity: Int) -> TapeMemory? {
        spareMapping.withLock { spare in
            guard let block = spare, block.capacity >= capacity, block.capacity - capacity <= block.capacity / 4 else {
                return nil
            }
            spare = nil
            return block
        }
    }

    func release() {
        if isMapped {
            munmap(base, capacity * MemoryLayout<TapeEntry>.stride)
        } else {
            free(base)
        }
    }

    private static func map(_ bytes: Int) -> UnsafeMutablePointer<TapeEntry>? {
        #if canImport(Glibc)
        guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
            return nil
        }
        _ = madvise(p, bytes, MADV_HUGEPAGE)
        return p.assumingMemoryBound(to: TapeEntry.self)
        #else
        return nil
        #endif
    }
}
