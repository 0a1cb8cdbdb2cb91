// The binding example of `SyncedArray`'s documentation, run: a table bound to the batch delegate,
// sorted by another column, paged near its end, started from the first-page cache.
import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport
@testable import SyncedArray

/// A stand-in for a table view: keeps its own copy of the rows, updated only by batches.
private final class Table: SyncedArrayBatchDelegate {
    var shown: [String] = []
    var selectedRow = 0

    func syncedArray(_ array: SyncedArray, didApply batch: BatchDiff) {
        shown = batch.apply(to: shown) { array[$0].key }  // what performBatch would animate
    }
}

@Suite struct ExampleTests {
    @Test func theDocumentedBindingWorks() throws {
        let folder = ScratchFolder()
        let file = folder.file("players.json")
        var text = #"{"players":{"#
        for i in 0..<120 { text += (i == 0 ? "" : ",") + #""p\#(i)":{"name":"n\#(119 - i)","score":\#(i * 7 % 120)}"# }
        writeByRename(file, text + "}}")
        let cacheFolder = folder.file("cache")

        for run in 0..<2 {
            let store = try FileStore(path: file)
            let players = SyncedArray(
                try store.reference(Path("/players")).orderByChild(Path("score")),
                paging: Paging(pageSize: 50, from: .end),
                cache: FirstPageCache.standard(environment: ["XDG_CACHE_HOME": cacheFolder]))
            let table = Table()
            var warnings = [CacheWarning]()
            players.batchDelegate = table
            players.onCacheWarning = { warnings.append($0) }
            players.startSync()
            // The second run shows last run's first page before the file is read.
            #expect(players.isShowingCache == (run == 1) && table.shown.count == (run == 1 ? 50 : 0), "\(warnings)")
            store.wait(forRevision: 1)
            #expect(table.shown == players.keys && players.count == 50 && players.hasMore)

            players.replaceQuery(try Query().orderByChild(Path("name")))
            let byName = expected(players, store.currentRevision!.document).rows.map(\.key)
            #expect(table.shown == players.keys && players.keys == byName && players.hasMore)
            table.selectedRow = players.count - 1
            if players.hasMore && table.selectedRow >= players.count - 5 { players.loadMore() }
            #expect(players.count == 100 && table.shown == players.keys)
            try players.checkInvariants()
            players.stopSync()
        }
    }
}
