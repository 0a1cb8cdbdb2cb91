// Memory for tapes. Small tapes come from malloc. Large ones are anonymous mappings with
// transparent huge pages asked for: a 1,000,000-child file has a 200 MB tape, and touching
// it 4 KiB page by page cost more than parsing it (800 ms of faults against a 180 ms re-parse).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A block of tape entries: where it is, how many entries fit, and how it was obtained.
struct TapeMemory {
    private(set) var base: UnsafeMutablePointer<TapeEntry>
    private(set) var capacity: Int
    /// Whether the block is a mapping (else malloc'd).
    private(set) var isMapped: Bool

    /// Blocks at least this large are mapped (2 MiB huge pages are worth it well below this).
    static let mappingThreshold = 8 << 20

    /// A block of at least `capacity` entries (one, at least), uninitialized.
    init(capacity: Int) {
        let bytes = max(1, capacity) * MemoryLayout<TapeEntry>.stride
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
