// Invalid, half-written, missing and unreadable files: reported, never a revision, cleared when fixed.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Testing
import TestSupport

@Suite struct ProblemTests {
    @Test func invalidJSONIsReportedWithPositionAndClearedWhenValid() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"a":1}"#)
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)

        let broken = "{\n  \"a\": 2,\n}"
        writeByRename(path, broken)
        r.run { r.store.status.problem != nil }
        let expected: JSONParseError
        do {
            _ = try JSONDocument(parsing: broken)
            Issue.record("the fixture should be invalid")
            return
        } catch { expected = error }
        #expect(r.store.status.problem == .invalidJSON(expected))
        #expect(r.store.status.problem?.position?.line == 3)
        #expect(r.store.status.revision == 1)
        #expect(r.currentText == #"{"a":1}"#)

        writeInPlace(path, #"{"a":3}"#)
        r.waitForContent(#"{"a":3}"#)
        #expect(r.store.status == StoreStatus(revision: 2, problem: nil, watchMode: .inotify))
        // The status went: loading, fine, invalid, fine again — with no revision for the invalid state.
        #expect(r.statuses.map(\.revision) == [0, 1, 1, 2])
        #expect(r.statuses.map { $0.problem == nil } == [true, true, false, true])
        #expect(r.revisions.count == 2)
    }

    /// Going back to exactly the last good bytes clears the problem without a new revision.
    @Test func restoringTheLastGoodStateClearsTheProblem() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"a":1}"#)
        let r = try RecordingStore(path: path)
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)
        writeInPlace(path, #"{"a":"#)
        r.run { r.store.status.problem != nil }
        writeInPlace(path, #"{"a":1}"#)
        r.run { r.store.status.problem == nil }
        #expect(r.revisions.count == 1)
    }

    /// A writer still holding the file open with half its content: not reported until the
    /// settle delay passes, then reported; finishing the write clears it.
    @Test func halfWrittenFileIsReportedOnlyWhenItLasts() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"a":1}"#)
        let r = try RecordingStore(path: path, options: .init(settleMilliseconds: 300))
        try r.store.waitForRevision(1, timeoutMilliseconds: 5000)

        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        _ = write(fd, "{\"a\":", 5)
        let start = monotonicNanoseconds()
        r.run { r.store.status.problem != nil }
        let waited = monotonicNanoseconds() - start
        #expect(waited >= 250_000_000, "reported after \(waited / 1_000_000) ms, before the settle delay")
        #expect(r.store.status.problem?.position != nil)

        _ = write(fd, "2}", 2)
        close(fd)
        r.waitForContent(#"{"a":2}"#)
        #expect(r.store.status.problem == nil)
        #expect(r.contents == [#"{"a":1}"#, #"{"a":2}"#])
    }

    /// Some megabytes of JSON, different for each `k`: reading and parsing them takes a while.
    private static func state(_ k: Int) -> String {
        "{" + (0..<60_000).map { #""k\#($0)":{"v":\#($0 + k),"s":"some text to read and parse"}"# }.joined(separator: ",") + "}"
    }

    /// A store of a file in `folder` holding `state(0)`, its first revision read.
    private static func store(in folder: ScratchFolder, settleMilliseconds: Int) throws -> (path: String, store: RecordingStore) {
        let path = folder.file("data.json")
        writeInPlace(path, state(0))
        let r = try RecordingStore(path: path, options: .init(settleMilliseconds: settleMilliseconds))
        try r.store.waitForRevision(1, timeoutMilliseconds: 10_000)
        return (path, r)
    }

    /// A store of `state(0)` made half-written (one write, the file kept open: the store waits out
    /// the settle delay), and that write's read done. Returns the descriptor: close-on-exec, or
    /// a process another test starts meanwhile holds it, and closes it (a real `IN_CLOSE_WRITE`,
    /// which asks for a read) whenever it ends.
    private static func halfWritten(_ path: String, _ r: RecordingStore) -> Int32 {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        let parses = r.store.statistics.parses
        #expect(pwrite(fd, "[", 1, 0) == 1)
        r.run { r.store.statistics.parses > parses }
        return fd
    }

    /// A save by rename that ends a half-written state before or after its settle delay would
    /// end: the save's read is the one read made, never cancelled when the delay ends, nor
    /// followed by another.
    @Test func aSaveEndingAHalfWrittenStateIsReadOnce() throws {
        let folder = ScratchFolder()
        let (path, r) = try Self.store(in: folder, settleMilliseconds: 300)
        for (k, delay) in [200, 280, 350].enumerated() {
            let fd = Self.halfWritten(path, r)
            let (reads, superseded) = (r.store.statistics.reads, r.store.statistics.superseded)
            // The store's loop runs on this thread only: nothing is read while it sleeps.
            usleep(UInt32(delay * 1000))
            writeByRename(path, Self.state(k + 1))
            r.waitForContent(Self.state(k + 1))
            r.settle(milliseconds: 400)
            #expect(r.store.statistics.superseded == superseded, "the save \(delay) ms into the delay was cancelled")
            #expect(r.store.statistics.reads == reads + 1, "the save \(delay) ms into the delay was read again")
            close(fd)
            r.settle(milliseconds: 100)
        }
        #expect(r.revisions.count == 4)
    }

    /// The writer of a half-written state puts the last good bytes back after its settle delay
    /// has run out, the file still open: the read that write starts is let finish, not
    /// cancelled by the delay ending in the same turn of the loop.
    @Test func theSettleDelayLetsAReadInFlightFinish() throws {
        let folder = ScratchFolder()
        let (path, r) = try Self.store(in: folder, settleMilliseconds: 200)
        let fd = Self.halfWritten(path, r)
        let (reads, superseded) = (r.store.statistics.reads, r.store.statistics.superseded)
        usleep(300_000)
        #expect(pwrite(fd, "{", 1, 0) == 1)
        // That write's read, then the settled one the delay asks for after it.
        r.run { r.store.statistics.reads >= reads + 2 }
        r.settle(milliseconds: 300)
        #expect(r.store.statistics.superseded == superseded)
        #expect(r.store.status.problem == nil)
        #expect(r.revisions.count == 1)
        close(fd)
    }

    @Test func emptyFileIsInvalid() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, "")
        let r = try RecordingStore(path: path)
        r.run { r.store.status.problem != nil }
        #expect(r.store.status.problem?.position?.line == 1)
        #expect(r.store.currentRevision == nil)
    }

    @Test func directoryAndUnreadableFileAreReported() throws {
        let folder = ScratchFolder()
        let dir = folder.file("dir.json")
        mkdir(dir, 0o755)
        let r = try RecordingStore(path: dir)
        r.run { r.store.status.problem != nil }
        #expect(r.store.status.problem == .unreadable("is a directory, not a JSON file"))

        // Permission bits do not stop root; a FIFO is unreadable for everyone.
        let fifo = folder.file("fifo.json")
        mkfifo(fifo, 0o644)
        let f = try RecordingStore(path: fifo)
        f.run { f.store.status.problem != nil }
        #expect(f.store.status.problem == .unreadable("not a regular file"))
    }

    @Test func emptyPathIsAnError() {
        #expect(throws: FileStoreError.emptyPath) { try FileStore(path: "") }
    }
}
