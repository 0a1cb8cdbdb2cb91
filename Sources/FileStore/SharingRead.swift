// A large file's next revision read as pieces of the last one (docs/engine/gigabyte.md, "Step
// 3"): the file is compared with the last revision (by the fingerprints of the blocks its pieces
// lie in, where known), and only the bytes of the container an edit changed are copied; the rest
// of the revision is the last revision's memory, shared. An edit that changes a 1 GB file's
// length then costs the comparison, not the file written into fresh memory.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
import JSONTree
import StoreInterface
import Synchronization

/// What a read sharing the last revision's bytes found.
enum SharingRead {
    /// The revision's bytes (pieces, or the last revision's own when nothing changed), and the
    /// ends it shares with the last revision.
    case bytes(DocumentBytes, SharedEnds)
    /// The file changed while it was read.
    case changed
    /// A read failed (`errno`).
    case failed(Int32)
}

/// A revision shares the last one's bytes in at most this many pieces (`SnapshotReader`): each
/// edit adds up to two, and a byte read finds its piece by a binary search over them.
let maximumBytePieces = 64

extension SnapshotReader {
    /// Reads the file open as `fd` (of `expected` bytes, as at `start`) as pieces of `old`'s
    /// bytes, when `old` is a large revision whose bytes are pieces or of another length (one of
    /// the same length in a memory file is read into a copy-on-write mapping of it instead).
    /// - Returns: nil when the bytes cannot be shared: `old` is small, in an array, in too many
    ///   pieces or keeping half as much memory again as the file; or the change is not inside
    ///   one container a re-parse would parse alone (`JSONDocument.editedBytes`). The caller
    ///   then reads the whole file, which makes the bytes one again.
    /// - Complexity: O(file size) to compare; O(k) to copy the k bytes of the container edited.
    func readSharing(_ fd: Int32, expected: Int, start: FileIdentity, following old: JSONDocument) -> SharingRead? {
        let last = old.bytes
        guard expected >= sharedPagesSize, last.count >= sharedPagesSize, last.pieces != nil || last.count != expected,
              last.parts(0..<0) != nil, (last.pieces?.pieceCount ?? 1) + 2 <= maximumPieces,
              last.keptBytes <= expected + expected / 2
        else { return nil }
        let file = MappedFile(fd, count: expected, populate: false, tuning: tuning)
        defer { file?.unmap() }
        let reader = ChunkReader(fd: fd, file: file, start: start, compared: comparedChunk)

        // Tuned, the two halves at once on two threads, each comparing a byte about once: with
        // the last revision's byte at the same offset until a difference, then with the byte as
        // far from the end (`EndsComparison`).
        // Split on a huge page's boundary (giving back part of one splits its mapping), or for a
        // file under two, a page's.
        let boundary = expected >= 2 * reader.step ? reader.step : Posix.pageSize
        let half = tuning.secondThread ? expected / 2 / boundary * boundary : expected
        let second = ThreadWork(onThread: half < expected) { half < expected ? reader.compare(half..<expected, with: last) : nil }
        let first = reader.compare(0..<half, with: last)
        let later = second.join()
        guard var whole = first, half == expected || later != nil else { return reader.failure.map { .failed($0) } ?? .changed }
        if let later { whole = whole.followed(by: later) }
        // A page a truncation took read as zeroes: the file changed.
        if file?.lostPages == true { return .changed }
        let (prefix, suffix) = whole.sharedEnds
        if prefix == expected && prefix == last.count { return .bytes(last, (prefix, suffix)) }
        guard let edited = old.editedBytes(sharedPrefix: prefix, sharedSuffix: suffix, newCount: expected) else { return nil }

        // The container's new bytes; the rest is the last revision's. Not where the memory the
        // pieces would keep passes 1.5 × the file (the container may be up to half of it).
        let delta = expected - last.count
        let count = edited.count + delta
        let before = last.parts(0..<edited.lowerBound)!, after = last.parts(edited.upperBound..<last.count)!
        guard BytePart.keptBytes((before + after).map(\.block)) + count <= expected + expected / 2 else { return nil }
        let block = ByteBlock(capacity: count, waste: 0.25)
        guard reader.copy(edited.lowerBound..<edited.upperBound + delta, to: block.base) else {
            return reader.failure.map { .failed($0) } ?? .changed
        }
        if file?.lostPages == true { return .changed }
        let parts = before + [BytePart(block: block, offset: 0, count: count)] + after
        return .bytes(DocumentBytes(pieces: BytePieces(parts)), (prefix, suffix))
    }
}

