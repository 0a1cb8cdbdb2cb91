// Pages compared by their fingerprints (`writeDifferingPages` with `fingerprints`): a revision
// whose last one's fingerprints are known is compared by reading its own bytes only, and must
// find exactly the pages a byte-for-byte comparison finds.
#if canImport(Glibc)
import Glibc
#endif
@testable import EngineMemory
import TestSupport
import Testing

@Suite struct PageFingerprintsTests {
    static let page = Posix.pageSize

    /// Writes `new` over `pages`' bytes as a read of a revision of the same length does, in
    /// chunks of `chunk` bytes: the pages written, the pieces found different, the target's bytes.
    static func read(_ new: [UInt8], over pages: SharedPages, last: (fingerprints: PageFingerprints?, written: PageSet?, bytes: [UInt8]),
                     chunk: Int) throws -> (written: PageSet, differing: [Int], bytes: [UInt8], fingerprints: PageFingerprints) {
        let target = try pages.copyOnWrite()
        defer { Posix.unmap(UnsafeMutableRawPointer(target), pages.capacity) }
        var written = PageSet(bytes: pages.capacity)
        var differing: [Int] = []
        let prints = PageFingerprints(bytes: new.count)
        last.bytes.withUnsafeBufferPointer { old in
            new.withUnsafeBytes { bytes in
                var offset = 0
                while offset < new.count {
                    let n = min(chunk, new.count - offset)
                    _ = writeDifferingPages(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n]), at: offset, into: target,
                                            over: pages.base, written: &written, last: (last.written, old.baseAddress!),
                                            fingerprints: (last.fingerprints, prints)) { piece in
                        if piece.differs { differing.append(piece.offset / page) }
                    }
                    offset += n
                }
            }
        }
        return (written, differing, Array(UnsafeBufferPointer(start: target, count: new.count)), prints)
    }

    /// Random revisions of 5 pages and a part, each differing from the last in a few bytes
    /// (or none): compared by fingerprint once the last one's are known, the pages found
    /// different are exactly those whose bytes differ, the target holds the new bytes, and the
    /// fingerprints are those of the new pages.
    @Test func pagesComparedByFingerprintAreThoseThatDiffer() throws {
        try forEachSeed(40, base: 0xF1) { _, r in
            let count = 5 * Self.page + r.int(1..<Self.page)
            let first = (0..<count).map { _ in UInt8(r.int(0..<256)) }
            let pages = try SharedPages(capacity: count + 1)
            try first.withUnsafeBytes { try pages.write($0.baseAddress!, count: count, at: 0) }
            // The first read over the memory file's own bytes computes the fingerprints, comparing bytes.
            var last = try Self.read(first, over: pages, last: (nil, nil, first), chunk: 1 << 20)
            #expect(last.differing.isEmpty && last.written.count == 0)
            var lastBytes = first
            for _ in 0..<6 {
                var next = lastBytes
                for _ in 0..<r.int(0..<4) { next[r.int(0..<count)] = UInt8(r.int(0..<256)) }
                let found = try Self.read(next, over: pages, last: (last.fingerprints, last.written, lastBytes), chunk: 2 * Self.page)
                let differ = (0..<(count + Self.page - 1) / Self.page).filter { p in
                    let range = p * Self.page..<min(count, (p + 1) * Self.page)
                    return next[range] != lastBytes[range]
                }
                #expect(found.differing == differ)
                #expect(found.bytes == next, "the target's bytes differ from the revision's")
                for p in 0..<found.fingerprints.count {
                    let range = p * Self.page..<min(count, (p + 1) * Self.page)
                    let print = next[range].withUnsafeBytes { PageFingerprints.of($0.baseAddress!, count: $0.count) }
                    #expect(PageFingerprints.same(found.fingerprints[p], print))
                }
                // Pages the memory file holds unchanged stay shared (not written), unless the last
                // revision wrote them (the new mapping reads the memory file there).
                let unchanged = (0..<found.fingerprints.count).filter { p in
                    let range = p * Self.page..<min(count, (p + 1) * Self.page)
                    return next[range] == first[range] && !(last.written.contains(p))
                }
                #expect(unchanged.allSatisfy { !found.written.contains($0) })
                (last, lastBytes) = (found, next)
            }
        }
    }

    /// A chunk that does not start on a page leaves a page whose fingerprint is unknown: the
    /// fingerprints say they are incomplete (so no later read uses them), and the pages are
    /// still compared byte for byte.
    @Test func aReadInPiecesOffPagesLeavesTheFingerprintsIncomplete() throws {
        let count = 3 * Self.page
        let old = [UInt8](repeating: 1, count: count)
        var new = old
        new[Self.page + 10] = 2
        let pages = try SharedPages(capacity: count + 1)
        try old.withUnsafeBytes { try pages.write($0.baseAddress!, count: count, at: 0) }
        let found = try Self.read(new, over: pages, last: (nil, nil, old), chunk: Self.page + 100)
        let complete = found.fingerprints.complete.load(ordering: .relaxed)
        #expect(!complete)
        #expect(found.differing == [1] && found.bytes == new)
    }

    /// The last revision's fingerprints decide: a page whose bytes are the same but whose last
    /// fingerprint is not theirs is found different (and written), so the comparison is by
    /// fingerprint, not by the bytes.
    @Test func theLastFingerprintsDecide() throws {
        let count = 3 * Self.page + 50
        let old = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let pages = try SharedPages(capacity: count + 1)
        try old.withUnsafeBytes { try pages.write($0.baseAddress!, count: count, at: 0) }
        let first = try Self.read(old, over: pages, last: (nil, nil, old), chunk: 1 << 20)
        #expect(first.differing.isEmpty)
        let zero = [UInt8](repeating: 0, count: Self.page)
        first.fingerprints[2] = zero.withUnsafeBytes { PageFingerprints.of($0.baseAddress!, count: $0.count) }
        let again = try Self.read(old, over: pages, last: (first.fingerprints, first.written, old), chunk: 1 << 20)
        #expect(again.differing == [2] && again.written.contains(2) && again.bytes == old)
    }

    /// Two pages that differ in one byte have different fingerprints; the same bytes anywhere
    /// in memory have the same.
    @Test func aFingerprintIsOfTheBytes() {
        var a = [UInt8](repeating: 7, count: Self.page), b = a
        b[Self.page - 1] = 8
        let copy = Array(a)
        func print(_ bytes: [UInt8]) -> (UInt64, UInt64) {
            let p = bytes.withUnsafeBytes { PageFingerprints.of($0.baseAddress!, count: $0.count) }
            return (p.low64, p.high64)
        }
        #expect(print(a) != print(b))
        #expect(print(a) == print(copy))
        a[0] = 0
        #expect(print(a) != print(copy))
    }
}
