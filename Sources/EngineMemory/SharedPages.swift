// A large file's revisions sharing the pages they have in common (plain and tuned alike: a
// memory file and its mappings are the store's own, nothing process-wide).
//
// A file followed edit by edit changes in a few pages at a time, yet each revision needs all of
// its bytes, contiguous and unchanged while any reader holds them. Copied whole, two revisions
// are alive during every read (150 MB more for a 150 MB file), and a spare kept to spare the
// kernel zeroing fresh memory costs as much again between reads. Instead, a revision's bytes
// are written once into a memory file, and the next revision of the same length is a private
// mapping of that file with only the pages that differ written (each write copies its page):
// the file is held once, plus the pages the edits since it was written touched.
// docs/engine/shared-pages.md and docs/engine/one-comparison.md have the figures.
#if canImport(Glibc)
import Glibc
#endif

/// A memory file holding one revision's bytes, mapped shared (that revision's own bytes) and
/// lent, copy-on-write, to later revisions that differ from it in a few pages. Split in two
/// files where two threads write it (`split`): two threads writing one file take turns on its
/// lock, and each file has its own (docs/engine/gigabyte.md, "Two memory files").
package final class SharedPages: @unchecked Sendable {
    // @unchecked: `base` is written only while the first revision is read, before any other
    // thread sees these pages; after that, never.
    /// The file's bytes, mapped shared and writable: the first revision's bytes, written as it is read.
    package let base: UnsafeMutablePointer<UInt8>
    /// Bytes (whole pages).
    package let capacity: Int
    /// The memory files, in order, and the offset of each one's first byte: one, or two.
    private let files: [(fd: Int32, start: Int)]

    /// Memory of at least `capacity` bytes in one memory file, mapped; its pages take memory
    /// once written. With `split` (whole pages, inside the capacity), in two files: the bytes
    /// before it, and those from it on, for two threads writing a half each.
    package init(capacity: Int, split: Int? = nil) throws(PosixError) {
        let bytes = Posix.wholePages(max(1, capacity))
        let starts = split.map { [0, $0] } ?? [0]
        precondition(split.map { $0 > 0 && $0 < bytes && $0 % Posix.pageSize == 0 } ?? true, "a split outside the memory file")
        var files: [(fd: Int32, start: Int)] = []
        do {
            for (k, start) in starts.enumerated() {
                files.append((try Posix.memoryFile((k + 1 < starts.count ? starts[k + 1] : bytes) - start), start))
            }
            base = try Self.map(files, bytes, shared: true).assumingMemoryBound(to: UInt8.self)
        } catch {
            for file in files { close(file.fd) }
            throw error
        }
        (self.capacity, self.files) = (bytes, files)
    }

    deinit {
        Posix.unmap(UnsafeMutableRawPointer(base), capacity)
        for file in files { close(file.fd) }
    }

    /// The files mapped one after another, `bytes` in all: one mapping, or reserved addresses
    /// with each file mapped in its place.
    private static func map(_ files: [(fd: Int32, start: Int)], _ bytes: Int, shared: Bool) throws(PosixError) -> UnsafeMutableRawPointer {
        guard files.count > 1 else { return try Posix.mapFile(files[0].fd, bytes, shared: shared) }
        let base = try Posix.reserveAddresses(bytes)
        do {
            for (k, file) in files.enumerated() {
                let end = k + 1 < files.count ? files[k + 1].start : bytes
                _ = try Posix.mapFile(file.fd, end - file.start, shared: shared, at: base + file.start)
            }
        } catch {
            Posix.unmap(base, bytes)
            throw error
        }
        return base
    }

    /// Writes `count` bytes from `bytes` into the files at `offset` with `pwrite`, then maps the
    /// pages written at `base` (so that the held memory counts them and no read faults on them).
    /// Copying into the mapping instead faults each fresh page and has the kernel zero it first:
    /// a write of whole pages takes them unzeroed, and was a third cheaper for a 1 GB revision
    /// (docs/engine/gigabyte.md).
    /// - Throws: the `pwrite` failure (EFAULT for a source page that is gone); the bytes
    ///   written before it stay written.
    /// - Precondition: `offset + count` ≤ `capacity`; only while the first revision is read.
    package func write(_ bytes: UnsafeRawPointer, count: Int, at offset: Int) throws(PosixError) {
        precondition(offset >= 0 && count >= 0 && offset + count <= capacity, "a write outside the memory file")
        let written = try inFiles(offset, count) { (fd, at, length, done) throws(PosixError) in
            try Posix.retrying("pwrite") { pwrite(fd, bytes + done, length, at) }
        }
        if written < count { throw PosixError(call: "pwrite", errno: ENOSPC) }
        mapWritten(offset, count)
    }

    /// Copies up to `count` bytes of the file open as `source`, from `offset`, into the files at
    /// the same offset, then maps them as `write` does: how many it copied (fewer only at the
    /// end of `source`). One copy, in the kernel (`sendfile`), where a read into a buffer and a
    /// `write` from it are two.
    /// - Precondition: as `write`'s; one thread at a time in each file (it moves the file's offset).
    package func copy(from source: Int32, count: Int, at offset: Int) throws(PosixError) -> Int {
        precondition(offset >= 0 && count >= 0 && offset + count <= capacity, "a copy outside the memory file")
        let copied = try inFiles(offset, count) { (fd, at, length, done) throws(PosixError) in
            guard lseek(fd, at, SEEK_SET) >= 0 else { throw PosixError(call: "lseek", errno: errno) }
            var from = off_t(offset + done)
            return try Posix.retrying("sendfile") { sendfile(fd, source, &from, length) }
        }
        mapWritten(offset, copied)
        return copied
    }

    /// Moves `count` bytes at `offset` in runs that each lie in one file: `move(fd, offset in
    /// that file, length, bytes moved before)` moves some of a run and says how many. Stops at
    /// the end or at a move of none: how many were moved.
    private func inFiles(_ offset: Int, _ count: Int,
                         _ move: (Int32, off_t, Int, Int) throws(PosixError) -> Int) throws(PosixError) -> Int {
        var done = 0
        while done < count {
            let at = offset + done
            let file = files.last { $0.start <= at }!
            let end = files.first { $0.start > at }?.start ?? capacity
            let n = try move(file.fd, off_t(at - file.start), min(count - done, end - at), done)
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Maps the pages of `count` bytes written at `offset`, in one call (where the kernel
    /// cannot, older than 5.14, each page is mapped when first read).
    private func mapWritten(_ offset: Int, _ count: Int) {
        let first = offset / Posix.pageSize * Posix.pageSize, end = Posix.wholePages(offset + count)
        guard end > first else { return }
        do { try Posix.advise(UnsafeMutableRawPointer(base) + first, end - first, .populateRead) } catch { return }
    }

    /// A private mapping of the whole of the files: it reads their bytes until a write, which
    /// copies the page written. The caller unmaps it (`capacity` bytes) and keeps this object
    /// alive while it is mapped.
    package func copyOnWrite() throws(PosixError) -> UnsafeMutablePointer<UInt8> {
        try Self.map(files, capacity, shared: false).assumingMemoryBound(to: UInt8.self)
    }
}

/// Which pages of a copy-on-write mapping of a `SharedPages` a revision wrote (its own
/// copies): the pages where it may differ from the memory file. A bit per page.
package struct PageSet: Sendable, Equatable {
    private var words: [UInt64]

    /// An empty set for a mapping of `bytes` bytes.
    package init(bytes: Int) { words = Array(repeating: 0, count: (bytes / Posix.pageSize + 64) / 64) }

    package func contains(_ page: Int) -> Bool { words[page >> 6] & (1 << UInt64(page & 63)) != 0 }

    package mutating func insert(_ page: Int) { words[page >> 6] |= 1 << UInt64(page & 63) }

    /// This set and `other` (of a mapping of the same size) together.
    package func union(_ other: PageSet) -> PageSet {
        var both = self
        for k in words.indices { both.words[k] |= other.words[k] }
        return both
    }

    /// How many pages are in the set.
    package var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }
}

/// How a piece of a revision being read (within one page) compares with the revision before it,
/// as `writeDifferingPages` finds it: the same bytes, or not.
package typealias PieceCompared = (offset: Int, count: Int, differs: Bool)

/// Writes `new` (bytes `offset..<offset + new.count` of a revision) into `target`, a
/// copy-on-write mapping of `base` at the same offsets, page by page where it differs from
/// `base`: pages left alone stay shared. With `last`, the pages that the revision before this
/// one (of the same length, a mapping of the same `base`) wrote: those pages are compared
/// with `lastBytes` instead and always written (the target reads `base` there), so that one
/// comparison of each page says both which pages to write and where the revision differs from
/// the last one, told to `compared` piece by piece, in order.
///
/// With `fingerprints`, each page's fingerprint is set in `new`, and where the last revision's
/// are known (`last`), a page is compared by its fingerprint: only the new bytes are read.
/// - Returns: how many pieces (each within one page) were written; `written` has their pages.
package func writeDifferingPages(_ new: UnsafeRawBufferPointer, at offset: Int, into target: UnsafeMutablePointer<UInt8>,
                                 over base: UnsafePointer<UInt8>, written: inout PageSet,
                                 last: (pages: PageSet?, bytes: UnsafePointer<UInt8>)? = nil,
                                 fingerprints: (last: PageFingerprints?, new: PageFingerprints)? = nil,
                                 compared: (PieceCompared) -> Void = { _ in }) -> Int {
    guard let source = new.baseAddress else { return 0 }
    let page = Posix.pageSize
    // Unwrapped once and read through raw pointers, not through the objects page by page: each
    // use retained and released them, 37,000 pages an edit of a 150 MB file.
    let lastPages = last?.pages, lastBytes = last?.bytes, comparing = last != nil
    let newPrints = fingerprints?.new, lastPrints = fingerprints?.last
    let newSlots = newPrints?.slots, lastSlots = lastPrints?.slots
    let fingerprinter = PageFingerprints.Fingerprinter()
    var pieces = 0, at = 0
    while at < new.count {
        let end = min(new.count, (offset + at) / page * page + page - offset)
        let index = (offset + at) / page, count = end - at
        let lastWrote = lastPages?.contains(index) ?? false
        let against = lastWrote ? lastBytes! : base
        let whole = newPrints?.isWhole(pageAt: offset + at, count: count) ?? false
        let differs: Bool
        if whole, let lastSlots {
            differs = !PageFingerprints.same(lastSlots[index], fingerprinter.of(source + at, count: count))
        } else {
            differs = memcmp(source + at, against + offset + at, count) != 0
        }
        if differs || lastWrote {
            (target + offset + at).update(from: source.assumingMemoryBound(to: UInt8.self) + at, count: count)
            written.insert(index)
            pieces += 1
        }
        // The fingerprint of the bytes kept: the copy written (a file's mapping may change between
        // two reads of it), else the last revision's page.
        if let newSlots {
            if !whole {
                newPrints!.complete.store(false, ordering: .relaxed)
            } else if differs || lastWrote {
                newSlots[index] = fingerprinter.of(target + offset + at, count: count)
            } else {
                newSlots[index] = lastSlots?[index] ?? fingerprinter.of(against + offset + at, count: count)
            }
        }
        if comparing { compared((offset + at, end - at, differs)) }
        at = end
    }
    return pieces
}