/// Reads a file's bytes a chunk at a time, from its mapping (tuned) or with `pread`, each chunk
/// on page boundaries, the file checked after each; chunks of the mapping compared are given back.
private final class ChunkReader: @unchecked Sendable {
    // @unchecked: each thread reads with a buffer of its own; `failed` is atomic.
    let fd: Int32
    let file: MappedFile?
    let start: FileIdentity
    private let failed = Atomic<Int32>(0)
    /// The error that stopped a read, if one did (else a stop is the file changing).
    var failure: Int32? {
        let code = failed.load(ordering: .relaxed)
        return code == 0 ? nil : code
    }
    let step = Posix.hugePageSize
    /// `SnapshotReader.comparedChunk`.
    private let compared: (@Sendable (Int) -> Void)?

    init(fd: Int32, file: MappedFile?, start: FileIdentity, compared: (@Sendable (Int) -> Void)?) {
        (self.fd, self.file, self.start, self.compared) = (fd, file, start, compared)
    }

    /// Calls `body` with the file's bytes in `range`; false when they could not be read or the
    /// file changed.
    private func withChunk(_ range: Range<Int>, buffer: inout UnsafeMutablePointer<UInt8>?,
                           _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        if let file {
            file.populate(range)
            body(UnsafeBufferPointer(start: file.base.assumingMemoryBound(to: UInt8.self) + range.lowerBound, count: range.count))
            file.giveBack(range)
        } else {
            let target = buffer ?? .allocate(capacity: step)
            buffer = target
            guard readFully(range, into: target) else { return false }
            body(UnsafeBufferPointer(start: target, count: range.count))
        }
        return !fileChanged(fd, since: start)
    }

    /// Reads the file's bytes `range` into `target`; false on an error or a short read.
    private func readFully(_ range: Range<Int>, into target: UnsafeMutablePointer<UInt8>) -> Bool {
        var done = 0
        while done < range.count {
            let n = pread(fd, target + done, range.count - done, off_t(range.lowerBound + done))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { failed.store(errno, ordering: .relaxed) }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    /// The file's bytes `range` (from a chunk boundary) compared with `last`, chunk by chunk;
    /// nil when they could not be read or the file changed.
    func compare(_ range: Range<Int>, with last: DocumentBytes) -> EndsComparison? {
        var buffer: UnsafeMutablePointer<UInt8>?
        defer { buffer?.deallocate() }
        var comparison = EndsComparison(oldCount: last.count, newCount: Int(start.size))
        var at = range.lowerBound
        while at < range.upperBound {
            let end = min(range.upperBound, at + step)
            guard withChunk(at..<end, buffer: &buffer, { comparison.add($0.baseAddress!, from: at, count: $0.count, old: last) })
            else { return nil }
            compared?(end)
            at = end
        }
        return comparison
    }

    /// Copies the file's bytes `range` to `target`; false when they could not be read or the
    /// file changed.
    func copy(_ range: Range<Int>, to target: UnsafeMutablePointer<UInt8>) -> Bool {
        guard !range.isEmpty else { return true }
        if file == nil { return readFully(range, into: target) && !fileChanged(fd, since: start) }
        let pageStart = range.lowerBound / Posix.pageSize * Posix.pageSize
        var buffer: UnsafeMutablePointer<UInt8>?
        return withChunk(pageStart..<range.upperBound, buffer: &buffer) { bytes in
            target.update(from: bytes.baseAddress! + (range.lowerBound - pageStart), count: range.count)
        }
    }
}
