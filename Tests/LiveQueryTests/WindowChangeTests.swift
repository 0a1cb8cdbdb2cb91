import JSONTree
import Testing
@testable import LiveQuery
import TestSupport

/// Checks every rule for one change between two windows of the same query; returns problems.
func problems(_ change: WindowChange, old: [RefChild], new: [RefChild], query: Query) -> [String] {
    var out = [String]()
    let events = change.childEvents
    let newKeys = new.map(\.key)
    let oldPositions = positions(old), newPositions = positions(new)
    func oi(_ key: String) -> Int? { oldPositions[Array(key.utf8)] }
    func ni(_ key: String) -> Int? { newPositions[Array(key.utf8)] }
    // Order of kinds, and within a kind: removed by old index, others by new index.
    let rank: [ChildEvent.Kind: Int] = [.childRemoved: 0, .childAdded: 1, .childMoved: 2, .childChanged: 3]
    for (a, b) in zip(events, events.dropFirst()) {
        if rank[a.kind]! > rank[b.kind]! { out.append("\(a.kind) after \(b.kind)") }
        if a.kind == b.kind && a.index >= b.index { out.append("\(a.kind) out of order: \(a.index) then \(b.index)") }
    }
    for e in events {
        if e.kind == .childRemoved {
            if oi(e.key) != e.index || ni(e.key) != nil { out.append("bad removed \(e)") }
            continue
        }
        guard let j = ni(e.key), j == e.index else {
            out.append("bad index \(e)")
            continue
        }
        let prev = j > 0 ? newKeys[j - 1] : nil
        if e.prevKey.map({ Array($0.utf8) }) != prev.map({ Array($0.utf8) }) { out.append("bad prevKey \(e), want \(prev ?? "null")") }
        if e.fromIndex != oi(e.key) && !(e.kind == .childAdded && e.fromIndex == nil) { out.append("bad fromIndex \(e)") }
    }
    // Replay gives the new rows exactly.
    let replayed = replay(events, on: old)
    if replayed != new { out.append("replay gives \(replayed?.map(\.key) ?? ["<invalid>"]), want \(newKeys)") }
    // Replay by index alone (the indexes of the list as replayed so far) gives them too.
    let byIndex = replayByIndex(events, change.replayIndexes, on: old)
    if byIndex != new { out.append("replay by index gives \(byIndex?.map(\.key) ?? ["<invalid>"]), want \(newKeys)") }
    // Added, removed, changed are exactly the differences.
    let addedKeys = Set(new.filter { oi($0.key) == nil }.map { Array($0.key.utf8) })
    let removedKeys = Set(old.filter { ni($0.key) == nil }.map { Array($0.key.utf8) })
    let changedKeys = Set(new.filter { c in oi(c.key).map { old[$0].value != c.value } ?? false }.map { Array($0.key.utf8) })
    func keys(_ k: ChildEvent.Kind) -> Set<[UInt8]> { Set(events.filter { $0.kind == k }.map { Array($0.key.utf8) }) }
    if keys(.childAdded) != addedKeys { out.append("added \(keys(.childAdded)) want \(addedKeys)") }
    if keys(.childRemoved) != removedKeys { out.append("removed wrong") }
    if keys(.childChanged) != changedKeys { out.append("changed wrong") }
    // Moved: the database's moves (sort value changed), plus the fewest others replay needs.
    var databaseMoved = Set<[UInt8]>()
    for c in new {
        if let i = oi(c.key), old[i].value != c.value && refSortValueChanged(old[i], c, query.ordering) {
            databaseMoved.insert(Array(c.key.utf8))
        }
    }
    let movedKeys = keys(.childMoved)
    if !databaseMoved.isSubset(of: movedKeys) { out.append("missing database moves \(databaseMoved.subtracting(movedKeys))") }
    let extra = movedKeys.subtracting(databaseMoved).count
    let fewest = referenceFewestExtraMoves(old: old, new: new, databaseMoved: databaseMoved)
    if extra != fewest { out.append("\(extra) extra moves, the fewest is \(fewest)") }
    if change.isEmpty != events.isEmpty { out.append("isEmpty wrong") }
    if !events.isEmpty, case .value(let w)? = change.events.last, w.count != new.count { out.append("value event wrong") }
    out += batchProblems(change.batch, old: old, new: new)
    return out
}

