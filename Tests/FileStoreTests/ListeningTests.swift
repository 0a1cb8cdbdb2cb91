// Query listeners on a live file: initial events, per-revision events in order, removal by owner.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport

/// A listener's own copy of the window, rebuilt only from the events it was sent.
struct ReplayedRows {
    var rows: [(key: String, value: String)] = []

    /// Applies one event the way the design says replay works.
    mutating func apply(_ event: ChildEvent) {
        let value = String(decoding: event.value.rawBytes, as: UTF8.self)
        switch event.kind {
        case .childRemoved:
            rows.removeAll { $0.key == event.key }
        case .childAdded:
            rows.insert((event.key, value), at: place(after: event.prevKey))
        case .childMoved:
            guard let i = rows.firstIndex(where: { $0.key == event.key }) else { return }
            let row = rows.remove(at: i)
            rows.insert(row, at: place(after: event.prevKey))
        case .childChanged:
            if let i = rows.firstIndex(where: { $0.key == event.key }) { rows[i].value = value }
        }
    }

    private func place(after prevKey: String?) -> Int {
        guard let prevKey else { return 0 }
        return (rows.firstIndex { $0.key == prevKey } ?? (rows.count - 1)) + 1
    }

    var keys: [String] { rows.map(\.key) }

    /// Whether these rows are exactly `window`'s (keys and raw values, in order).
    func matches(_ window: Window) -> Bool {
        rows.count == window.count
            && zip(rows, window).allSatisfy { $0.key == $1.key && $0.value == String(decoding: $1.value.rawBytes, as: UTF8.self) }
    }
}

