// Randomised: random edits, several queries, on a real store of a real file (its partial re-parse
// and the worker's precomputed changes) and on a store in memory; after every revision (and every
// page loaded or query replaced), the events and the batches each rebuild exactly the query's
// window evaluated from scratch.
import FileStore
import JSONTree
import LiveQuery
import Testing
@testable import SyncedArray
import TestSupport

/// A query and paging the random test binds arrays to.
struct Binding {
    var query: Query
    var paging: Paging?
}

func bindings() throws -> [Binding] {
    let score = path("/score"), name = path("/name")
    return [
        Binding(query: try Query().orderByKey()),
        Binding(query: Query()),  // priority order
        Binding(query: try Query().orderByChild(score).limitToFirst(4)),
        Binding(query: try Query().orderByChild(score).limitToLast(4)),
        Binding(query: try Query().orderByChild(score).startAt(20).endAt(70)),
        Binding(query: try Query().orderByChild(name).startAfter("bob").limitToLast(3)),
        Binding(query: try Query().orderByKey().startAt("b").limitToFirst(3)),
        Binding(query: try Query().orderByValue().limitToFirst(5)),
        Binding(query: try Query().orderByChild(score), paging: Paging(pageSize: 3, from: .start)),
        Binding(query: try Query().orderByChild(score).endBefore(80), paging: Paging(pageSize: 2, from: .end)),
    ]
}

/// The rows an array must show for `document`, from a window evaluated from scratch with the
/// query's own limit (paging: the pages shown), and whether more exist.
func expected(_ array: SyncedArray, _ document: JSONDocument) -> (rows: [PlainRow], hasMore: Bool) {
    guard let paging = array.paging else {
        return (plainRows(Window(query: array.query, path: array.location, document: document)), false)
    }
    let n = paging.pageSize * array.pages
    let unlimited = array.query.withoutLimit
    let limited = paging.edge == .start ? try! unlimited.limitToFirst(n) : try! unlimited.limitToLast(n)
    let all = Window(query: unlimited, path: array.location, document: document)
    return (plainRows(Window(query: limited, path: array.location, document: document)), all.count > n)
}

/// An array under test with its recorder, typed view, and the rows it showed last.
final class Subject {
    let array: SyncedArray
    let recorder: Recorder
    let typed: TypedSyncedArray<Item>
    let events: Bool
    var last: [PlainRow] = []

    init(_ store: any LiveStore, _ binding: Binding, events: Bool) {
        array = SyncedArray(store.reference(path("/items")).withQuery(binding.query), paging: binding.paging)
        typed = TypedSyncedArray<Item>(array)
        recorder = Recorder(array, events: events)
        self.events = events
    }

    var name: String { "\(array.query)\(array.paging.map { " " + $0.description } ?? "") \(events ? "events" : "batch")" }

    /// Checks the array against `document` after one update (`reported`: whether it was reported).
    func check(_ document: JSONDocument, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let want = expected(array, document)
        let got = recorder.take()
        let changed = !same(want.rows, last)
        let label = "\(context) \(name)"
        #expect(got.problems.isEmpty, "\(label): \(got.problems)", sourceLocation: sourceLocation)
        #expect(got.updates == (changed ? 1 : 0), "\(label): \(got.updates) updates, rows changed: \(changed)", sourceLocation: sourceLocation)
        #expect(same(array.rows.map(PlainRow.init), want.rows), "\(label): rows \(array.keys), want \(want.rows.map(\.key))", sourceLocation: sourceLocation)
        #expect(same(recorder.batched, want.rows), "\(label): batches rebuilt \(recorder.batched.map(\.key))", sourceLocation: sourceLocation)
        if events {
            #expect(same(recorder.replayed, want.rows), "\(label): events rebuilt \(recorder.replayed.map(\.key))", sourceLocation: sourceLocation)
        }
        #expect(array.hasMore == want.hasMore, "\(label): hasMore \(array.hasMore)", sourceLocation: sourceLocation)
        #expect(throws: Never.self, "\(label)", sourceLocation: sourceLocation) { try array.checkInvariants() }
        for (i, row) in array.enumerated() {
            let fresh = try? JSONNodeDecoder().decode(Item.self, from: row.value)
            if !codeUnitsEqual(typed[i].key, row.key) || typed[i].value != fresh {
                Issue.record("\(label): typed row \(i) is \(typed[i].key) \(String(describing: typed[i].value)), want \(row.key) \(String(describing: fresh))", sourceLocation: sourceLocation)
                break
            }
        }
        last = want.rows
    }
}

@Suite struct SyncedArrayUpdatingTests {
    @Test(arguments: [false, true])
    func randomEditsRebuildEveryQuerysWindowExactly(inMemory: Bool) throws {
        let all = try bindings()
        try forEachSeed(8) { seed, rng in
            let folder = ScratchFolder()
            let file = folder.file("data.json")
            let memory = inMemory ? try MemoryStore() : nil
            /// The next revision: saved over the file, or published (a parse of the same bytes).
            func save(_ bytes: [UInt8]) throws {
                if let memory { memory.publish(try JSONDocument(parsing: bytes)) } else { writeByRename(file, bytes) }
            }
            var model = Model()
            for _ in 0..<rng.int(4...12) { model.edit(&rng) }
            try save(model.bytes(&rng))
            let store: any LiveStore = try memory ?? FileStore(path: file)
            let subjects = all.flatMap { [Subject(store, $0, events: true), Subject(store, $0, events: false)] }
            for s in subjects { s.array.startSync() }
            store.wait(forRevision: 1)
            var document = store.currentRevision!.document
            for s in subjects { s.check(document, "seed \(seed) start") }
            for step in 1...30 {
                let context = "seed \(seed) revision \(step + 1)"
                // Sometimes only the counter outside the location changes: a revision, no update.
                if rng.chance(0.9) {
                    for _ in 0..<rng.int(1...4) { model.edit(&rng) }
                }
                try save(model.bytes(&rng))
                store.wait(forRevision: step + 1)
                document = store.currentRevision!.document
                for s in subjects { s.check(document, context) }
                // Between revisions: a page loaded, or a query replaced, each one update.
                for s in subjects where s.array.paging != nil && s.array.hasMore && rng.chance(0.15) {
                    #expect(s.array.loadMore())
                    s.check(document, "\(context) after loadMore")
                }
                if rng.chance(0.15) {
                    let s = rng.pick(subjects)
                    let b = rng.pick(all)
                    if let paging = b.paging { s.array.replaceQuery(b.query, paging: paging) } else { s.array.replaceQuery(b.query, paging: nil) }
                    s.check(document, "\(context) after replacing with \(b.query)")
                }
            }
            for s in subjects { s.array.stopSync() }
        }
    }
}