/// Row index by key bytes.
func positions(_ rows: [RefChild]) -> [[UInt8]: Int] {
    Dictionary(uniqueKeysWithValues: rows.enumerated().map { (Array($0.element.key.utf8), $0.offset) })
}

func refSortValueChanged(_ a: RefChild, _ b: RefChild, _ ordering: Query.Ordering) -> Bool {
    func norm(_ v: JSON?) -> JSON { v ?? .null }
    switch ordering {
    case .key: return false
    case .value: return a.value != b.value
    case .child(let p): return norm(a.value[path: p]) != norm(b.value[path: p])
    case .priority: return norm(refSortValue(a, .priority)) != norm(refSortValue(b, .priority))
    case .computed: return norm(refSortValue(a, ordering)) != norm(refSortValue(b, ordering))
    }
}

/// Checks a batch: balanced, applies to the new rows, moves minimal, reloads exact.
func batchProblems(_ batch: BatchDiff, old: [RefChild], new: [RefChild]) -> [String] {
    var out = [String]()
    if !batch.isConsistent { out.append("inconsistent \(batch)") }
    guard batch.oldCount == old.count, batch.newCount == new.count else { return out + ["counts \(batch)"] }
    let oldPositions = positions(old), newPositions = positions(new)
    func oi(_ key: String) -> Int? { oldPositions[Array(key.utf8)] }
    func ni(_ key: String) -> Int? { newPositions[Array(key.utf8)] }
    let applied = batch.apply(to: old) { new[$0] }
    if applied != new { out.append("apply gives \(applied.map(\.key)), want \(new.map(\.key))") }
    // Moves: kept children outside a longest increasing subsequence.
    let keptOld = new.compactMap { oi($0.key) }
    if batch.moves.count != keptOld.count - refLISLength(keptOld) {
        out.append("\(batch.moves.count) moves, minimum \(keptOld.count - refLISLength(keptOld))")
    }
    let expectedDeletes = old.indices.filter { ni(old[$0].key) == nil }
    let expectedInserts = new.indices.filter { oi(new[$0].key) == nil }
    if batch.deletes != expectedDeletes || batch.inserts != expectedInserts { out.append("deletes/inserts \(batch)") }
    let expectedReloads = new.indices.compactMap { j -> BatchDiff.Reload? in
        guard let i = oi(new[j].key), old[i].value != new[j].value else { return nil }
        return BatchDiff.Reload(key: new[j].key, from: i, to: j)
    }
    if batch.reloads != expectedReloads { out.append("reloads \(batch.reloads) want \(expectedReloads)") }
    return out
}

