// A store's first read of a large file parses the file's mapping: under a read lease, which
// makes writers wait until the pages are copied after the first windows; or, where no lease
// is granted, while another thread copies the pages the parse has read into memory of the
// document's own. The document must be the file's, with bytes no later write can reach, and
// never a mix with a write made meanwhile (in place, truncating, appending or by rename):
// then the file is read again.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

@Suite struct MappedFirstReadTests {
    /// About 7.5 MB: the copy follows the parse in several pieces.
    static let text = sampleDocument(seq: 0, count: 100_000)

    static func bytes(_ document: JSONDocument) -> [UInt8] {
        document.bytes.withUnsafeBufferPointer { Array($0) }
    }

    @Test func theDocumentIsTheFilesInMemoryOfItsOwn() throws {
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        writeInPlace(file, Self.text)
        let pieces = Mutex<[Int]>([])
        let outcome = try #require(SnapshotReader().parseMapped(file, from: 1, lease: false) { count in pieces.withLock { $0.append(count) } })
        guard case .parsed(let document, let identity, nil) = outcome else {
            Issue.record("not parsed: \(outcome)")
            return
        }
        let reference = try JSONDocument(parsing: Self.text)
        #expect(document.root.json == reference.root.json)
        let same = Self.bytes(document) == Array(Self.text.utf8)
        #expect(same)
        var now = stat()
        #expect(stat(file, &now) == 0 && identity == FileIdentity(now))
        // Copied behind the parse, a piece at a time, to the end.
        let counts = pieces.withLock { $0 }
        #expect(counts.count >= 2 && counts == counts.sorted() && counts.last == Self.text.utf8.count, "\(counts)")
        // The file written in place afterwards: the document's bytes are its own, not the file's pages.
        writeInPlace(file, sampleDocument(seq: 1, count: 100_000))
        let kept = Self.bytes(document) == Array(Self.text.utf8)
        #expect(kept)
    }

    /// The copy behind a parse, piece by piece: while the parse runs, only whole pieces it has
    /// passed (and once it waits where its second thread started, those that thread has); once
    /// it has ended, the rest, by two threads at once (the copier and the parse's own). Every
    /// byte copied once and exactly, the pieces told in order.
    @Test func aCopyBehindTheParseIsFinishedByTwoThreads() throws {
        let folder = ScratchFolder()
        let file = folder.file("big.bin")
        let count = 10 * copyStep + 12_345
        var bytes = [UInt8](repeating: 0, count: count)
        var rng = SplitMix64(seed: 7)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
        try #require(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
        let reader = SnapshotReader()
        let (source, mapping) = try #require(reader.map(file, from: 1, populate: false))
        defer { _ = reader.isIntact(mapping, at: file) }
        let target = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        defer { target.deallocate() }
        let progress = ParseProgress()
        let told = Mutex<[Int]>([])
        let copy = CopyBehind(source, into: target, following: progress) { n in told.withLock { $0.append(n) } }

        // The parse has passed 2.5 pieces: two are copied, then nothing until it goes on.
        progress.position.store(5 * copyStep / 2, ordering: .releasing)
        #expect(copy.copyPiece() && copy.copyPiece())
        #expect(!copy.copyPiece())
        #expect(told.withLock { $0 } == [copyStep, 2 * copyStep])

        // A second thread started at 6 pieces and has read 2.5 more: nothing while the parse is
        // short of its start; once the parse is there, the pieces that thread has passed.
        progress.secondPosition.store(17 * copyStep / 2, ordering: .releasing)
        progress.secondStart.store(6 * copyStep, ordering: .releasing)
        #expect(!copy.copyPiece())
        progress.position.store(6 * copyStep - 1, ordering: .releasing)
        for _ in 0..<3 { #expect(copy.copyPiece()) }
        #expect(!copy.copyPiece())
        progress.position.store(6 * copyStep, ordering: .releasing)
        for _ in 0..<3 { #expect(copy.copyPiece()) }
        #expect(!copy.copyPiece())
        #expect(told.withLock { $0 } == (1...8).map { $0 * copyStep })

        // The parse has ended: two threads take what is left.
        progress.position.store(Int.max, ordering: .releasing)
        let other = Thread { while copy.copyPiece() {} }
        other.start()
        while copy.copyPiece() {}
        while !other.isFinished { usleep(1_000) }
        #expect(!copy.copyPiece())
        let counts = told.withLock { $0 }
        #expect(counts == counts.sorted() && counts.last == count && counts.count == 11, "\(counts)")
        let steps = zip(counts, [0] + counts).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 > 0 && $0 <= copyStep }, "\(steps)")
        let same = UnsafeBufferPointer(start: target, count: count).elementsEqual(bytes)
        #expect(same)
    }