@Suite struct ListeningTests {
    @Test func newListenerGetsTheWindowAsAddedThenValue() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"players":{"a":{"score":5},"b":{"score":9},"c":{"score":1}}}"#)
        let store = try FileStore(path: path)
        try store.waitForRevision(1, timeoutMilliseconds: 5000)
        let top = try store.reference("/players").orderByChild("score").limitToLast(2)
        var log = [String]()
        top.observe(.childAdded) { log.append("added \($0.key) prev \($0.prevKey ?? "-") @\($0.index)") }
        top.observe(.value) { log.append("value \($0.keys)") }
        #expect(log == ["added a prev - @0", "added b prev a @1", "value [\"a\", \"b\"]"])
    }

    @Test func listenerBeforeTheFirstRevisionGetsItsWindowWhenItArrives() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        let store = try FileStore(path: path)
        var log = [String]()
        store.reference().observe(.childAdded) { log.append($0.key) }
        store.reference().observe(.value) { log.append("value \($0.count)") }
        writeByRename(path, #"{"x":1,"y":2}"#)
        try store.waitForRevision(1, timeoutMilliseconds: 5000)
        #expect(log == ["x", "y", "value 2"])
    }

    @Test func revisionEventsComeInTheDesignsOrderAndReplay() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"A":1,"B":2,"D":7}"#)
        let store = try FileStore(path: path)
        try store.waitForRevision(1, timeoutMilliseconds: 5000)
        let ref = try store.reference().orderByValue()
        var replay = ReplayedRows()
        var names = [String]()
        var values = [Window]()
        for type in [EventType.childAdded, .childRemoved, .childMoved, .childChanged] {
            ref.observe(type) { event in
                names.append(event.kind.rawValue + " " + event.key)
                replay.apply(event)
            }
        }
        ref.observe(.value) { values.append($0) }
        names.removeAll()
        // The design's example: {A:1, B:2} → {A:1, B:0, C:0.5}, plus D removed.
        writeByRename(path, #"{"A":1,"B":0,"C":0.5}"#)
        try store.waitForRevision(2, timeoutMilliseconds: 5000)
        #expect(names.first == "child_removed D")
        #expect(names.contains("child_added C"))
        #expect(names.contains("child_moved B"))
        #expect(names.last == "child_changed B")
        #expect(values.count == 2)
        let window = try #require(values.last)
        #expect(window.keys == ["B", "C", "A"])
        #expect(replay.matches(window))
    }

    @Test func changesObserverGetsOneBatchPerRevision() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"a":3,"b":1,"c":2}"#)
        let store = try FileStore(path: path)
        try store.waitForRevision(1, timeoutMilliseconds: 5000)
        var rows = [String]()
        var batches = [BatchDiff]()
        try store.reference().orderByValue().observeChanges { change in
            batches.append(change.batch)
            rows = change.batch.apply(to: rows) { change.new.key(at: $0) }
            #expect(rows == change.new.keys)
        }
        #expect(rows == ["b", "c", "a"])
        writeByRename(path, #"{"a":0,"c":2,"d":1.5}"#)
        try store.waitForRevision(2, timeoutMilliseconds: 5000)
        #expect(rows == ["a", "d", "c"])
        #expect(batches.count == 2)
        // A revision that leaves the window as it was sends nothing.
        writeByRename(path, #"{"a":0,"c":2,"d":1.5,"e":{"nested":true}}"#)
        try store.waitForRevision(3, timeoutMilliseconds: 5000)
        #expect(batches.count == 3)  // e is an object: it sorts last and is added
        try store.reference("/elsewhere").observeChanges { _ in batches.append(BatchDiff(oldCount: 0, newCount: 0, deletes: [], inserts: [], moves: [], reloads: [])) }
        #expect(batches.count == 4)  // the empty window, once
        writeByRename(path, #"{"a":0,"c":2,"d":1.5,"e":{"nested":true}," f":null}"#)
        try store.waitForRevision(4, timeoutMilliseconds: 5000)
        #expect(batches.count == 4)
    }

    @Test func aWindowOverManyChildrenIsEvaluatedOnTheWorkerAndDeliveredOnce() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"a":3,"b":1,"c":2,"d":0}"#)
        // Over more than 3 children the first window comes from the worker.
        let store = try FileStore(path: path, options: FileStore.Options(inlineEvaluationLimit: 3))
        try store.waitForRevision(1, timeoutMilliseconds: 5000)
        var first = [[String]](), second = [[String]]()
        let query = try store.reference().orderByValue()
        query.observeChanges { first.append($0.new.keys) }
        query.observeChanges { second.append($0.new.keys) }
        #expect(first.isEmpty && second.isEmpty)  // not yet: the loop thread did not evaluate it
        try store.run(timeoutMilliseconds: 5000) { !first.isEmpty && !second.isEmpty }
        #expect(first == [["d", "b", "c", "a"]] && second == first)
        // Later revisions go on as usual; the window is not evaluated again.
        writeByRename(path, #"{"a":-1,"b":1,"c":2,"d":0}"#)
        try store.waitForRevision(2, timeoutMilliseconds: 5000)
        #expect(first == [["d", "b", "c", "a"], ["a", "d", "b", "c"]] && second == first)
        // A revision arriving while a first window is evaluated: the observer ends at the
        // newest window, told once per state.
        var late = [[String]]()
        try store.reference().orderByKey().observeChanges { late.append($0.new.keys) }
        writeByRename(path, #"{"a":-1,"b":1,"c":2,"e":0}"#)
        try store.waitForRevision(3, timeoutMilliseconds: 5000)
        try store.run(timeoutMilliseconds: 5000) { late.last == ["a", "b", "c", "e"] }
        #expect(late == [["a", "b", "c", "e"]] || late == [["a", "b", "c", "d"], ["a", "b", "c", "e"]], "\(late)")
        // The limit counts the location's children, not the window's rows.
        var small = [[String]]()
        try store.reference().orderByValue().limitToFirst(2).observeChanges { small.append($0.new.keys) }
        #expect(small.isEmpty)
        try store.run(timeoutMilliseconds: 5000) { !small.isEmpty }
        #expect(small == [["a", "e"]])
    }

    @Test func removeAllObserversRemovesOnlyTheReferencesOwn() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"a":1}"#)
        let store = try FileStore(path: path)
        try store.waitForRevision(1, timeoutMilliseconds: 5000)
        let mine = store.reference(), theirs = store.reference()
        var mineCount = 0, theirsCount = 0
        mine.observe(.value) { _ in mineCount += 1 }
        let copy = mine
        copy.observe(.childChanged) { _ in mineCount += 1 }
        let theirHandle = theirs.observe(.value) { _ in theirsCount += 1 }
        #expect(mine.removeObserver(theirHandle) == false)
        mine.removeAllObservers()
        writeByRename(path, #"{"a":2}"#)
        try store.waitForRevision(2, timeoutMilliseconds: 5000)
        #expect(mineCount == 1)  // only the first value, before removal
        #expect(theirsCount == 2)
        #expect(theirs.removeObserver(theirHandle))
        writeByRename(path, #"{"a":3}"#)
        try store.waitForRevision(3, timeoutMilliseconds: 5000)
        #expect(theirsCount == 2)
    }

    @Test func handlerMayRemoveObserversWhileBeingCalled() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"a":1,"b":2}"#)
        let store = try FileStore(path: path)
        try store.waitForRevision(1, timeoutMilliseconds: 5000)
        let ref = store.reference()
        var calls = [String]()
        var second: ObserverHandle?
        var first: ObserverHandle?
        first = ref.observe(.childChanged) { event in
            calls.append("first \(event.key)")
            if let second { ref.removeObserver(second) }
            if let first { ref.removeObserver(first) }
        }
        second = ref.observe(.childChanged) { event in calls.append("second \(event.key)") }
        writeByRename(path, #"{"a":5,"b":6}"#)
        try store.waitForRevision(2, timeoutMilliseconds: 5000)
        #expect(calls == ["first a"])
    }

    @Test func statusObserverSeesProblemsAndRevisions() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, "[1]")
        let store = try FileStore(path: path)
        var statuses = [StoreStatus]()
        store.observeStatus { statuses.append($0) }
        try store.waitForRevision(1, timeoutMilliseconds: 5000)
        writeInPlace(path, "[1,")
        try store.run(timeoutMilliseconds: 5000) { store.status.problem != nil }
        #expect(statuses.map(\.revision) == [0, 1, 1])
        #expect(statuses.last?.problem?.position?.line == 1)
        #expect(statuses.last?.problem?.position?.column == 4)
    }
}
