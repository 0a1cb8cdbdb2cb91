// The in-memory store: revisions published by the program, queries kept live, writes applied
// at once — the store interface without a file.
import Foundation
import JSONTree
import LiveQuery
import StoreInterface
import Testing
import TestSupport

@Suite struct MemoryStoreTests {
    private func json(_ text: String) -> JSON { try! JSONDocument(parsing: Array(text.utf8)).root.json }

    @Test func revisionsPublishedFromAnotherThreadArriveInOrder() throws {
        let store = try MemoryStore(json(#"{"n": 0}"#))
        var seen: [Int] = []
        store.observeRevisions { revision in
            if case .object(let o) = revision.document.root.json, case .number(let n)? = o["n"] { seen.append(Int(n.double)) }
        }
        let publisher = store.publisher
        let thread = Thread { for n in 1...20 { publisher.publish(.object(JSONObject([("n", .number(JSONNumber(n)))]))) } }
        thread.start()
        let last = try store.waitForRevision(21, timeoutMilliseconds: 10_000)
        #expect(last.number == 21)
        #expect(seen == Array(0...20))
        #expect(store.status.revision == 21)
    }

    /// Property: a query's window, kept live from each revision's change, is the window
    /// evaluated from scratch on that revision.
    @Test func aLiveQueryEqualsTheQueryEvaluatedOnEachRevision() throws {
        try forEachSeed(12) { seed, rng in
            let store = try MemoryStore()
            let query = try Query().orderByChild(try Path("/score")).limitToFirst(rng.int(1...5))
            let reference = try store.reference("/items").withQuery(query)
            var window: Window?
            reference.observeChanges { change in window = change.new }
            var items: [String: Int] = [:]
            for revision in 1...25 {
                for _ in 0..<rng.int(1...3) {
                    let key = "k\(rng.int(0..<8))"
                    if rng.chance(0.25) { items[key] = nil } else { items[key] = rng.int(0..<10) }
                }
                let value = JSON.object(JSONObject([("items", .object(JSONObject(items.sorted { $0.key < $1.key }.map {
                    ($0.key, JSON.object(JSONObject([("score", .number(JSONNumber($0.value)))])))
                })))]))
                store.publish(value)
                try store.waitForRevision(revision, timeoutMilliseconds: 10_000)
                let fresh = Window(query: query, path: try Path("/items"), document: store.currentRevision!.document)
                #expect(window?.keys == fresh.keys, "seed \(seed) revision \(revision)")
            }
        }
    }

    /// A window the caller has just read (a chart of a million children) is the group's first
    /// window at once — over the inline limit, which would send it to the worker — it is not
    /// given back, and the next revision comes as a change from it, not as another first window.
    @Test func aKnownWindowStartsTheQueryWithoutAnotherEvaluation() throws {
        let value = { (b: Int) in self.json(#"{"players": {"a": 1, "b": \#(b), "c": 3, "d": 4, "e": 5}}"#) }
        let store = try MemoryStore(value(2), inlineEvaluationLimit: 2)
        let path = try Path("/players")
        let known = Window(query: Query(), path: path, document: store.currentRevision!.document)
        var changes: [WindowChange] = []
        store.reference(path).observeChanges(startingFrom: known) { changes.append($0) }
        #expect(changes.isEmpty, "the caller has the window: it is not given back")
        store.publish(value(20))
        try store.waitForRevision(2, timeoutMilliseconds: 10_000)
        #expect(changes.count == 1 && changes.last?.old?.document === known.document, "\(changes.map { $0.old == nil })")
        #expect(changes.last?.childEvents.map(\.kind) == [.childChanged])
        // A window of another revision is not taken: the first window is evaluated as before.
        var later: [WindowChange] = []
        try store.reference(path).withQuery(Query().limitToFirst(3)).observeChanges(startingFrom: known) { later.append($0) }
        #expect(later.isEmpty)
    }

    @Test func aWriteIsTheNextRevisionAtOnceWithServerValuesResolved() throws {
        let store = try MemoryStore(json(#"{"a": {"count": 1}}"#))
        let result = try store.write { _ in
            JSONWrite.set(try! Path("/a/count"), .object(JSONObject([(".sv", .object(JSONObject([("increment", .number(JSONNumber(2)))])))])))
                + JSONWrite.set(try! Path("/a/at"), .object(JSONObject([(".sv", .string("timestamp"))])))
        }
        #expect(result.changed)
        #expect(store.currentRevision?.number == 2)
        let a = store.currentRevision?.document.root.node(at: try Path("/a"))?.json
        guard case .object(let o)? = a, case .number(let count)? = o["count"], case .number(let at)? = o["at"] else {
            Issue.record("not the written object: \(String(describing: a))")
            return
        }
        #expect(count.double == 3)
        #expect(abs(at.double - Date().timeIntervalSince1970 * 1000) < 60_000)
        // Writes that change nothing make no revision.
        let same = try store.write { _ in [] }
        #expect(!same.changed && store.currentRevision?.number == 2)
    }

    @Test func aWatchedWriteHappensOnlyWhileTheValueIsTheExpectedOne() throws {
        let store = try MemoryStore(json(#"{"x": 1}"#))
        let x = try Path("/x")
        var results: [WatchedWrite] = []
        store.startWrite(JSONWrite.set(x, .number(JSONNumber(2))), watching: x, ifStill: .some(.number(JSONNumber(5)))) {
            results.append(try! $0.get())
        }
        store.startWrite(JSONWrite.set(x, .number(JSONNumber(3))), watching: x, ifStill: .some(.number(JSONNumber(1)))) {
            results.append(try! $0.get())
        }
        #expect(store.hasWritesInProgress)
        try store.run(timeoutMilliseconds: 10_000) { results.count == 2 }
        #expect(!store.hasWritesInProgress)
        #expect(!results[0].applied && results[0].after == .number(JSONNumber(1)))
        #expect(results[1].applied && results[1].before == .number(JSONNumber(1)) && results[1].after == .number(JSONNumber(3)))
        #expect(store.currentRevision?.document.root.node(at: x)?.json == .number(JSONNumber(3)))
    }

    @Test func aLogIsOnlyAppendedTo() throws {
        let store = try MemoryStore(name: "log", appendOnly: true)
        #expect(try store.append(json(#"{"m": "a"}"#), under: .root) == "0")
        #expect(try store.append(json(#"{"m": "b"}"#), under: .root) == "1")
        #expect(store.currentRevision?.number == 2)
        #expect(throws: WriteError.self) { try store.write { _ in JSONWrite.remove(try! Path("/0")) } }
        #expect(throws: WriteError.self) { try store.append(.null, under: try Path("/0")) }
        #expect(store.currentRevision?.document.root.count == 2)
        // Any other store takes a push: a new push id under an object, the next index of an array.
        let document = try MemoryStore(json(#"{"o": {"a": 1}, "list": [5]}"#))
        let id = try document.append(.number(JSONNumber(2)), under: try Path("/o"))
        let pushed = document.currentRevision?.document.root.node(at: try Path("/o/\(id)"))?.json
        #expect(id.utf8.count == 20 && pushed == .number(JSONNumber(2)))
        let index = try document.append(.number(JSONNumber(6)), under: try Path("/list"))
        #expect(index == "1")
    }
}
