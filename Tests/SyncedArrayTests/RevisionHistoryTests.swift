// Randomised: a store in memory (only revisions matter), random edits, arrays keeping a
// history; the rows a cursor rebuilds at each kept revision (stepping back, forward, and
// jumping) are the query's window evaluated from scratch on that revision's tree, kept by the
// test; the records and a child's timeline agree with the trees. Some arrays change their sort, filter or pages midway:
// the records before are kept, and shown under the new query as far as they allow.
import FileStore
import JSONTree
import LiveQuery
import Testing
@testable import SyncedArray
import TestSupport

/// Children whose `score` is a number above 50.
private let highScores = ChildFilter(text: ".score > 50") { value, tape in
    guard let m = Array("score".utf8).withUnsafeBufferPointer({ tape.member(of: value, named: $0) }),
          tape.kind(m) == .number else { return false }
    return tape.number(m) > 50
}

/// A change of an array's query at a revision, and how far back its history must then reach.
private struct QueryChange {
    enum Reach {
        /// Every record kept (the rows before were every child, or the same query's pages).
        case all
        /// Back to where this change began a segment: the rows before cannot be shown under it.
        case thisChange
        /// Not checked (depends on whether the rows held every child).
        case unknown
    }

    let revision: Int
    let reach: Reach
    let apply: (SyncedArray) throws -> Void
}

