// The synced array on a live file: first rows, revisions with several kinds of change at once,
// key identity by code units, and stopping that leaves other observers alone.
@testable import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport
@testable import SyncedArray

@Suite struct SyncedArrayTests {
    @Test func rowsArriveAsOneBatchOfInsertsWithTheFirstRevision() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, #"{"items":{"b":{"score":2},"a":{"score":9},"c":{"score":1}}}"#)
        let store = try FileStore(path: file)
        let array = SyncedArray(try store.reference(path("/items")).orderByChild(path("/score")))
        let recorder = Recorder(array)
        array.startSync()
        #expect(array.isEmpty && recorder.updates == 0)  // no revision yet
        store.wait(forRevision: 1)
        #expect(array.keys == ["c", "b", "a"])
        #expect(recorder.events == ["add c @0", "add b @1", "add a @2"])
        #expect(recorder.batches.map(\.inserts) == [[0, 1, 2]])
        #expect(recorder.updates == 1)
        #expect(array.index(ofKey: "a") == 2 && array.index(ofKey: "zz") == nil)
        #expect(array[1].value.child("score")?.doubleValue == 2)
        try array.checkInvariants()
    }

    @Test func syncingOnAStoreWithARevisionFillsTheArrayAtOnce() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, #"{"x":1,"y":2}"#)
        let store = try FileStore(path: file)
        store.wait(forRevision: 1)
        let array = SyncedArray(store.reference())
        let recorder = Recorder(array, events: false)
        array.startSync()
        #expect(array.keys == ["x", "y"] && recorder.batches.count == 1)
    }

    /// The design's example: old {A:1, B:2}, new {A:1, B:0, C:0.5} by value — an add and a move
    /// in one revision, which the database's own events do not replay.
    @Test func aRevisionThatAddsAndMovesAtOnceReplaysExactly() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, #"{"A":1,"B":2}"#)
        let store = try FileStore(path: file)
        store.wait(forRevision: 1)
        let array = SyncedArray(try store.reference().orderByValue())
        let recorder = Recorder(array)
        array.startSync()
        _ = recorder.take()
        writeByRename(file, #"{"A":1,"B":0,"C":0.5}"#)
        store.wait(forRevision: 2)
        #expect(array.keys == ["B", "C", "A"])
        #expect(recorder.replayed.map(\.key) == ["B", "C", "A"])
        #expect(recorder.batched.map(\.key) == ["B", "C", "A"])
        let got = recorder.take()
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(got.updates == 1 && got.batches.count == 1)
        let batch = try #require(got.batches.first)
        #expect(batch.inserts == [1] && batch.deletes.isEmpty && batch.moves.count == 1)
        #expect(batch.reloads.map(\.key) == ["B"])
    }

    /// A limited window stays full: a child entering pushes the last row out, in one batch.
    @Test func aChildEnteringALimitedWindowPushesTheLastOut() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, #"{"a":{"s":1},"b":{"s":2},"c":{"s":3}}"#)
        let store = try FileStore(path: file)
        store.wait(forRevision: 1)
        let array = SyncedArray(try store.reference().orderByChild(path("/s")).limitToFirst(2))
        let recorder = Recorder(array)
        array.startSync()
        _ = recorder.take()
        writeByRename(file, #"{"a":{"s":1},"b":{"s":2},"c":{"s":0}}"#)
        store.wait(forRevision: 2)
        #expect(array.keys == ["c", "a"])
        #expect(recorder.events == ["remove b @1", "add c @0"])
        let batch = try #require(recorder.take().batches.first)
        #expect(batch.deletes == [1] && batch.inserts == [0] && batch.moves.isEmpty && batch.reloads.isEmpty)
    }

    /// "é" precomposed and "e" + combining acute are two keys, though `String ==` calls them equal.
    @Test func keysAreIdentifiedByCodeUnits() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, "{\"\u{E9}\":1,\"e\u{301}\":2}")
        let store = try FileStore(path: file)
        store.wait(forRevision: 1)
        let array = SyncedArray(store.reference())
        array.startSync()
        #expect(array.count == 2)
        let precomposed = try #require(array.index(ofKey: "\u{E9}"))
        let decomposed = try #require(array.index(ofKey: "e\u{301}"))
        #expect(precomposed != decomposed)
        #expect(array[precomposed].value.doubleValue == 1 && array[decomposed].value.doubleValue == 2)
        try array.checkInvariants()
    }

    @Test func stoppingRemovesOnlyTheArraysObserverAndRestartingReportsTheDifference() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, #"{"a":1,"b":2}"#)
        let store = try FileStore(path: file)
        store.wait(forRevision: 1)
        let reference = try store.reference().orderByValue()
        var othersSaw = [Int]()
        reference.observeChanges { othersSaw.append($0.new.count) }
        let array = SyncedArray(reference)
        let recorder = Recorder(array)
        array.startSync()
        #expect(array.isSyncing)
        array.stopSync()
        #expect(!array.isSyncing)
        _ = recorder.take()
        writeByRename(file, #"{"a":5,"c":3}"#)
        store.wait(forRevision: 2)
        #expect(othersSaw == [2, 2])  // the other observer still hears
        #expect(array.keys == ["a", "b"] && recorder.updates == 0)  // the array does not
        array.startSync()
        #expect(array.keys == ["c", "a"])
        let got = recorder.take()
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(got.batches.count == 1)
        let batch = try #require(got.batches.first)
        #expect(batch.deletes == [1] && batch.inserts == [0] && batch.reloads.map(\.key) == ["a"])
    }

    @Test func anArrayGoneRemovesItsObserver() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, #"{"a":1}"#)
        let store = try FileStore(path: file)
        store.wait(forRevision: 1)
        var array: SyncedArray? = SyncedArray(store.reference())
        weak let weakArray = array
        array?.startSync()
        #expect(array?.count == 1)
        #expect(store.hub.listenedQueryCount == 1)
        array = nil
        #expect(weakArray == nil)
        #expect(store.hub.listenedQueryCount == 0)
    }

    /// A delegate may replace the query while being told of an update: the replacement waits for
    /// the update to end, then comes as its own batch.
    @Test func aDelegateReplacingTheQueryDuringAnUpdateIsDeferred() throws {
        final class Reverser: SyncedArrayBatchDelegate {
            var batches: [BatchDiff] = []
            var replacement: Query?
            func syncedArray(_ array: SyncedArray, didApply batch: BatchDiff) {
                batches.append(batch)
                if let q = replacement {
                    replacement = nil
                    array.replaceQuery(q)
                    #expect(array.query != q)  // not yet
                }
            }
        }
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, #"{"a":1,"b":2,"c":3}"#)
        let store = try FileStore(path: file)
        store.wait(forRevision: 1)
        let array = SyncedArray(try store.reference().orderByValue())
        let delegate = Reverser()
        delegate.replacement = try Query().orderByValue().limitToLast(1)
        array.batchDelegate = delegate
        array.startSync()
        #expect(array.keys == ["c"])
        #expect(delegate.batches.count == 2)
        #expect(delegate.batches.last?.deletes == [0, 1])
        try array.checkInvariants()
    }
}