    /// An error early, in the middle (a colon made '@'), or after the value: the error a read and
    /// parse gives, with a lease or without; a lease is not kept.
    @Test(arguments: [100, Self.text.utf8.count / 2, Self.text.utf8.count], [true, false])
    func anInvalidFileGivesTheErrorOfAReadAndParse(_ at: Int, lease: Bool) throws {
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        var bytes = Array(Self.text.utf8)
        if at < bytes.count {
            bytes[bytes[at...].firstIndex(of: UInt8(ascii: ":"))!] = UInt8(ascii: "@")
        } else {
            bytes += Array(" x".utf8)
        }
        writeInPlace(file, String(decoding: bytes, as: UTF8.self))
        let outcome = try #require(SnapshotReader().parseMapped(file, from: 1, lease: lease))
        guard case .invalid(let error) = outcome else {
            Issue.record("not an error: \(outcome)")
            return
        }
        let expected = try #require(throws: JSONParseError.self) { try JSONDocument(parsing: bytes) }
        #expect(error.message == expected.message && error.offset == expected.offset)
        #expect(error.line == expected.line && error.column == expected.column)
        #expect(!Self.leased(file))
    }

    /// Whether a lease on `path` makes a writer wait: an open for writing that may not wait
    /// fails with EWOULDBLOCK then.
    static func leased(_ path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
        return fd < 0 && errno == EWOULDBLOCK
    }

    /// `big.json` holding `text` in `folder`, and beside it `next.json` holding `newer`.
    static func files(in folder: ScratchFolder, newer: String) -> (file: String, next: String) {
        let file = folder.file("big.json"), next = folder.file("next.json")
        writeInPlace(file, Self.text)
        writeInPlace(next, newer)
        return (file, next)
    }

    /// A writer process that copies `from` over `to` in place (the shell opens `to` with
    /// O_TRUNC), started now.
    static func startWriter(copying from: String, over to: String) throws -> pid_t {
        var pid = pid_t()
        let argv = ["/bin/sh", "-c", #"cat "$1" > "$2""#, "sh", from, to]
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        try #require(posix_spawn(&pid, argv[0], nil, nil, cArgs, environ) == 0)
        return pid
    }

    /// The exit status of `pid` once it ends within `seconds`; nil while it runs on.
    static func exitStatus(_ pid: pid_t, within seconds: Double) -> Int32? {
        let end = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { return (status >> 8) & 0xff }
            if Date() > end { return nil }
            usleep(5_000)
        }
    }

    /// Under a lease, the document holds the file's own pages until it is settled: a writer
    /// process rewriting the file in place waits until then (half a second later it has not
    /// ended and the file is unchanged), and once it has written, the document's bytes are
    /// still the ones it parsed, now in memory of its own at the same address.
    @Test func aLeasedDocumentKeepsItsBytesWhileAWriterWaits() throws {
        let folder = ScratchFolder(), newer = sampleDocument(seq: 1, count: 100_000)
        let (file, next) = Self.files(in: folder, newer: newer)
        let outcome = try #require(SnapshotReader().parseMapped(file, from: 1))
        guard case .parsed(let document, _, let leased) = outcome, let lease = leased else {
            Issue.record("not parsed under a lease: \(outcome)")
            return
        }
        let address = document.bytes.withUnsafeBufferPointer { $0.baseAddress }
        let writer = try Self.startWriter(copying: next, over: file)
        #expect(Self.exitStatus(writer, within: 0.5) == nil)
        #expect(Disk.text(file) == Self.text)
        lease.settle(keeping: document)
        #expect(Self.exitStatus(writer, within: 60) == 0)
        #expect(Disk.text(file) == newer)
        let kept = Self.bytes(document) == Array(Self.text.utf8)
        #expect(kept)
        #expect(document.bytes.withUnsafeBufferPointer { $0.baseAddress } == address)
        #expect(document.root.json == (try JSONDocument(parsing: Self.text)).root.json)
        #expect(!Self.leased(file))
    }

    /// A leased document that goes before it is settled (a newer read superseded it) gives the
    /// lease up: the waiting writer goes on.
    @Test func aLeasedDocumentDroppedUnsettledLetsTheWriterGo() throws {
        let folder = ScratchFolder(), newer = sampleDocument(seq: 2, count: 1_000)
        let (file, next) = Self.files(in: folder, newer: newer)
        func parseAndStartWriter() throws -> pid_t {
            let outcome = try #require(SnapshotReader().parseMapped(file, from: 1))
            return try withExtendedLifetime(outcome) {
                guard case .parsed(_, _, let lease) = outcome, lease != nil else {
                    Issue.record("not parsed under a lease: \(outcome)")
                    return -1
                }
                let writer = try Self.startWriter(copying: next, over: file)
                #expect(Self.exitStatus(writer, within: 0.3) == nil)
                return writer
            }
        }
        let writer = try parseAndStartWriter()
        try #require(writer > 0)
        #expect(Self.exitStatus(writer, within: 60) == 0)
        #expect(Disk.text(file) == newer)
    }

