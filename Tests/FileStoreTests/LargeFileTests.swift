// Large files are read and parsed on the worker thread: the loop keeps running meanwhile.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport

@Suite struct LargeFileTests {
    @Test func parseRunsOffTheLoopThread() throws {
        let folder = ScratchFolder()
        let path = folder.file("big.json")
        writeInPlace(path, sampleDocument(seq: 0, count: 20_000))
        let store = try FileStore(path: path)
        var windows = [Int]()
        try store.reference("/items").orderByChild("score").limitToFirst(5).observe(.value) { windows.append($0.count) }
        try store.waitForRevision(1, timeoutMilliseconds: 60_000)
        writeByRename(path, sampleDocument(seq: 1, count: 20_000))
        // processPendingChanges() returns as soon as the read has started: the loop is free
        // while the worker reads and parses, and the revision arrives on a later call.
        try store.run(timeoutMilliseconds: 10_000) { store.isReading }
        #expect(store.currentRevision?.number == 1)
        let revision = try store.waitForRevision(2, timeoutMilliseconds: 60_000)
        #expect(revision.root.child("seq")?.doubleValue == 1)
        #expect(windows == [5, 5])
    }
}
