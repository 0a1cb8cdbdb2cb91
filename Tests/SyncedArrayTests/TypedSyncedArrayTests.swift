// Typed rows: decoded straight from the revision; rows that do not decode stay as error entries.
import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport
@testable import SyncedArray

@Suite struct TypedSyncedArrayTests {
    struct Player: Decodable, Equatable {
        var name: String
        var score: Int
    }

    @Test func rowsThatDoNotDecodeAreErrorEntriesAndTheArrayGoesOn() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, #"{"a":{"name":"ann","score":3},"b":{"name":"bob","score":"high"},"c":7,"d":{"name":"dee","score":1}}"#)
        let store = try FileStore(path: file)
        let players = TypedSyncedArray<Player>(try store.reference().orderByKey())
        var reported = [[RowDecodingError]]()
        players.onRowErrors = { reported.append($0) }
        let recorder = Recorder(players.array)
        players.array.startSync()
        store.wait(forRevision: 1)
        #expect(players.count == 4 && players.array.count == 4)
        #expect(players[0].value == Player(name: "ann", score: 3))
        #expect(players[1].error == RowDecodingError(key: "b", message: "score: expected Int, found a string"))
        #expect(players[2].error == RowDecodingError(key: "c", message: "expected an object, found a number"))
        #expect(players[3].value == Player(name: "dee", score: 1))
        #expect(players.errorCount == 2 && players.rowErrors.map(\.key) == ["b", "c"])
        #expect(reported.map { $0.map(\.key) } == [["b", "c"]])
        #expect(players[1].error?.description == #"row "b": score: expected Int, found a string"#)

        // b is fixed, c removed, e added broken: only the changed rows are decoded and reported.
        writeByRename(file, #"{"a":{"name":"ann","score":3},"b":{"name":"bob","score":9},"d":{"name":"dee","score":1},"e":{}}"#)
        store.wait(forRevision: 2)
        #expect(players.map(\.key) == ["a", "b", "d", "e"])
        #expect(players[1].value == Player(name: "bob", score: 9))
        #expect(players[3].error?.message == #"no member "name""#)
        #expect(players.errorCount == 1)
        #expect(reported.count == 2 && reported[1].map(\.key) == ["e"])
        #expect(players.index(ofKey: "d") == 2)
        #expect(recorder.take().problems.isEmpty)
    }

    /// With a batch delegate only, the typed rows take the batch in one go.
    @Test func typedRowsFollowBatchesAndQueryReplacement() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeByRename(file, #"{"a":{"name":"x","score":3},"b":{"name":"y","score":1},"c":{"name":"z","score":2}}"#)
        let store = try FileStore(path: file)
        store.wait(forRevision: 1)
        let array = SyncedArray(try store.reference().orderByChild(path("/score")))
        let players = TypedSyncedArray<Player>(array)
        array.startSync()
        #expect(players.compactMap(\.value?.name) == ["y", "z", "x"])
        array.replaceQuery(try Query().orderByChild(path("/score")).limitToLast(2))
        #expect(players.compactMap(\.value?.name) == ["z", "x"])
        try array.checkInvariants()
    }
}