    /// A file open for writing when it is read gets no lease: its parse is copied behind, and
    /// a write through that open descriptor afterwards leaves the document as it was.
    @Test func aFileOpenForWritingIsCopiedBehindItsParse() throws {
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        writeInPlace(file, Self.text)
        let fd = open(file, O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let outcome = try #require(SnapshotReader().parseMapped(file, from: 1))
        guard case .parsed(let document, _, nil) = outcome else {
            Issue.record("not parsed without a lease: \(outcome)")
            return
        }
        let at = Self.text.utf8.count - 10
        #expect(pwrite(fd, "c", 1, off_t(at)) == 1)
        #expect(Disk.text(file) != Self.text)
        let kept = Self.bytes(document) == Array(Self.text.utf8)
        #expect(kept)
    }

    enum Change: CaseIterable, Sendable {
        case inPlaceSameSize, inPlaceShorter, truncated, appended, renamedOver
    }

    /// The file changes while its mapping is parsed and copied (once the first piece is copied):
    /// no document and no error comes of it; the next attempt finds the file as it now is.
    @Test(arguments: Change.allCases)
    func aChangeWhileParsingIsNeverTheDocument(_ change: Change) throws {
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        writeInPlace(file, Self.text)
        let changed = Mutex(false)
        // No lease: under one, a writer could not write during the parse.
        let outcome = SnapshotReader().parseMapped(file, from: 1, lease: false) { _ in
            guard changed.withLock({ done in defer { done = true }; return !done }) else { return }
            switch change {
            case .inPlaceSameSize:
                // One letter of the last item, keeping the size and the JSON valid.
                let at = Self.text.utf8.count - 10
                #expect(Array(Self.text.utf8)[at] == UInt8(ascii: "a"))
                let fd = open(file, O_WRONLY)
                #expect(pwrite(fd, "c", 1, off_t(at)) == 1)
                close(fd)
            case .inPlaceShorter: writeInPlace(file, sampleDocument(seq: 2, count: 1_000))
            case .truncated: #expect(truncate(file, off_t(Self.text.utf8.count / 2)) == 0)
            case .appended:
                let fd = open(file, O_WRONLY | O_APPEND)
                #expect(write(fd, " ", 1) == 1)
                close(fd)
            case .renamedOver: writeByRename(file, sampleDocument(seq: 3, count: 1_000))
            }
        }
        #expect(changed.withLock { $0 })
        if let outcome { Issue.record("\(change): \(outcome)") }
        let now = Array(Disk.text(file).utf8)
        switch SnapshotReader().parseMapped(file, from: 1) {
        case .parsed(let document, _, _)?:
            let same = Self.bytes(document) == now
            #expect(change != .truncated && same, "\(change)")
        case .invalid?: #expect(change == .truncated)
        case nil: Issue.record("\(change): not read")
        }
    }

    /// A store whose first revision came from the mapping follows edits (re-parsed from it).
    @Test func aStoreFollowsEditsFromAMappedFirstRevision() throws {
        let folder = ScratchFolder()
        let path = folder.file("big.json")
        writeInPlace(path, sampleDocument(seq: 0, count: 20_000))
        var options = FileStore.Options()
        options.mappedFirstReadSize = 1
        let store = try FileStore(path: path, options: options)
        let first = try store.waitForRevision(1, timeoutMilliseconds: 60_000)
        #expect(first.root.child("items")?.child("item19999")?.child("score")?.doubleValue == Double(19_999 * 7919 % 1000))
        writeInPlace(path, sampleDocument(seq: 0, count: 20_000).replacing(#""item7":{"name":"item number 7""#, with: #""item7":{"name":"seven""#))
        let second = try store.waitForRevision(2, timeoutMilliseconds: 60_000)
        #expect(second.root.child("items")?.child("item7")?.child("name")?.stringValue == "seven")
        writeByRename(path, sampleDocument(seq: 5, count: 20_000))
        let third = try store.waitForRevision(3, timeoutMilliseconds: 60_000)
        #expect(third.root.child("seq")?.doubleValue == 5)
    }
}

extension MappedParse: CustomStringConvertible {
    public var description: String {
        switch self {
        case .parsed(let document, _, let lease): "parsed (\(document.bytes.count) bytes\(lease == nil ? "" : ", leased"))"
        case .invalid(let error): "invalid: \(error.message)"
        }
    }
}
