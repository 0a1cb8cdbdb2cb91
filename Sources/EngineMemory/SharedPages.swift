// A large file's revisions sharing the pages they have in common (tuned: `recycledMappings`).
//
// A file followed edit by edit changes in a few pages at a time, yet each revision needs all of
// its bytes, contiguous and unchanged while any reader holds them. Copied whole, two revisions
// are alive during every read (150 MB more for a 150 MB file), and a spare kept to spare the
// kernel zeroing fresh memory costs as much again between reads. Instead, a revision's bytes
// are written once into a memory file, and the next revision of the same length is a private
// mapping of that file with only the pages that differ written (each write copies its page):
// the file is held once, plus the pages the edits since it was written touched.
// docs/engine/recycled-mappings.md has the figures.
#if canImport(Glibc)
import Glibc
#endif

/// A memory file holding one revision's bytes, mapped shared (that revision's own bytes) and
/// lent, copy-on-write, to later revisions that differ from it in a few pages.
package final class SharedPages: @unchecked Sendable {
    // @unchecked: `base` is written only while the first revision is read, before any other
    // thread sees these pages; after that, never.
    /// The file's bytes, mapped shared and writable: the first revision's bytes, written as it is read.
    package let base: UnsafeMutablePointer<UInt8>
    /// Bytes (whole pages).
    package let capacity: Int
    private let fd: Int32

    /// A memory file of at least `capacity` bytes, mapped; its pages take memory once written.
    package init(capacity: Int) throws(PosixError) {
        let bytes = Posix.wholePages(max(1, capacity))
        fd = try Posix.memoryFile(bytes)
        do {
            base = try Posix.mapFile(fd, bytes, shared: true).assumingMemoryBound(to: UInt8.self)
        } catch {
            close(fd)
            throw error
        }
        self.capacity = bytes
    }

    deinit {
        Posix.unmap(UnsafeMutableRawPointer(base), capacity)
        close(fd)
    }

    /// A private mapping of the whole file: it reads the file's bytes until a write, which
    /// copies the page written. The caller unmaps it (`capacity` bytes) and keeps this file
    /// alive while it is mapped.
    package func copyOnWrite() throws(PosixError) -> UnsafeMutablePointer<UInt8> {
        try Posix.mapFile(fd, capacity, shared: false).assumingMemoryBound(to: UInt8.self)
    }
}

/// Writes `new` (bytes `offset..<offset + new.count` of a revision) into `target`, a
/// copy-on-write mapping of `base` at the same offsets, page by page where it differs from
/// `base`: pages left alone stay shared.
/// - Returns: how many pieces (each within one page) were written.
package func writeDifferingPages(_ new: UnsafeRawBufferPointer, at offset: Int, into target: UnsafeMutablePointer<UInt8>,
                                 over base: UnsafePointer<UInt8>) -> Int {
    guard let source = new.baseAddress else { return 0 }
    let page = Posix.pageSize
    var written = 0, at = 0
    while at < new.count {
        let end = min(new.count, (offset + at) / page * page + page - offset)
        if memcmp(source + at, base + offset + at, end - at) != 0 {
            (target + offset + at).update(from: source.assumingMemoryBound(to: UInt8.self) + at, count: end - at)
            written += 1
        }
        at = end
    }
    return written
}