@Suite struct WindowChangeTests {
    @Test func designExampleReplaysExactly() throws {
        let q = try Query().orderByValue()
        let old = Window(query: q, document: try JSONDocument(parsing: #"{"A":1,"B":2}"#))
        let change = old.advanced(to: try JSONDocument(parsing: #"{"A":1,"B":0,"C":0.5}"#))
        #expect(change.childEvents.map(\.description) == [
            "child_added C prev B @1", "child_moved B prev null @0 from 1", "child_moved C prev B @1", "child_changed B prev null @0 from 1",
        ])
        #expect(change.events.map(\.name) == ["child_added", "child_moved", "child_moved", "child_changed", "value"])
        #expect(replay(change.childEvents, on: rows(old))?.map(\.key) == ["B", "C", "A"])
        #expect(problems(change, old: rows(old), new: rows(change.new), query: q).isEmpty)
    }

    @Test func newListenerGetsAddedThenValue() throws {
        let w = Window(query: try Query().orderByValue(), document: try JSONDocument(parsing: #"{"x":2,"y":1}"#))
        let initial = WindowChange.initial(w)
        #expect(initial.childEvents.map(\.description) == ["child_added y prev null @0", "child_added x prev y @1"])
        #expect(initial.events.map(\.name) == ["child_added", "child_added", "value"])
        #expect(initial.batch.inserts == [0, 1])
        let empty = WindowChange.initial(Window(query: Query(), path: try Path("/none"), document: try JSONDocument(parsing: "{}")))
        #expect(empty.events.map(\.name) == ["value"])
    }

    @Test func movedFiresWhenTheSortValueChangesEvenInPlace() throws {
        let q = try Query().orderByChild("score")
        let old = Window(query: q, document: try JSONDocument(parsing: #"{"a":{"score":1},"b":{"score":5}}"#))
        let change = old.advanced(to: try JSONDocument(parsing: #"{"a":{"score":2},"b":{"score":5,"x":1}}"#))
        #expect(change.childEvents.map(\.description) == [
            "child_moved a prev null @0 from 0", "child_changed a prev null @0 from 0", "child_changed b prev a @1 from 1",
        ])
        #expect(change.batch.moves.isEmpty)
        #expect(change.batch.reloads.map(\.key) == ["a", "b"])
    }

    @Test func keyOrderNeverMoves() throws {
        let q = try Query().orderByKey()
        let old = Window(query: q, document: try JSONDocument(parsing: #"{"a":1,"b":2}"#))
        let change = old.advanced(to: try JSONDocument(parsing: #"{"a":3,"b":2}"#))
        #expect(change.childEvents.map(\.description) == ["child_changed a prev null @0 from 0"])
    }

    @Test func limitedWindowStaysFull() throws {
        let q = try Query().orderByValue().limitToFirst(2)
        let old = Window(query: q, document: try JSONDocument(parsing: #"{"a":1,"b":2,"c":3,"d":4}"#))
        let change = old.advanced(to: try JSONDocument(parsing: #"{"b":2,"c":3,"d":4}"#))
        #expect(change.new.keys == ["b", "c"])
        #expect(change.childEvents.map(\.description) == ["child_removed a @0", "child_added c prev b @1"])
        let up = old.advanced(to: try JSONDocument(parsing: #"{"a":9,"b":2,"c":3,"d":4}"#))
        #expect(up.childEvents.map(\.description) == ["child_removed a @0", "child_added c prev b @1"])
    }

    @Test func formattingIsNotAChange() throws {
        let q = try Query().orderByValue()
        let old = Window(query: q, document: try JSONDocument(parsing: #"{"a":1,"b":{"x":[1,2]},"c":"s"}"#))
        let change = old.advanced(to: try JSONDocument(parsing: "{\n  \"c\": \"\\u0073\",\n  \"a\": 1.0,\n  \"b\": { \"x\": [1, 2.0] }\n}"))
        #expect(change.isEmpty)
        #expect(change.events.isEmpty)
        #expect(change.batch.isEmpty)
        #expect(old.advanced(to: old.document).isEmpty)
    }

    @Test func duplicateKeysAndEscapedKeys() throws {
        let q = try Query().orderByValue()
        let old = Window(query: q, document: try JSONDocument(parsing: #"{"a":1,"b":2,"a":3,"\u0063":4}"#))
        #expect(old.keys == ["b", "a", "c"])
        // Removing the later duplicate brings back the first "a".
        let change = old.advanced(to: try JSONDocument(parsing: #"{"a":1,"b":2,"\u0063":4}"#))
        #expect(change.new.keys == ["a", "b", "c"])
        #expect(problems(change, old: rows(old), new: rows(change.new), query: q).isEmpty)
    }

    @Test func noMoveForAChildAddedWhereItAlreadyStands() throws {
        // m is re-sorted but stays between x and y, so a, added after m, is already in place.
        let q = try Query().orderByValue()
        let old = Window(query: q, document: try JSONDocument(parsing: #"{"x":1,"m":2,"y":3}"#))
        let change = old.advanced(to: try JSONDocument(parsing: #"{"x":1,"m":2.5,"a":2.7,"y":3}"#))
        #expect(change.childEvents.map(\.description) == [
            "child_added a prev m @2", "child_moved m prev x @1 from 1", "child_changed m prev x @1 from 1",
        ])
        #expect(problems(change, old: rows(old), new: rows(change.new), query: q).isEmpty)
    }

    @Test func addingAndMovingInOneEdit() throws {
        let q = try Query().orderByChild("s")
        let old = Window(query: q, document: try JSONDocument(parsing: #"{"a":{"s":1},"b":{"s":2},"c":{"s":3},"d":{"s":4}}"#))
        let next = try JSONDocument(parsing: #"{"a":{"s":1},"b":{"s":5},"c":{"s":0},"d":{"s":4},"e":{"s":0.5},"f":{"s":6},"g":{"s":6.5}}"#)
        let change = old.advanced(to: next)
        #expect(change.new.keys == ["c", "e", "a", "d", "b", "f", "g"])
        #expect(problems(change, old: rows(old), new: rows(change.new), query: q).isEmpty)
        // The database moves c and b. Replay then has a, f, g, e, d (by new place 2, 5, 6, 1, 3)
        // unmoved; keeping a, f, g costs the fewest extra moves: e and d (not f and g and e).
        #expect(change.childEvents.filter { $0.kind == .childMoved }.map(\.key) == ["c", "e", "d", "b"])
    }

    /// Successive random revisions: the incremental window equals a fresh evaluation and the
    /// reference, and every rule holds for its events and batch.
    @Test func successiveRevisionsMatchReference() {
        forEachSeed(300) { seed, rng in
            let asArray = rng.chance(0.2)
            var items = randomCollection(&rng)
            var pretty = rng.chance(0.5)
            let q = randomQuery(&rng)
            var (doc, root) = document(documentText(items, asArray: asArray, pretty: pretty))
            var window = Window(query: q, path: itemsPath, document: doc)
            for step in 0..<5 {
                items = randomEdit(items, &rng, keysAreIndexes: asArray)
                if rng.chance(0.1) { pretty.toggle() }
                let oldRows = rows(window)
                (doc, root) = document(documentText(items, asArray: asArray, pretty: pretty))
                let change = window.advanced(to: doc)
                let expected = refWindow(q, root, itemsPath)
                let fresh = Window(query: q, path: itemsPath, document: doc)
                #expect(rows(change.new) == expected, "seed \(seed) step \(step): \(q) got \(change.new.keys) want \(expected.map(\.key))")
                #expect(rows(fresh) == expected, "seed \(seed) step \(step): fresh")
                #expect(change.new.invariantViolations().isEmpty, "seed \(seed) step \(step): \(change.new.invariantViolations())")
                let issues = problems(change, old: oldRows, new: expected, query: q)
                #expect(issues.isEmpty, "seed \(seed) step \(step): \(q): \(issues)")
                // Matching by key gives the same events as matching by bytes.
                let byKey = WindowChange(from: window, to: change.new)
                #expect(byKey.childEvents.map(\.description) == change.childEvents.map(\.description), "seed \(seed) step \(step)")
                window = change.new
            }
        }
    }

    /// Windows of different queries (a query reassigned): the batch still applies and the events
    /// still replay, with the fewest moves.
    @Test func changesBetweenDifferentQueries() {
        forEachSeed(300, base: 77) { seed, rng in
            let items = randomCollection(&rng)
            let (doc, _) = document(documentText(items, asArray: false, pretty: false))
            let a = Window(query: randomQuery(&rng), path: itemsPath, document: doc)
            let b = Window(query: randomQuery(&rng), path: itemsPath, document: doc)
            let change = WindowChange(from: a, to: b)
            let replayed = replay(change.childEvents, on: rows(a))
            #expect(replayed == rows(b), "seed \(seed): \(a.query) → \(b.query)")
            #expect(batchProblems(change.batch, old: rows(a), new: rows(b)).isEmpty, "seed \(seed)")
        }
    }

    /// Limited windows over larger collections, where a window keeps a reserve past its rows and
    /// must refill itself (or re-read everything) as rows leave in bulk.
    @Test func limitedWindowsKeepTheirReserveAcrossRevisions() throws {
        try forEachSeed(60, base: 991) { seed, rng in
            var items = randomLargeCollection(&rng)
            var next = 0
            let ordering = rng.int(0..<3)
            var q = ordering == 0 ? try Query().orderByChild("score") : ordering == 1 ? try Query().orderByValue() : try Query().orderByKey()
            if rng.chance(0.3) && ordering != 2 { q = try q.startAt(0) }
            q = rng.chance(0.5) ? try q.limitToFirst(rng.int(1..<5)) : try q.limitToLast(rng.int(1..<5))
            var (doc, root) = document(documentText(items, asArray: false, pretty: false))
            var window = Window(query: q, path: itemsPath, document: doc)
            for step in 0..<8 {
                items = randomBulkEdit(items, &rng, next: &next)
                let oldRows = rows(window)
                (doc, root) = document(documentText(items, asArray: false, pretty: false))
                let change = window.advanced(to: doc)
                let expected = refWindow(q, root, itemsPath)
                #expect(rows(change.new) == expected, "seed \(seed) step \(step): \(q) got \(change.new.keys) want \(expected.map(\.key))")
                #expect(change.new.invariantViolations().isEmpty, "seed \(seed) step \(step): \(change.new.invariantViolations())")
                let issues = problems(change, old: oldRows, new: expected, query: q)
                #expect(issues.isEmpty, "seed \(seed) step \(step): \(q): \(issues)")
                window = change.new
            }
        }
    }

    /// Unlimited windows where many rows re-sort at once: the sparse batch (from the member
    /// patch) has as few moves as a longest increasing subsequence allows, like the full one.
    @Test func manyResortedRowsInUnlimitedWindows() throws {
        try forEachSeed(50, base: 5150) { seed, rng in
            var items = randomLargeCollection(&rng)
            var next = 0
            let q = rng.chance(0.5) ? try Query().orderByChild("score") : try Query().orderByValue()
            var (doc, root) = document(documentText(items, asArray: false, pretty: false))
            var window = Window(query: q, path: itemsPath, document: doc)
            for step in 0..<6 {
                if rng.chance(0.5) {
                    // Re-sort a handful of rows only (the sparse path).
                    for _ in 0..<rng.int(1..<8) where !items.isEmpty {
                        let i = rng.int(0..<items.count)
                        items[i].value = ["score": rng.pick(sortValuePool), "name": .string("r\(step)")]
                    }
                } else {
                    items = randomBulkEdit(items, &rng, next: &next)
                }
                let oldRows = rows(window)
                (doc, root) = document(documentText(items, asArray: false, pretty: false))
                let change = window.advanced(to: doc)
                let expected = refWindow(q, root, itemsPath)
                let issues = problems(change, old: oldRows, new: expected, query: q)
                #expect(issues.isEmpty, "seed \(seed) step \(step): \(q): \(issues)")
                let full = WindowChange(from: window, to: change.new).batch
                #expect(full.moves.count == change.batch.moves.count && full.deletes == change.batch.deletes
                    && full.inserts == change.batch.inserts && full.reloads == change.batch.reloads, "seed \(seed) step \(step)")
                window = change.new
            }
        }
    }

    @Test func nthAbsentInteger() {
        #expect(nthAbsent(0, from: []) == 0)
        #expect(nthAbsent(3, from: []) == 3)
        #expect(nthAbsent(0, from: [0, 1, 2]) == 3)
        #expect(nthAbsent(1, from: [1, 3]) == 2)
        #expect(nthAbsent(2, from: [1, 3]) == 4)
        forEachSeed(100, base: 1) { seed, rng in
            let sorted = Array(Set((0..<rng.int(0..<20)).map { _ in Int32(rng.int(0..<30)) })).sorted()
            let absent = (0..<60).filter { !sorted.contains(Int32($0)) }
            let t = rng.int(0..<20)
            #expect(nthAbsent(t, from: sorted) == absent[t], "seed \(seed)")
        }
    }
}

/// The fewest child_moved events beyond the database's that make replay exact, by brute
/// reasoning: after removes and adds (each placed after its new predecessor), the children
/// that are not moved must already be in new order; so the answer is the number of children
/// left (not moved by the database) minus their longest run in new order (O(n²) LIS).
func referenceFewestExtraMoves(old: [RefChild], new: [RefChild], databaseMoved: Set<[UInt8]>) -> Int {
    let newKeys = new.map { Array($0.key.utf8) }
    let newIndex = Dictionary(uniqueKeysWithValues: newKeys.enumerated().map { ($0.element, $0.offset) })
    var list = old.map { Array($0.key.utf8) }.filter { newIndex[$0] != nil }
    let oldKeys = Set(list)
    for (j, k) in newKeys.enumerated() where !oldKeys.contains(k) {
        if j == 0 { list.insert(k, at: 0) } else { list.insert(k, at: list.firstIndex(of: newKeys[j - 1])! + 1) }
    }
    let values = list.filter { !databaseMoved.contains($0) }.map { newIndex[$0]! }
    var best = [Int](repeating: 1, count: values.count)
    for a in 0..<values.count {
        for b in 0..<a where values[b] < values[a] { best[a] = max(best[a], best[b] + 1) }
    }
    return values.count - (best.max() ?? 0)
}
