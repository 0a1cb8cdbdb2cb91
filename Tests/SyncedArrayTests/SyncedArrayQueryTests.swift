// Replacing the query while syncing, and paging: each change one batch, moves as few as possible.
// Only revisions matter here: the stores are in memory.
import StoreInterface
import JSONTree
import LiveQuery
import Testing
import TestSupport
@testable import SyncedArray

/// Ten players: key, name, score.
private let players = playersText(cy: 10)

private func playersText(cy: Int) -> String {
    #"""
{"players":{
 "p0":{"name":"jo","score":50},"p1":{"name":"al","score":20},"p2":{"name":"bo","score":90},
 "p3":{"name":"cy","score":\#(cy)},"p4":{"name":"di","score":70},"p5":{"name":"ed","score":30},
 "p6":{"name":"fa","score":60},"p7":{"name":"gu","score":80},"p8":{"name":"hu","score":40},
 "p9":{"name":"iv","score":0}}}
"""#
}

private func playerStore() throws -> MemoryStore { try MemoryStore(parsed(players)) }

private func parsed(_ text: String) throws -> JSON { try JSONDocument(parsing: Array(text.utf8)).root.json }

private let score = path("/score"), name = path("/name")

/// Replaces the query and checks the one batch against a window from scratch.
private func replace(
    _ array: SyncedArray, _ recorder: Recorder, with query: Query, paging: Paging?? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> BatchDiff {
    _ = recorder.take()
    let old = array.keys
    if let paging { array.replaceQuery(query, paging: paging) } else { array.replaceQuery(query) }
    let want = expected(array, array.store.currentRevision!.document)
    let got = recorder.take()
    #expect(got.problems.isEmpty, "\(got.problems)", sourceLocation: sourceLocation)
    #expect(got.updates == 1 && got.batches.count == 1, sourceLocation: sourceLocation)
    #expect(same(array.rows.map(PlainRow.init), want.rows), "\(array.keys)", sourceLocation: sourceLocation)
    #expect(same(recorder.replayed, want.rows) && same(recorder.batched, want.rows), sourceLocation: sourceLocation)
    let batch = try #require(got.batches.first, sourceLocation: sourceLocation)
    #expect(batch.moves.count == fewestMoves(old: old, new: array.keys), sourceLocation: sourceLocation)
    #expect(throws: Never.self, sourceLocation: sourceLocation) { try array.checkInvariants() }
    return batch
}

@Suite struct SyncedArrayQueryTests {
    @Test func overManyChildrenANewQueryIsEvaluatedOffTheLoopThreadAndArrivesAsOneBatch() throws {
        let store = try MemoryStore(parsed(players), inlineEvaluationLimit: 5)
        let array = SyncedArray(try store.reference(path("/players")).orderByChild(score))
        let recorder = Recorder(array)
        array.startSync()
        let byScore = ["p9", "p3", "p1", "p5", "p8", "p0", "p6", "p4", "p7", "p2"]
        try store.run(timeoutMilliseconds: 10_000) { array.keys == byScore }
        _ = recorder.take()

        #expect(!array.isAwaitingRows)
        array.replaceQuery(try Query().orderByChild(name))
        #expect(array.keys == byScore && array.isAwaitingRows)  // the rows stay until the new window is ready
        try store.run(timeoutMilliseconds: 10_000) { array.keys != byScore }
        #expect(array.keys == ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p0"] && !array.isAwaitingRows)
        let got = recorder.take()
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(got.updates == 1 && got.batches.count == 1)
        #expect(got.batches.first?.moves.count == fewestMoves(old: byScore, new: array.keys))
        #expect(throws: Never.self) { try array.checkInvariants() }
    }

    @Test func sortingByAnotherChildMovesRowsInOneBatch() throws {
        let store = try playerStore()
        let array = SyncedArray(try store.reference(path("/players")).orderByChild(score))
        let recorder = Recorder(array)
        array.startSync()
        #expect(array.keys == ["p9", "p3", "p1", "p5", "p8", "p0", "p6", "p4", "p7", "p2"])
        let batch = try replace(array, recorder, with: try Query().orderByChild(name))
        #expect(array.keys == ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p0"])
        #expect(batch.deletes.isEmpty && batch.inserts.isEmpty && batch.reloads.isEmpty)
        #expect(!batch.moves.isEmpty)
    }

    @Test func reversingALimitedQueryDeletesAndInserts() throws {
        let store = try playerStore()
        let array = SyncedArray(try store.reference(path("/players")).orderByChild(score).limitToFirst(4))
        let recorder = Recorder(array)
        array.startSync()
        #expect(array.keys == ["p9", "p3", "p1", "p5"])
        let batch = try replace(array, recorder, with: try Query().orderByChild(score).limitToLast(4))
        #expect(array.keys == ["p6", "p4", "p7", "p2"])
        #expect(batch.deletes == [0, 1, 2, 3] && batch.inserts == [0, 1, 2, 3])
    }

    @Test func changingABoundKeepsTheRowsStillInRange() throws {
        let store = try playerStore()
        let array = SyncedArray(try store.reference(path("/players")).orderByChild(score).startAt(20).endAt(60))
        let recorder = Recorder(array)
        array.startSync()
        #expect(array.keys == ["p1", "p5", "p8", "p0", "p6"])
        let batch = try replace(array, recorder, with: try Query().orderByChild(score).startAt(40).endAt(80))
        #expect(array.keys == ["p8", "p0", "p6", "p4", "p7"])
        #expect(batch.deletes == [0, 1] && batch.inserts == [3, 4] && batch.moves.isEmpty)
    }

    /// Replaced while stopped, restarted after the file changed: one batch, with reloads.
    @Test func aQueryReplacedWhileStoppedIsDiffedWhenSyncResumes() throws {
        let store = try playerStore()
        let array = SyncedArray(try store.reference(path("/players")).orderByChild(score).limitToFirst(3))
        let recorder = Recorder(array)
        array.startSync()
        array.stopSync()
        array.replaceQuery(try Query().orderByChild(name).limitToFirst(3))
        #expect(array.keys == ["p9", "p3", "p1"])  // nothing happens until syncing
        store.publish(try parsed(playersText(cy: 11)))
        store.wait(forRevision: 2)
        _ = recorder.take()
        array.startSync()
        #expect(array.keys == ["p1", "p2", "p3"])
        let got = recorder.take()
        #expect(got.problems.isEmpty && got.batches.count == 1, "\(got.problems)")
        let batch = try #require(got.batches.first)
        #expect(batch.deletes == [0] && batch.inserts == [1])
        #expect(batch.reloads.map(\.key) == ["p3"])
        #expect(same(recorder.replayed, array.rows.map(PlainRow.init)))
    }

    @Test func pagingFromTheStartAddsPagesAfterTheRows() throws {
        let store = try playerStore()
        let array = SyncedArray(try store.reference(path("/players")).orderByChild(score), paging: Paging(pageSize: 4))
        let recorder = Recorder(array)
        array.startSync()
        #expect(array.keys == ["p9", "p3", "p1", "p5"] && array.hasMore)
        #expect(array.observedQuery.limit == .first(5))  // one more than shown: bounded by the page
        #expect(array.window?.count == 5)
        _ = recorder.take()
        #expect(array.loadMore())
        #expect(array.keys == ["p9", "p3", "p1", "p5", "p8", "p0", "p6", "p4"] && array.hasMore)
        var got = recorder.take()
        #expect(got.batches.map(\.inserts) == [[4, 5, 6, 7]] && got.problems.isEmpty)
        #expect(array.loadMore())
        #expect(array.count == 10 && !array.hasMore)
        got = recorder.take()
        #expect(got.batches.map(\.inserts) == [[8, 9]])
        #expect(!array.loadMore())  // nothing more
        #expect(recorder.take().updates == 0)
        try array.checkInvariants()
    }

    @Test func pagingFromTheEndAddsPagesBeforeTheRows() throws {
        let store = try playerStore()
        let array = SyncedArray(
            try store.reference(path("/players")).orderByChild(score).limitToFirst(1),  // the limit is replaced
            paging: Paging(pageSize: 3, from: .end))
        let recorder = Recorder(array)
        array.startSync()
        #expect(array.keys == ["p4", "p7", "p2"] && array.hasMore)
        #expect(array.observedQuery.limit == .last(4))
        _ = recorder.take()
        #expect(array.loadMore())
        #expect(array.keys == ["p8", "p0", "p6", "p4", "p7", "p2"])
        #expect(recorder.take().batches.map(\.inserts) == [[0, 1, 2]])
        #expect(array.loadMore() && array.loadMore())
        #expect(array.count == 10 && !array.hasMore)
    }

    /// While paged, edits move rows in and out of the pages and `hasMore` follows the data.
    @Test func pagesFollowEditsAndHasMoreFollowsTheData() throws {
        let store = try MemoryStore(parsed(#"{"a":1,"b":2,"c":3}"#))
        let array = SyncedArray(try store.reference().orderByValue(), paging: Paging(pageSize: 2))
        let recorder = Recorder(array)
        array.startSync()
        #expect(array.keys == ["a", "b"] && array.hasMore)
        _ = recorder.take()
        store.publish(try parsed(#"{"a":1,"b":2}"#))  // the hidden child leaves: no batch, no more
        store.wait(forRevision: 2)
        #expect(array.keys == ["a", "b"] && !array.hasMore && recorder.take().updates == 0)
        store.publish(try parsed(#"{"a":1,"b":2,"z":0}"#))  // enters at the top, pushes b out
        store.wait(forRevision: 3)
        #expect(array.keys == ["z", "a"] && array.hasMore)
        let got = recorder.take()
        #expect(got.problems.isEmpty && got.batches.first?.deletes == [1] && got.batches.first?.inserts == [0])
        #expect(same(recorder.replayed, array.rows.map(PlainRow.init)))
    }

    /// Work and memory per revision follow the page, not the file: a page of 5 over 2,000 children.
    @Test func aPagedArrayHoldsThePageNotTheCollection() throws {
        var text = "{"
        for i in 0..<2000 { text += (i == 0 ? "" : ",") + "\"k\(i)\":\(i % 997)" }
        let store = try MemoryStore(parsed(text + "}"))
        let array = SyncedArray(try store.reference().orderByValue(), paging: Paging(pageSize: 5, from: .end))
        array.startSync()
        #expect(array.count == 5 && array.hasMore)
        #expect(array.window?.count == 6)
        #expect(array.statistics.keyedBatches == 1)
    }

    @Test func replacingThePagingStartsFromOnePage() throws {
        let store = try playerStore()
        let array = SyncedArray(try store.reference(path("/players")).orderByChild(score), paging: Paging(pageSize: 2))
        let recorder = Recorder(array)
        array.startSync()
        array.loadMore()
        #expect(array.pages == 2 && array.count == 4)
        let batch = try replace(array, recorder, with: array.query, paging: .some(Paging(pageSize: 3).reversed))
        #expect(array.pages == 1 && array.keys == ["p4", "p7", "p2"])
        #expect(batch.deletes == [0, 1, 2, 3])
        _ = try replace(array, recorder, with: try Query().orderByKey(), paging: .some(nil))
        #expect(array.count == 10 && !array.hasMore)
    }
}
