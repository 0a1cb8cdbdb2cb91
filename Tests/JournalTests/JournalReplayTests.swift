// A journal replayed as a store fills a synced array's history: the time machine steps back
// through every recorded revision, with the times the journal recorded.
import JSONTree
import LiveQuery
import StoreInterface
import SyncedArray
import Testing
import TestSupport
@testable import Journal

@Suite("A journal replayed into the time machine")
struct JournalReplayTests {
    @Test("stepping back from the last revision shows each recorded revision's rows, at its recorded time")
    func timeMachineOverTheRecording() throws {
        try forEachSeed(8) { seed, rng in
            let folder = ScratchFolder("journal-replay")
            let path = folder.file("rows.journal")
            let writer = try JournalWriter(path: path)
            var rows = (0..<rng.int(1...30)).map { (key: "r\($0)", value: rng.int(0...100)) }
            var states = [[(key: String, value: Int)]]()
            for n in 0..<rng.int(2...30) {
                if n > 0 {
                    // A few rows change; one may be added or removed.
                    for _ in 0..<rng.int(1...3) where !rows.isEmpty { rows[rng.int(0..<rows.count)].value = rng.int(0...100) }
                    if rng.chance(0.3) { rows.append((key: "n\(n)", value: rng.int(0...100))) }
                    if rng.chance(0.2) && rows.count > 1 { rows.remove(at: rng.int(0..<rows.count)) }
                }
                let value = JSON.object(JSONObject(rows.map { ($0.key, ["v": .number(JSONNumber($0.value))]) }))
                try writer.append(JSONDocument(value), time: 1_000 + Double(n), writer: "other process")
                if states.last.map({ $0.map(\.key) != rows.map(\.key) || $0.map(\.value) != rows.map(\.value) }) ?? true { states.append(rows) }
            }
            let store = try JournalStore(path: path)
            store.publishesEveryRevision = true
            let array = SyncedArray(store.reference())
            array.history = RevisionHistory()
            array.startSync()
            store.processPendingChanges()
            let history = try #require(array.history)
            #expect(history.records.count == states.count - 1, "seed \(seed)")
            var cursor = HistoryCursor(history: history, present: Array(array.rows))
            for (i, state) in states.enumerated().reversed() {
                // The rows in key order (the query's), each with its value then.
                #expect(cursor.rows.map(\.key) == state.map(\.key).sorted(), "seed \(seed), revision \(i + 1)")
                let values = Dictionary(uniqueKeysWithValues: cursor.rows.map { ($0.key, $0.value.child("v")?.doubleValue) })
                #expect(values == Dictionary(uniqueKeysWithValues: state.map { ($0.key, Optional(Double($0.value))) }), "seed \(seed), revision \(i + 1)")
                if i > 0 {
                    #expect(cursor.record?.writer == .otherProcess || cursor.record?.writer == .unknown)
                    let stepped = cursor.stepBack()
                    #expect(stepped, "seed \(seed): no step back to revision \(i)")
                }
            }
            let beyond = cursor.stepBack()
            #expect(!beyond, "nothing before the first revision")
            #expect(history.records.allSatisfy { $0.time >= 1_000 && $0.time < 1_030 }, "the recorded times, not now")
        }
    }

    @Test("a change to another element of an array the location is in counts as a change above it")
    func arraySiblingsRenumber() {
        func place(_ pointer: [String], _ location: [String]) -> String {
            switch childPlace(of: pointer, under: location) {
            case .atOrAbove: return "above"
            case .beside: return "beside"
            case .child(let key): return "child \(key)"
            }
        }
        #expect(place(["items", "1"], ["items", "3", "tags"]) == "above")  // removing element 1 renumbers 3
        #expect(place(["items", "1", "name"], ["items", "3", "tags"]) == "above")
        #expect(place(["players", "a"], ["players", "b", "tags"]) == "beside")
        #expect(place(["items", "3", "tags", "x"], ["items", "3", "tags"]) == "child x")
        #expect(place(["items"], ["items", "3", "tags"]) == "above")
    }
}
