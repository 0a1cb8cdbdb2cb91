// A store's first read of a large file parses the file's mapping while another thread copies
// the pages the parse has read into memory of the document's own. The document must be the
// file's, with bytes no later write can reach, and never a mix with a write made meanwhile (in
// place, truncating, appending or by rename): then the file is read again. A writer of the
// file is never held up by it.
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
    /// Mapped reads need the program's SIGBUS guard: installed as synctable's edge installs it.
    init() { EngineTuning.guardMappedReads() }

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
        let outcome = try #require(SnapshotReader(tuning: .tuned).parseMapped(file, from: 1) { count in pieces.withLock { $0.append(count) } })
        guard case .parsed(let document, let identity) = outcome else {
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
        let reader = SnapshotReader(tuning: .tuned)
        let (source, mapping) = try #require(reader.map(file, from: 1, populate: false))
        defer { _ = reader.isIntact(mapping, at: file) }
        let target = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        defer { target.deallocate() }
        let progress = ParseProgress()
        let told = Mutex<[Int]>([])
        let copy = CopyBehind(source, of: mapping.file, into: target, following: progress) { n in told.withLock { $0.append(n) } }

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
    /// parse gives.
    @Test(arguments: [100, Self.text.utf8.count / 2, Self.text.utf8.count])
    func anInvalidFileGivesTheErrorOfAReadAndParse(_ at: Int) throws {
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        var bytes = Array(Self.text.utf8)
        if at < bytes.count {
            bytes[bytes[at...].firstIndex(of: UInt8(ascii: ":"))!] = UInt8(ascii: "@")
        } else {
            bytes += Array(" x".utf8)
        }
        writeInPlace(file, String(decoding: bytes, as: UTF8.self))
        let outcome = try #require(SnapshotReader(tuning: .tuned).parseMapped(file, from: 1))
        guard case .invalid(let error) = outcome else {
            Issue.record("not an error: \(outcome)")
            return
        }
        let expected = try #require(throws: JSONParseError.self) { try JSONDocument(parsing: bytes) }
        #expect(error.message == expected.message && error.offset == expected.offset)
        #expect(error.line == expected.line && error.column == expected.column)
        #expect(Self.writable(file))
    }

    /// Whether a writer may open `path` at once: an open for writing that may not wait fails
    /// with EWOULDBLOCK where a lease holds it.
    static func writable(_ path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }

    /// A reader is passive: while its parse and copy run, and while its document lives, a
    /// writer opens the file at once and writes in place; the document keeps the bytes parsed.
    @Test func aWriterIsNeverHeldUpByTheRead() throws {
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        writeInPlace(file, Self.text)
        let during = Mutex<[Bool]>([])
        let outcome = try #require(SnapshotReader(tuning: .tuned).parseMapped(file, from: 1) { _ in
            during.withLock { $0.append(Self.writable(file)) }
        })
        guard case .parsed(let document, _) = outcome else {
            Issue.record("not parsed: \(outcome)")
            return
        }
        let opened = during.withLock { $0 }
        #expect(!opened.isEmpty && opened.allSatisfy { $0 }, "\(opened)")
        let fd = open(file, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(fd >= 0)
        let at = Self.text.utf8.count - 10
        #expect(pwrite(fd, "c", 1, off_t(at)) == 1)
        close(fd)
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
        let outcome = SnapshotReader(tuning: .tuned).parseMapped(file, from: 1) { _ in
            guard changed.withLock({ done in defer { done = true }; return !done }) else { return }
            switch change {
            case .inPlaceSameSize:
                // One letter of the last item, keeping the size and the JSON valid.
                let at = Self.text.utf8.count - 10
                #expect(Array(Self.text.utf8)[at] == UInt8(ascii: "a"))
                let fd = open(file, O_WRONLY | O_CLOEXEC)
                #expect(pwrite(fd, "c", 1, off_t(at)) == 1)
                close(fd)
            case .inPlaceShorter: writeInPlace(file, sampleDocument(seq: 2, count: 1_000))
            case .truncated: #expect(truncate(file, off_t(Self.text.utf8.count / 2)) == 0)
            case .appended:
                let fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC)
                #expect(write(fd, " ", 1) == 1)
                close(fd)
            case .renamedOver: writeByRename(file, sampleDocument(seq: 3, count: 1_000))
            }
        }
        #expect(changed.withLock { $0 })
        if let outcome { Issue.record("\(change): \(outcome)") }
        let now = Array(Disk.text(file).utf8)
        switch SnapshotReader(tuning: .tuned).parseMapped(file, from: 1) {
        case .parsed(let document, _)?:
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
        options.tuning = .tuned
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
        case .parsed(let document, _): "parsed (\(document.bytes.count) bytes)"
        case .invalid(let error): "invalid: \(error.message)"
        }
    }
}
