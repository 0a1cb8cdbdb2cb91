// One part of a revision's read (`SnapshotReader.read`): bytes read chunk by chunk into the
// revision's memory, each chunk compared with the last revision while it is still in the cache,
// and the read given up as soon as the file is seen changing.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
import JSONTree
import Synchronization
import StoreInterface

/// Where a read writes a revision's bytes: at `base`, and, when `base` is a copy-on-write
/// mapping of the memory file mapped at `shared` too, only where they differ from it. Its parts
/// (one per thread) share `changed`.
struct RevisionTarget: @unchecked Sendable {
    // @unchecked: each thread of a read writes its own part.
    let base: UnsafeMutablePointer<UInt8>
    let shared: UnsafePointer<UInt8>?
    /// A memory file of the revision's own (no `shared` base) that `base` maps: each chunk is
    /// written into it with `pwrite` (`SharedPages.write`), or copied from the file by the kernel
    /// (`SharedPages.copy`), rather than read into `base`, whose fresh pages the kernel would zero.
    let fresh: SharedPages?
    /// Tuned, into shared pages or a memory file of its own: the file's own pages, compared
    /// (and written) where they are instead of read into a buffer first (nil: read with `pread`).
    let source: MappedFile?
    /// Into a memory file or shared pages: the fingerprints of the revision's pages, set as they
    /// are read.
    let fingerprints: PageFingerprints?
    /// Bytes at `base` (whole pages for a mapping).
    let capacity: Int
    /// The file as it was when the read began.
    let start: FileIdentity
    /// Set by the part that sees the file change: the other stops at its next chunk.
    let changed = Changed()

    final class Changed: Sendable {
        let seen = Atomic<Bool>(false)
    }
}

/// What a part of a read found.
struct PartRead {
    /// Bytes read.
    var count = 0
    /// The error that stopped the read, 0 for none.
    var failure: Int32 = 0
    /// The part's comparison with the last revision (nil without one).
    var comparison: EndsComparison?
    /// Pieces of pages written over shared ones, and their pages.
    var written = 0
    var pages: PageSet
    /// The file changed while it was read (its size or modification time): the bytes may mix
    /// two writes.
    var changed = false

    /// This part (bytes `0..<end`) followed by `later`, which starts at `end`.
    func followed(by later: PartRead, at end: Int) -> PartRead {
        var whole = self
        whole.count = count < end ? count : end + later.count
        whole.failure = failure != 0 ? failure : later.failure
        whole.comparison = comparison.map { $0.followed(by: later.comparison!) }
        whole.written += later.written
        whole.pages = pages.union(later.pages)
        whole.changed = changed || later.changed
        return whole
    }
}

/// Reads bytes `from..<to` of `fd` into `target` at the same offsets, or up to the end of the
/// file; with `old`, compares each chunk with it while the chunk is still in the cache (the
/// bytes of the first `old.count` only: one more means the file grew). Into a copy-on-write
/// mapping (whose `old` is one of the same memory file, of the same length), each chunk is read
/// into a buffer of its own and compared once, page by page: the pages that differ are written,
/// and the same comparison gives the shared ends. Into a memory file of its own (`fresh`), each
/// chunk is written into the file (`SharedPages.write`): tuned from the file's mapping, plain
/// from a buffer it is read into, or, with nothing to compare (a first read), copied from the
/// file by the kernel (`SharedPages.copy`).
///
/// After each chunk the file's size and modification time are checked against the read's start:
/// a writer rewriting the file in place is met at its first chunk (the file growing), and the
/// read stops there rather than copy and compare a half-written file, and hold it.
func readPart(_ fd: Int32, into target: RevisionTarget, from: Int, to: Int, comparingWith old: DocumentBytes?) -> PartRead {
    let expected = Int(target.start.size)
    var part = PartRead(comparison: old.map { EndsComparison(oldCount: $0.count, newCount: expected) },
                        pages: PageSet(bytes: target.shared == nil ? 0 : target.capacity))
    // Small chunks when comparing or writing a memory file, so that each is still in the cache.
    let chunk = old == nil && target.fresh == nil ? 64 << 20 : readChunk
    // Into a memory file of its own without the file's mapping (plain) and with nothing to
    // compare: one copy, the kernel's, where a buffer takes two. A file the kernel cannot copy
    // from (`EINVAL`) is read into the buffer.
    var sent = target.shared == nil && target.source == nil && old == nil ? target.fresh : nil
    let buffered = (target.shared != nil || target.fresh != nil) && target.source == nil && sent == nil
    var buffer = buffered ? UnsafeMutablePointer<UInt8>.allocate(capacity: chunk) : nil
    defer { buffer?.deallocate() }
    var offset = from, givenBack = from
    // Compared pages are given back whole huge pages at a time, the rest at the end: giving back
    // part of one splits its mapping (a TLB flush on every core).
    defer { if offset > givenBack { target.source?.giveBack(givenBack..<offset) } }
    while offset < to {
        let (bytes, n): (UnsafeRawPointer, Int)
        if let pages = sent {
            bytes = UnsafeRawPointer(target.base + offset)
            do throws(PosixError) { n = try pages.copy(from: fd, count: min(to, offset + chunk) - offset, at: offset) } catch {
                if error.errno == EINVAL && buffer == nil {
                    sent = nil
                    buffer = .allocate(capacity: chunk)
                    continue
                }
                part.failure = error.errno
                break
            }
        } else {
            (bytes, n) = nextChunk(fd, of: target, into: buffer ?? target.base + offset, at: offset, upTo: min(to, offset + chunk))
            if n < 0 {
                part.failure = errno
                break
            }
        }
        if n == 0 { break }
        if offset + n > expected || target.changed.seen.load(ordering: .relaxed) || fileChanged(fd, since: target.start) {
            target.changed.seen.store(true, ordering: .relaxed)
            part.changed = true
            break
        }
        take(UnsafeRawBufferPointer(start: bytes, count: n), at: offset, into: target, written: sent != nil, comparingWith: old, &part)
        // Written from the file's mapping, a page a truncation took fails the write: the file
        // changed under the read, which is made again (an I/O error leaves the file as it was).
        if part.failure == EFAULT && target.source != nil && fileChanged(fd, since: target.start) {
            target.changed.seen.store(true, ordering: .relaxed)
            part.failure = 0
            part.changed = true
        }
        if part.failure != 0 || part.changed { break }
        offset += n
        // Compared: the file's pages are given back, so the read never holds the file twice.
        let whole = offset / Posix.hugePageSize * Posix.hugePageSize
        if whole > givenBack, let source = target.source {
            source.giveBack(givenBack..<whole)
            givenBack = whole
        }
    }
    part.count = offset - from
    return part
}

