// A write that keeps nothing of the file maps a large file instead of reading it. The pages are
// the file's own, so another process writing it in place meanwhile (even truncating it) must
// make the write start again on the new content, never write a mix or stop the process.
#if canImport(Glibc)
import Glibc
#endif
@testable import FileStore
import JSONTree
import Testing
import TestSupport

@Suite struct MappedWriteTests {
    /// Mapped reads need the program's SIGBUS guard: installed as synctable's edge installs it.
    init() { EngineTuning.guardMappedReads() }

    /// Options that map every file, however small, and call `afterRead` once it is mapped.
    static func mapping(_ afterRead: @escaping @Sendable (Int) -> Void) -> AtomicFile.Options {
        var options = AtomicFile.Options()
        options.mappingThreshold = 1
        options.tuning = .tuned
        options.afterRead = afterRead
        return options
    }

    /// The file's pages are read after another process truncates it: the lost pages read as
    /// zeroes (no SIGBUS), and the mapping says it is no longer the file.
    @Test func aTruncatedMappingReadsZeroesAndIsNotIntact() throws {
        let folder = ScratchFolder()
        let file = folder.file("big.json")
        let text = "[" + String(repeating: "1234567, ", count: 4_000) + "0]"
        writeInPlace(file, text)
        let reader = SnapshotReader(tuning: .tuned)
        let (bytes, mapping) = try #require(reader.map(file, from: 1))
        #expect(bytes.count == text.utf8.count && bytes[0] == UInt8(ascii: "["))
        #expect(truncate(file, 100) == 0)
        let tail = bytes.withUnsafeBufferPointer { Array($0[(bytes.count - 5000)...]) }
        #expect(tail.allSatisfy { $0 == 0 })
        #expect(!reader.isIntact(mapping, at: file))
    }

    /// Untouched, the mapping is intact; a same-size write in place that keeps the timestamps
    /// is not.
    @Test func aWriteInPlaceOfTheSameSizeIsSeen() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": 1}"#)
        let reader = SnapshotReader(tuning: .tuned)
        let (_, untouched) = try #require(reader.map(file, from: 1))
        #expect(reader.isIntact(untouched, at: file))
        let (bytes, mapping) = try #require(reader.map(file, from: 1))
        // Its old timestamps put back: as a write within one clock tick leaves them.
        var before = stat()
        stat(file, &before)
        let fd = open(file, O_WRONLY | O_CLOEXEC)
        #expect(pwrite(fd, "2", 1, 6) == 1)
        let times = [before.st_atim, before.st_mtim]
        #expect(futimens(fd, times) == 0)
        close(fd)
        #expect(bytes[6] == UInt8(ascii: "2"))
        #expect(!reader.isIntact(mapping, at: file))
    }

    /// Another process rewrites the file in place while the write uses its mapped bytes (in
    /// every way: same size, shorter, longer, truncated to nothing and written again): the
    /// write starts again and applies to the new content alone.
    @Test(arguments: [
        #"{"n": [7, 8, 9]}"#,
        #"{"n": [7]}"#,
        #"{"n": [7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], "more": "yes"}"#,
    ])
    func aChangeInPlaceWhileMappedStartsTheWriteAgain(_ newText: String) throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        let oldText = #"{"n": [1, 2, 3], "pad": ""# + String(repeating: "x", count: 20_000) + "\"}"
        for early in [true, false] {
            writeInPlace(file, oldText)
            let options = Self.mapping { attempt in if attempt == 1 { writeInPlace(file, newText) } }
            let writes = JSONWrite.set(try Path("/n/0"), 10)
            let outcome = early
                ? try FileStore.writeUnreadOutcome(writes, toFile: file, options: options, serverTime: { 42 })
                : try FileStore.writeUnread(toFile: file, options: options, serverTime: { 42 }, reading: nil, early: .none) { _ throws(WriteError) in writes }
            #expect(outcome.attempts == 2, "early: \(early)")
            #expect(Disk.text(file) == newText.replacing("[7", with: "[10"), "early: \(early)")
            #expect(Disk.entries(folder.path) == ["data.json"])
        }
    }

    /// The file is rewritten meanwhile with content the write cannot apply to (its path names a
    /// key in what is now an array): the error is the one a reading write gives for the new
    /// content, not one made of a mix of the two.
    @Test func anErrorIsTheNewContents() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        let other = folder.file("other.json")
        writeInPlace(other, #"{"n": [5]}"#)
        let writes = JSONWrite.set(try Path("/n/x"), 10)
        let expected = try #require(throws: WriteError.self) { try FileStore.write(writes, toFile: other) }
        writeInPlace(file, #"{"n": {"y": 1}}"#)
        let options = Self.mapping { attempt in if attempt == 1 { writeInPlace(file, #"{"n": [5]}"#) } }
        let error = try #require(throws: WriteError.self) { try FileStore.writeUnread(writes, toFile: file, options: options) }
        #expect(error == expected)
        #expect(Disk.text(file) == #"{"n": [5]}"#)
    }
}