@Suite struct RevisionHistoryTests {
    /// Queries with and without limits and paging, each with a history smaller than the run so
    /// that its oldest records go (by count, or by bytes); some change their query midway.
    private func subjects(_ store: any LiveStore) throws -> [(array: SyncedArray, changes: [QueryChange])] {
        let score = path("/score"), name = path("/name")
        let specs: [(Query, Paging?, HistoryLimits, [QueryChange])] = [
            (try Query().orderByKey(), nil, HistoryLimits(revisions: 12), []),
            (try Query().orderByChild(score).limitToLast(4), nil, HistoryLimits(revisions: 1_000, bytes: 4_000), []),
            (try Query().orderByChild(score).startAt(20).endAt(70), nil, HistoryLimits(revisions: 9), []),
            (try Query().orderByValue().limitToFirst(5), nil, HistoryLimits(), []),
            (try Query().orderByChild(score), Paging(pageSize: 3, from: .end), HistoryLimits(revisions: 15), []),
            // Every child, then a sort and a filter (re-evaluated), then a sort of the filtered rows (stops there).
            (try Query().orderByKey(), nil, HistoryLimits(revisions: 40), [
                QueryChange(revision: 10, reach: .all) { $0.replaceQuery(try Query().orderByChild(score).filtered(by: highScores)) },
                QueryChange(revision: 18, reach: .thisChange) { $0.replaceQuery(try Query().orderByValue()) },
            ]),
            // A page more (the same query: shown as it was), then another sort.
            (try Query().orderByChild(score), Paging(pageSize: 3, from: .end), HistoryLimits(revisions: 40), [
                QueryChange(revision: 9, reach: .all) { #expect($0.loadMore() || !$0.hasMore) },
                QueryChange(revision: 17, reach: .unknown) { $0.replaceQuery(try Query().orderByChild(name)) },
            ]),
            // A limited window, then a sort of another limited window: only the new one's records show.
            (try Query().orderByValue().limitToFirst(5), nil, HistoryLimits(revisions: 1_000, bytes: 6_000), [
                QueryChange(revision: 14, reach: .thisChange) { $0.replaceQuery(try Query().orderByChild(score).limitToFirst(5)) },
            ]),
        ]
        return specs.map { query, paging, limits, changes in
            let array = SyncedArray(store.reference(path("/items")).withQuery(query), paging: paging)
            array.history = RevisionHistory(limits: limits)
            return (array, changes)
        }
    }

    @Test func steppingRebuildsEachKeptRevisionsWindowFromItsTree() throws {
        try forEachSeed(4) { seed, rng in
            // Only revisions matter here: a store in memory, each revision a parse of its bytes.
            var model = Model()
            for _ in 0..<rng.int(4...10) { model.edit(&rng) }
            let store = try MemoryStore()
            store.publish(try JSONDocument(parsing: model.bytes(&rng)))
            let subjects = try subjects(store)
            let arrays = subjects.map(\.array)
            for a in arrays { a.startSync() }
            /// Per array, the reach its last query change asks for, and where that change began.
            var reaches = [(reach: QueryChange.Reach, sequence: Int)?](repeating: nil, count: arrays.count)
            store.wait(forRevision: 1)
            var trees = [1: store.currentRevision!.document]
            var cursors = [HistoryCursor?](repeating: nil, count: arrays.count)
            for revision in 2...26 {
                for _ in 0..<rng.int(1...3) { model.edit(&rng) }
                store.publish(try JSONDocument(parsing: model.bytes(&rng)))
                store.wait(forRevision: revision)
                trees[revision] = store.currentRevision!.document
                for (n, array) in arrays.enumerated() {
                    for change in subjects[n].changes where change.revision == revision {
                        let history = array.history!
                        let before = history.lastSequence
                        try change.apply(array)
                        reaches[n] = (change.reach, before)
                        // A cursor made before shows the old query's rows: it is no longer valid.
                        if let cursor = cursors[n] { #expect(!cursor.isValid, "seed \(seed) rev \(revision)") }
                        cursors[n] = nil
                    }
                    if let (reach, sequence) = reaches[n] { checkReach(array.history!, reach, sequence, "seed \(seed) rev \(revision) \(array.query)") }
                    let context = "seed \(seed) rev \(revision) \(array.query)"
                    // A cursor left in the past stays there while the present is recorded.
                    if var cursor = cursors[n] {
                        check(cursor, array, trees, context + " (held)")
                        if cursor.isBehind {
                            // Its records are gone: as far back as the history reaches now.
                            #expect(!cursor.canStepBack && !cursor.canStepForward, "\(context)")
                            cursor = HistoryCursor(history: array.history!, present: Array(array.rows))
                            cursor.move(to: array.history!.firstSequence - 1)
                            check(cursor, array, trees, context + " (oldest kept)")
                        }
                        if rng.chance(0.5) { cursor.stepBack() } else { cursor.stepForward() }
                        check(cursor, array, trees, context + " (held, stepped)")
                        cursors[n] = rng.chance(0.8) ? cursor : nil
                    } else if rng.chance(0.2) {
                        var cursor = HistoryCursor(history: array.history!, present: Array(array.rows))
                        for _ in 0..<rng.int(1...4) { cursor.stepBack() }
                        check(cursor, array, trees, context + " (new)")
                        cursors[n] = cursor
                    }
                }
            }
            for array in arrays {
                let history = array.history!
                let context = "seed \(seed) \(array.query)"
                #expect(history.records.count <= history.limits.revisions, "\(context)")
                #expect(history.byteCount <= history.limits.bytes, "\(context)")
                // All the way back, one step at a time, then forward again, then jumps.
                var cursor = HistoryCursor(history: history, present: Array(array.rows))
                check(cursor, array, trees, context + " present")
                while cursor.stepBack() { check(cursor, array, trees, context + " back") }
                #expect(cursor.sequence == history.reachSequence, "\(context): stopped at \(cursor.sequence)")
                while cursor.stepForward() { check(cursor, array, trees, context + " forward") }
                #expect(cursor.sequence == history.lastSequence)
                for _ in 0..<6 {
                    cursor.move(to: rng.int((history.firstSequence - 1)...history.lastSequence))
                    #expect(cursor.sequence >= history.reachSequence, "\(context)")
                    check(cursor, array, trees, context + " jump")
                }
                checkRecords(history, array, trees, context)
            }
            for array in arrays { array.stopSync() }
        }
    }

    @Test func rowsTooLargeForTheByteBudgetAreNotKeptAtASortAndSteppingBackStopsThere() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        let text = String(repeating: "x", count: 400)
        let items = { (n: Int) in
            "{\"items\": {" + (0..<3).map { "\"k\($0)\": {\"score\": \(n - $0), \"text\": \"\(text)\"}" }.joined(separator: ", ") + "}}"
        }
        writeByRename(file, items(0))
        let store = try FileStore(path: file)
        // The same rows (about 1,300 bytes) with a budget of 2,000 bytes, and with the default one.
        let arrays = try [HistoryLimits(revisions: 100, bytes: 2_000), HistoryLimits()].map { limits in
            let array = SyncedArray(store.reference(path("/items")).withQuery(try Query().orderByKey()))
            array.history = RevisionHistory(limits: limits)
            array.startSync()
            return array
        }
        store.wait(forRevision: 1)
        writeByRename(file, items(10))
        store.wait(forRevision: 2)
        for array in arrays { array.replaceQuery(try Query().orderByChild(path("/score"))) }
        let (small, large) = (arrays[0].history!, arrays[1].history!)
        #expect(small.records.count == 1 && small.reachSequence == small.lastSequence && small.byteCount <= 2_000,
                "\(small.records.count) records, reach \(small.reachSequence), \(small.byteCount) bytes")
        var cursor = HistoryCursor(history: small, present: Array(arrays[0].rows))
        let stepped = cursor.stepBack()
        #expect(!stepped)
        #expect(large.records.count == 1 && large.reachSequence == large.firstSequence - 1)
        cursor = HistoryCursor(history: large, present: Array(arrays[1].rows))
        let steppedBack = cursor.stepBack()
        #expect(steppedBack && cursor.rows.map(\.key) == ["k2", "k1", "k0"] && cursor.rows[0].value[key: "score"]?.doubleValue == -2,
                "\(cursor.rows)")
        for array in arrays { array.stopSync() }
    }

    /// How far back the history reaches after a query change that began at `sequence`.
    private func checkReach(_ history: RevisionHistory, _ reach: QueryChange.Reach, _ sequence: Int, _ context: String) {
        switch reach {
        case .all:
            #expect(history.reachSequence == history.firstSequence - 1, "\(context): reaches \(history.reachSequence) of \(history.firstSequence - 1)")
        case .thisChange:
            #expect(history.reachSequence == max(sequence, history.firstSequence - 1), "\(context): reaches \(history.reachSequence), began at \(sequence)")
        case .unknown:
            #expect(history.reachSequence >= history.firstSequence - 1 && history.reachSequence <= max(sequence, history.firstSequence - 1), "\(context)")
        }
    }

    /// The cursor's rows are the array's query evaluated on its revision's tree (paged: the pages
    /// shown now, or as shown then).
    func check(_ cursor: HistoryCursor, _ array: SyncedArray, _ trees: [Int: JSONDocument], _ context: String,
               sourceLocation: SourceLocation = #_sourceLocation) {
        guard let revision = cursor.revision, let tree = trees[revision], let view = cursor.view else {
            Issue.record("\(context): no tree for the cursor's revision \(String(describing: cursor.revision))", sourceLocation: sourceLocation)
            return
        }
        #expect(view.query == array.query && view.paging == array.paging && view.location == array.location,
                "\(context): the rows of \(view.query), not of \(array.query)", sourceLocation: sourceLocation)
        let want = expected(view, tree)
        let got = cursor.rows.map(PlainRow.init)
        #expect(same(got, want), "\(context) at rev \(revision): \(got) want \(want)", sourceLocation: sourceLocation)
    }

    /// Each record says what changed between the trees of its revision and the one before, in
    /// the rows of the query it was made under: the keys added, removed and changed, each changed
    /// field's values in both trees; a child's timeline lists exactly the records in which its
    /// row changed.
    func checkRecords(_ history: RevisionHistory, _ array: SyncedArray, _ trees: [Int: JSONDocument], _ context: String) {
        var changedRecordsOfKey = [JSONKey: [Int]]()
        var windows = [Int: [JSONKey: JSONNode]]()
        for (i, record) in history.records.enumerated() {
            let sequence = history.firstSequence + i
            guard let segment = history.segment(atSequence: sequence - 1) else {
                Issue.record("\(context): record \(sequence) has no segment")
                continue
            }
            let beforeRevision = sequence - 1 == segment.baseSequence ? segment.baseRevision! : history.record(sequence - 1)!.revision
            let before = expected(segment.view, trees[beforeRevision]!)
            let after = expected(segment.view, trees[record.revision]!)
            let label = "\(context) rev \(record.revision)"
            let old = Dictionary(before.map { (JSONKey($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
            let new = Dictionary(after.map { (JSONKey($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
            windows[sequence] = new
            var described = Set<JSONKey>()
            for change in record.changes {
                let key = JSONKey(change.key)
                described.insert(key)
                switch change.kind {
                case .added:
                    #expect(old[key] == nil && new[key].map { $0.valueEquals(try! JSONDocument(parsing: change.value!).root) } == true, "\(label): added \(change.key)")
                case .removed:
                    #expect(new[key] == nil && old[key].map { $0.valueEquals(try! JSONDocument(parsing: change.value!).root) } == true, "\(label): removed \(change.key)")
                case .moved:
                    #expect(old[key] != nil && new[key] != nil && old[key]!.valueEquals(new[key]!), "\(label): moved \(change.key)")
                case .changed:
                    guard let o = old[key], let n = new[key] else {
                        Issue.record("\(label): changed \(change.key) is not in both windows")
                        continue
                    }
                    for field in change.fields {
                        let p = Path(keys: field.path)
                        let inOld = o.node(at: p).map { $0.json }, inNew = n.node(at: p).map { $0.json }
                        #expect(inOld == field.oldJSON && inNew == field.newJSON, "\(label): \(change.key)/\(field.pathText) \(String(describing: field.oldJSON)) → \(String(describing: field.newJSON)), trees \(String(describing: inOld)) → \(String(describing: inNew))")
                    }
                    #expect(applying(change.fields, to: o.json, reverse: false) == n.json, "\(label): fields of \(change.key) rebuild its new value")
                }
            }
            // Every key whose row differs between the trees is described.
            for (key, value) in new where old[key].map({ !$0.valueEquals(value) }) ?? true {
                #expect(described.contains(key), "\(label): \(key) changed but is not in the record")
                changedRecordsOfKey[key, default: []].append(sequence)
            }
            for key in old.keys where new[key] == nil {
                #expect(described.contains(key), "\(label): \(key) left but is not in the record")
                changedRecordsOfKey[key, default: []].append(sequence)
            }
        }
        let present = Dictionary(array.rows.map { (JSONKey($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        for (key, sequences) in changedRecordsOfKey {
            let changes = history.changes(ofKey: key.string)
                .filter { $0.change.kind != .moved && !($0.change.kind == .changed && $0.change.fields.isEmpty) }.map(\.sequence)
            #expect(changes == sequences, "\(context): changes of \(key) \(changes), want \(sequences)")
            // The timeline's values are the child's in each revision's window (of the query
            // the record was made under).
            for entry in history.timeline(ofKey: key.string, value: present[key]) {
                let want = windows[entry.sequence]?[key]?.json
                #expect(entry.value == want, "\(context): \(key) after rev \(entry.record.revision): \(String(describing: entry.value)), want \(String(describing: want))")
            }
        }
    }
}

/// The rows `view` shows of `document`: a window evaluated from scratch with the query's own
/// limit (paged: the pages shown).
private func expected(_ view: HistoryView, _ document: JSONDocument) -> [PlainRow] {
    guard let paging = view.paging else { return plainRows(Window(query: view.query, path: view.location, document: document)) }
    let n = paging.pageSize * view.pages
    let unlimited = view.query.withoutLimit
    let limited = paging.edge == .start ? try! unlimited.limitToFirst(n) : try! unlimited.limitToLast(n)
    return plainRows(Window(query: limited, path: view.location, document: document))
}