/// The file's bytes `offset..<end` (fewer only at its end, so that chunks keep to whole pages):
/// its mapping's own (`target.source`), or read with `pread` into `into`. A count of 0 is the end
/// of the file, below 0 an error (`errno`).
private func nextChunk(_ fd: Int32, of target: RevisionTarget, into: UnsafeMutablePointer<UInt8>, at offset: Int,
                       upTo end: Int) -> (bytes: UnsafeRawPointer, count: Int) {
    if let file = target.source {
        let n = max(0, min(end, file.count) - offset)
        // Mapped in one call rather than a fault every 16 pages: with pages compared by their
        // fingerprints, 1 ms of an edit's 8 (docs/engine/page-fingerprints.md).
        file.populate(offset..<offset + n)
        return (file.base + offset, n)
    }
    var count = 0
    while offset + count < end {
        let n = pread(fd, into + count, end - offset - count, off_t(offset + count))
        if n < 0 && errno == EINTR { continue }
        if n < 0 && count == 0 { return (UnsafeRawPointer(into), n) }
        if n <= 0 { break }
        count += n
    }
    return (UnsafeRawPointer(into), count)
}

/// Takes a chunk just read (`read`, bytes `offset…` of the file) into `target`, and compares it
/// with `old`; `written`: the chunk is in `target`'s memory file already (copied there).
private func take(_ read: UnsafeRawBufferPointer, at offset: Int, into target: RevisionTarget, written: Bool,
                  comparingWith old: DocumentBytes?, _ part: inout PartRead) {
    var chunk = read
    if target.shared == nil, let pages = target.fresh {
        if !written {
            do { try pages.write(read.baseAddress!, count: read.count, at: offset) } catch {
                part.failure = error.errno
                return
            }
        }
        // Written from the file's mapping, whose pages may change between two reads of them:
        // fingerprinted and compared as written.
        if target.source != nil { chunk = UnsafeRawBufferPointer(start: target.base + offset, count: read.count) }
        // The next revision of this length is compared by them.
        target.fingerprints?.set(chunk, at: offset)
    }
    let new = chunk.baseAddress!.assumingMemoryBound(to: UInt8.self)
    guard let old else {
        if let shared = target.shared {
            part.written += writeDifferingPages(chunk, at: offset, into: target.base, over: shared, written: &part.pages,
                                                fingerprints: target.fingerprints.map { (last: nil, new: $0) })
        }
        return
    }
    guard let shared = target.shared else { return part.comparison!.add(new, from: offset, count: chunk.count, old: old) }
    old.withUnsafeBufferPointer { o in
        // `old` maps the same memory file: where it wrote no page of its own, its bytes are the
        // file's, and one comparison answers both questions.
        var comparison = part.comparison!
        let prints = target.fingerprints.map { (last: old.fingerprints, new: $0) }
        part.written += writeDifferingPages(chunk, at: offset, into: target.base, over: shared, written: &part.pages,
                                            last: (old.writtenPages, o.baseAddress!), fingerprints: prints) { piece in
            comparison.add(piece, new + (piece.offset - offset), old: o.baseAddress!)
        }
        part.comparison = comparison
    }
}

/// Whether the file open as `fd` is no longer as it was at `start` (its size or modification
/// time), or cannot be asked.
func fileChanged(_ fd: Int32, since start: FileIdentity) -> Bool {
    var now = stat()
    guard fstat(fd, &now) == 0 else { return true }
    let identity = FileIdentity(now)
    return identity.size != start.size || identity.modified != start.modified
}

/// Bytes read (or copied) at a time: small enough that a chunk is still in the cache when it is
/// compared or fingerprinted.
let readChunk = 1 << 20
