// The reader measures the bytes a new state shares with the old one at each end while it reads.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
@testable import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

@Suite struct SnapshotReaderTests {
    /// Mapped reads need the program's SIGBUS guard: installed as synctable's edge installs it.
    init() { EngineTuning.guardMappedReads() }

    static func naiveEnds(_ old: [UInt8], _ new: [UInt8]) -> (prefix: Int, suffix: Int) {
        // Whole 4 KiB blocks compared by memcmp first (a debug build's byte loop over 20 MB
        // takes seconds), then byte by byte.
        let n = min(old.count, new.count), block = 4096
        var p = 0
        while p + block <= n, memcmp(old.withUnsafeBytes { $0.baseAddress! + p }, new.withUnsafeBytes { $0.baseAddress! + p }, block) == 0 { p += block }
        while p < n && old[p] == new[p] { p += 1 }
        var s = 0
        while s + block <= n - p,
              memcmp(old.withUnsafeBytes { $0.baseAddress! + old.count - s - block }, new.withUnsafeBytes { $0.baseAddress! + new.count - s - block }, block) == 0 {
            s += block
        }
        while s < n - p && old[old.count - 1 - s] == new[new.count - 1 - s] { s += 1 }
        return (p, s)
    }

    /// `size` bytes with no period that a misplaced piece would still match.
    static func aperiodic(_ size: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            for i in 0..<size { buffer[i] = UInt8(truncatingIfNeeded: i &* 31 &+ i >> 11) }
            count = size
        }
    }

    /// Two states of a file: random bytes over a small alphabet (so runs repeat), and an edit
    /// that replaces, inserts or deletes a few bytes anywhere — or none.
    static func states(_ r: inout SplitMix64) -> (old: [UInt8], new: [UInt8]) {
        let old = (0..<r.int(0...300)).map { _ in UInt8(r.int(97...99)) }
        var new = old
        let at = r.int(0...old.count), length = r.int(0...min(8, old.count - at))
        switch r.int(0..<4) {
        case 0: new.replaceSubrange(at..<(at + length), with: (0..<r.int(0...8)).map { _ in UInt8(r.int(97...99)) })
        case 1: new.removeSubrange(at..<(at + length))
        case 2: new.insert(contentsOf: (0..<r.int(1...20)).map { _ in UInt8(r.int(97...99)) }, at: at)
        default: break
        }
        return (old, new)
    }

    /// `bytes` cut at random into pieces, each in a block of its own.
    static func inPieces(_ bytes: [UInt8], _ r: inout SplitMix64) -> DocumentBytes {
        var parts: [BytePart] = [], at = 0
        while at < bytes.count {
            let count = r.int(1...min(bytes.count - at, r.pick([1, 5, 40, 300])))
            let block = ByteBlock(capacity: count + 2)
            (block.base + 1).update(from: Array(bytes[at..<at + count]), count: count)
            parts.append(BytePart(block: block, offset: 1, count: count))
            at += count
        }
        return DocumentBytes(pieces: BytePieces(parts))
    }

    @Test func endsMeasuredChunkByChunkAreTheSharedEnds() {
        forEachSeed(5_000, base: 0x1616) { seed, r in
            let (old, new) = Self.states(&r)
            var comparison = EndsComparison(oldCount: old.count, newCount: new.count)
            var from = 0
            // The last revision in one buffer, or in pieces (a revision that shared its last one's).
            let o = r.int(0..<2) == 0 ? DocumentBytes(old) : Self.inPieces(old, &r)
            new.withUnsafeBufferPointer { n in
                while from < new.count {
                    let count = r.int(1...max(1, min(new.count - from, r.pick([1, 7, 8, 9, 64, 1000]))))
                    // Each chunk read into a buffer of its own, as into a copy-on-write revision.
                    Array(n[from..<from + count]).withUnsafeBufferPointer { comparison.add($0.baseAddress!, from: from, count: count, old: o) }
                    from += count
                }
            }
            let expected = Self.naiveEnds(old, new)
            #expect(comparison.sharedEnds == expected, "seed \(seed): \(old) → \(new)")
        }
    }

    @Test func endsMeasuredInTwoPartsAreTheSharedEnds() {
        // Two threads each compare a part (the second from any byte on), chunk by chunk; the
        // first part followed by the second is the whole comparison.
        forEachSeed(5_000, base: 0x2727) { seed, r in
            let (old, new) = Self.states(&r)
            let split = r.int(0...new.count)
            func part(_ range: Range<Int>) -> EndsComparison {
                var comparison = EndsComparison(oldCount: old.count, newCount: new.count)
                var from = range.lowerBound
                let o = DocumentBytes(old)
                new.withUnsafeBufferPointer { n in
                    while from < range.upperBound {
                        let count = r.int(1...max(1, min(range.upperBound - from, r.pick([1, 8, 9, 64, 1000]))))
                        comparison.add(n.baseAddress! + from, from: from, count: count, old: o)
                        from += count
                    }
                }
                return comparison
            }
            let whole = part(0..<split).followed(by: part(split..<new.count))
            #expect(whole.sharedEnds == Self.naiveEnds(old, new), "seed \(seed), split at \(split): \(old) → \(new)")
        }
    }

    /// A file of 16 MiB or more is read in two halves, each compared by its own thread: the
    /// shared ends are exact wherever the edit falls, the halves' seam included.
    @Test(arguments: ["before the seam", "at the seam", "after the seam", "longer", "shorter", "none", "first byte", "last byte"])
    func largeFilesComparedInTwoHalvesMeasureTheirEnds(_ edit: String) throws {
        let folder = ScratchFolder()
        let path = folder.file("large.bin")
        let size = (20 << 20) + 13
        let old = Self.aperiodic(size)
        let seam = size / 2 / (2 << 20) * (2 << 20)
        var new = old
        switch edit {
        case "before the seam": new[seam - 5] &+= 1
        case "at the seam": new.replaceSubrange((seam - 2)..<(seam + 2), with: [1, 2, 3, 4])
        case "after the seam": new[seam + 1_000_003] &+= 1
        case "longer": new.insert(contentsOf: [9, 9, 9], at: seam + 77)
        case "shorter": new.removeSubrange((seam - 1_000)..<(seam - 990))
        case "first byte": new[0] &+= 1
        case "last byte": new[size - 1] &+= 1
        default: break
        }
        writeFileInPlace(path, new)
        try Self.expectReadEnds(path, old: old, new: new)
        // The same through shared pages (tuned): `old` read into a memory file, then a revision
        // of it with a page written on each side of the seam (a copy-on-write mapping), then
        // `new`, compared once with that last revision, page by page, by two threads.
        let reader = SnapshotReader(tuning: .tuned, sharedPagesFrom: 1)
        var between = old
        between[seam - 3] &+= 7
        between[seam + 4_097] &+= 7
        var last: DocumentBytes?
        for state in [old, between, new] {
            writeFileInPlace(path, state)
            let (snapshot, ends) = reader.read(path, comparingWith: last)
            guard case .bytes(let bytes, _) = snapshot else {
                Issue.record("not read: \(snapshot)")
                return
            }
            #expect(bytes.array == state)
            if let last {
                let expected = Self.naiveEnds(last.array, state), measured = try #require(ends)
                #expect(measured.prefix == expected.prefix && measured.suffix == expected.suffix, "\(measured) against \(expected)")
            }
            last = bytes
        }
    }

    /// A first read without a mapping, copied into its memory file by the kernel: the file's
    /// bytes, and a file that grew after the read began stops it at its first chunk, as a read
    /// into a buffer does.
    @Test func aFirstReadCopiedByTheKernelIsTheFileAndStopsAtAWriter() throws {
        let folder = ScratchFolder()
        let path = folder.file("first.bin")
        let bytes = (0..<(3 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 13) }
        writeFileInPlace(path, bytes)
        let fd = open(path, O_RDWR | O_CLOEXEC)
        defer { close(fd) }
        var st = stat()
        #expect(fstat(fd, &st) == 0)
        func read() throws -> (PartRead, [UInt8]) {
            let pages = try SharedPages(capacity: bytes.count + 2)
            let target = RevisionTarget(base: pages.base, shared: nil, fresh: pages, source: nil, fingerprints: nil,
                                        capacity: pages.capacity, start: FileIdentity(st))
            let part = readPart(fd, into: target, from: 0, to: bytes.count + 1, comparingWith: nil)
            return (part, Array(UnsafeBufferPointer(start: pages.base, count: part.count)))
        }
        let (whole, seen) = try read()
        #expect(!whole.changed && whole.failure == 0 && whole.count == bytes.count)
        #expect(seen == bytes)
        // The writer appends after the read began.
        #expect(pwrite(fd, [UInt8(66)], 1, off_t(bytes.count)) == 1)
        let (grown, _) = try read()
        #expect(grown.changed && grown.count == 0)
    }

    /// A read meets a writer at work at its first chunk (the file no longer its size when the
    /// read began) and stops there, having kept nothing.
    @Test func aReadStopsAtTheFirstChunkOnceTheFileChanges() throws {
        let folder = ScratchFolder()
        let path = folder.file("growing.bin")
        let old = [UInt8](repeating: 65, count: 3 << 20)
        writeFileInPlace(path, old)
        let fd = open(path, O_RDWR | O_CLOEXEC)
        defer { close(fd) }
        var st = stat()
        #expect(fstat(fd, &st) == 0)
        let start = FileIdentity(st)
        // The writer appends after the read began.
        #expect(pwrite(fd, [UInt8(66)], 1, off_t(old.count)) == 1)
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: old.count + 1)
        defer { memory.deallocate() }
        let target = RevisionTarget(base: memory, shared: nil, fresh: nil, source: nil, fingerprints: nil, capacity: old.count + 1, start: start)
        let part = readPart(fd, into: target, from: 0, to: old.count + 1, comparingWith: DocumentBytes(old))
        #expect(part.changed && part.count == 0)
        let seen = target.changed.seen.load(ordering: .relaxed)
        #expect(seen)
    }

    /// A piece said to differ (by its fingerprint) whose bytes are the same, as when the file
    /// changed under the read: the comparison's shared ends stay within the bytes, the piece
    /// counted as changed.
    @Test func aPieceSaidToDifferWithTheSameBytesOnlyShortensTheEnds() {
        let page = 4096, count = 3 * page
        let bytes = [UInt8](repeating: 9, count: count)
        var comparison = EndsComparison(oldCount: count, newCount: count)
        bytes.withUnsafeBufferPointer { b in
            for p in 0..<3 {
                comparison.add((p * page, page, p == 1), b.baseAddress! + p * page, old: b.baseAddress!)
            }
        }
        let ends = comparison.sharedEnds
        #expect(ends.prefix == 2 * page && ends.suffix == page)
    }

    /// Reads `path`, which holds `new`, comparing it with `old`: the bytes and their shared ends.
    static func expectReadEnds(_ path: String, old: [UInt8], new: [UInt8]) throws {
        let (snapshot, ends) = SnapshotReader().read(path, comparingWith: DocumentBytes(old))
        guard case .bytes(let bytes, _) = snapshot else {
            Issue.record("not read: \(snapshot)")
            return
        }
        #expect(bytes.array == new)
        let measured = try #require(ends)
        let expected = Self.naiveEnds(old, new)
        #expect(measured.prefix == expected.prefix && measured.suffix == expected.suffix, "\(measured) against \(expected)")
    }

    @Test func aReadOfARealFileMeasuresItsEnds() throws {
        let folder = ScratchFolder()
        let path = folder.file("ends.json")
        // Over several read chunks (1 MiB), with the edit in the middle.
        let old = Array(("[" + String(repeating: "1234567890,", count: 300_000) + "0]").utf8)
        var new = old
        new.replaceSubrange(1_700_000..<1_700_003, with: Array("99999".utf8))
        writeInPlace(path, String(decoding: new, as: UTF8.self))
        try Self.expectReadEnds(path, old: old, new: new)
    }

    /// A file of 16 MiB or more is read by two threads, a half each: the bytes are the file's,
    /// whatever its size's parity and wherever the halves meet.
    @Test(arguments: [16 << 20, (16 << 20) + 1, 21_000_001])
    func largeFilesReadInTwoHalvesAreTheFile(_ size: Int) throws {
        let folder = ScratchFolder()
        let path = folder.file("large.bin")
        // No period that a misplaced half would still match.
        let bytes = Self.aperiodic(size)
        writeFileInPlace(path, bytes)
        guard case .bytes(let read, let identity) = SnapshotReader(tuning: .tuned).read(path) else {
            Issue.record("not read")
            return
        }
        #expect(read.count == size && read.array == bytes && identity.size == size)
    }

    /// A follower's reader holds the file of the revision it read: replaced by a rename, the old
    /// file stays open (so the writer's rename frees nothing) until the revision read after it
    /// is delivered (`releaseReplaced`); a file gone, or small, is held no more.
    @Test func aFollowerHoldsTheFileItReadUntilTheNextRevisionIsDelivered() throws {
        for tuning in [EngineTuning.plain, .tuned] {
            let folder = ScratchFolder()
            let path = folder.file("held.json")
            let reader = SnapshotReader(tuning: tuning, sharedPagesFrom: 4, holdsFiles: true)
            let held = try #require(reader.held)
            func read(_ text: String) -> FileIdentity? {
                writeFileInPlace(path + ".tmp", Array(text.utf8))
                rename(path + ".tmp", path)
                guard case .bytes(let bytes, let identity) = reader.read(path, comparingWith: nil).snapshot,
                      bytes.array == Array(text.utf8) else { return nil }
                return identity
            }
            let first = try #require(read("[1, 2]"))
            #expect(held.inodes.current == first.inode && held.inodes.replaced.isEmpty, "\(tuning)")
            let second = try #require(read("[3, 4]"))
            // The first file, renamed over, is still open until the second revision is delivered.
            #expect(held.inodes.current == second.inode && held.inodes.replaced == [first.inode], "\(tuning)")
            reader.releaseReplaced()
            #expect(held.inodes.current == second.inode && held.inodes.replaced.isEmpty, "\(tuning)")
            // Below the size that shares pages, nothing is held.
            _ = try #require(read("[]"))
            reader.releaseReplaced()
            #expect(held.inodes.current == nil && held.inodes.replaced.isEmpty, "\(tuning)")
            _ = try #require(read("[5, 6]"))
            unlink(path)
            guard case .missing = reader.read(path) else { throw ReadFailed() }
            reader.releaseReplaced()
            #expect(held.inodes.current == nil && held.inodes.replaced.isEmpty, "\(tuning)")
        }
    }

    struct ReadFailed: Error {}

    /// Tuned, a revision is read into a memory file, and the next one of the same length into a
    /// copy-on-write mapping of it, written only where it differs. Over a chain of edits (a few
    /// bytes, a rewrite of most pages, a change of length), every read is the file with its
    /// exact shared ends, and no revision read earlier changes. A revision read into a mapping
    /// carries its pages' fingerprints, and the next one of its length is compared by them.
    @Test func revisionsReadIntoSharedPagesAreTheFileAndStayAsRead() throws {
        let folder = ScratchFolder()
        let path = folder.file("shared.bin")
        let reader = SnapshotReader(tuning: .tuned, sharedPagesFrom: 1)
        var sharing = 0, byFingerprint = 0
        try forEachSeed(12, base: 0x5A5A) { seed, r in
            var state = (0..<r.int(1...60_000)).map { _ in UInt8(r.int(97...100)) }
            var kept: [(read: DocumentBytes, was: [UInt8])] = []
            var current: DocumentBytes?
            for step in 0..<8 {
                if step > 0 {
                    switch r.int(0..<6) {
                    case 0: state.insert(contentsOf: [1, 2, 3], at: r.int(0...state.count))
                    case 1 where state.count > 1: state.remove(at: r.int(0..<state.count))
                    case 2: for k in 0..<state.count where r.int(0..<3) == 0 { state[k] = 120 }
                    default: for _ in 0..<r.int(0...4) { state[r.int(0..<state.count)] = UInt8(r.int(97...100)) }
                    }
                }
                writeFileInPlace(path, state)
                let (snapshot, ends) = reader.read(path, comparingWith: current)
                guard case .bytes(let bytes, _) = snapshot else {
                    Issue.record("seed \(seed) step \(step): not read: \(snapshot)")
                    return
                }
                #expect(bytes.array == state, "seed \(seed) step \(step)")
                #expect(bytes.sharedPages != nil)
                if let current {
                    let measured = try #require(ends)
                    let expected = Self.naiveEnds(current.array, state)
                    #expect(measured.prefix == expected.prefix && measured.suffix == expected.suffix, "seed \(seed) step \(step)")
                }
                if let current, bytes.sharedPages === current.sharedPages {
                    sharing += 1
                    // The last revision carried fingerprints: this one was compared by them.
                    if current.fingerprints != nil { byFingerprint += 1 }
                    let prints = try #require(bytes.fingerprints, "seed \(seed) step \(step)")
                    let page = Posix.pageSize
                    for p in 0..<prints.count {
                        let print = state[p * page..<min(state.count, (p + 1) * page)].withUnsafeBytes { PageFingerprints.of($0.baseAddress!, count: $0.count) }
                        #expect(PageFingerprints.same(prints[p], print), "seed \(seed) step \(step) page \(p)")
                    }
                }
                kept.append((bytes, state))
                current = bytes
            }
            for (k, revision) in kept.enumerated() { #expect(revision.read.array == revision.was, "seed \(seed): revision \(k) changed") }
        }
        // Small edits of one length shared their pages (a large rewrite or a new length did not).
        #expect(sharing > 0 && byFingerprint > 0)
    }
}
