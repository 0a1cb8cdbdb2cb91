// Randomised: a real store on a real file, random edits, arrays keeping a history; the rows a
// cursor rebuilds at each kept revision (stepping back, forward, and jumping) are the query's
// window evaluated from scratch on that revision's tree, kept by the test; the records and a
// child's timeline agree with the trees.
import FileStore
import JSONTree
import LiveQuery
import Testing
@testable import SyncedArray
import TestSupport

@Suite struct RevisionHistoryTests {
    /// Queries with and without limits and paging, each with a history smaller than the run so
    /// that its oldest records go (by count, or by bytes).
    func subjects(_ store: FileStore) throws -> [SyncedArray] {
        let score = path("/score")
        let specs: [(Query, Paging?, HistoryLimits)] = [
            (try Query().orderByKey(), nil, HistoryLimits(revisions: 12)),
            (try Query().orderByChild(score).limitToLast(4), nil, HistoryLimits(revisions: 1_000, bytes: 4_000)),
            (try Query().orderByChild(score).startAt(20).endAt(70), nil, HistoryLimits(revisions: 9)),
            (try Query().orderByValue().limitToFirst(5), nil, HistoryLimits()),
            (try Query().orderByChild(score), Paging(pageSize: 3, from: .end), HistoryLimits(revisions: 15)),
        ]
        return specs.map { query, paging, limits in
            let array = SyncedArray(store.reference(path("/items")).withQuery(query), paging: paging)
            array.history = RevisionHistory(limits: limits)
            return array
        }
    }

    @Test func steppingRebuildsEachKeptRevisionsWindowFromItsTree() throws {
        try forEachSeed(4) { seed, rng in
            let folder = ScratchFolder()
            let file = folder.file("data.json")
            var model = Model()
            for _ in 0..<rng.int(4...10) { model.edit(&rng) }
            writeByRename(file, model.bytes(&rng))
            let store = try FileStore(path: file)
            let arrays = try subjects(store)
            for a in arrays { a.startSync() }
            store.wait(forRevision: 1)
            var trees = [1: store.currentRevision!.document]
            var cursors = [HistoryCursor?](repeating: nil, count: arrays.count)
            for revision in 2...26 {
                for _ in 0..<rng.int(1...3) { model.edit(&rng) }
                writeByRename(file, model.bytes(&rng))
                store.wait(forRevision: revision)
                trees[revision] = store.currentRevision!.document
                for (n, array) in arrays.enumerated() {
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
                #expect(cursor.sequence == history.firstSequence - 1, "\(context): stopped at \(cursor.sequence)")
                while cursor.stepForward() { check(cursor, array, trees, context + " forward") }
                #expect(cursor.sequence == history.lastSequence)
                for _ in 0..<6 {
                    cursor.move(to: rng.int((history.firstSequence - 1)...history.lastSequence))
                    check(cursor, array, trees, context + " jump")
                }
                checkRecords(history, array, trees, context)
            }
            for array in arrays { array.stopSync() }
        }
    }

    /// The cursor's rows are the array's query evaluated on its revision's tree.
    func check(_ cursor: HistoryCursor, _ array: SyncedArray, _ trees: [Int: JSONDocument], _ context: String,
               sourceLocation: SourceLocation = #_sourceLocation) {
        guard let revision = cursor.revision, let tree = trees[revision] else {
            Issue.record("\(context): no tree for the cursor's revision \(String(describing: cursor.revision))", sourceLocation: sourceLocation)
            return
        }
        let want = expected(array, tree).rows
        let got = cursor.rows.map(PlainRow.init)
        #expect(same(got, want), "\(context) at rev \(revision): \(got) want \(want)", sourceLocation: sourceLocation)
    }

    /// Each record says what changed between the trees of its revision and the one before: the
    /// keys added, removed and changed, each changed field's values in both trees; a child's
    /// timeline lists exactly the records in which its row changed.
    func checkRecords(_ history: RevisionHistory, _ array: SyncedArray, _ trees: [Int: JSONDocument], _ context: String) {
        var before = expected(array, trees[history.baseRevision!]!).rows
        var changedRecordsOfKey = [JSONKey: [Int]]()
        var windows = [Int: [JSONKey: JSONNode]]()
        for (i, record) in history.records.enumerated() {
            let after = expected(array, trees[record.revision]!).rows
            let label = "\(context) rev \(record.revision)"
            let old = Dictionary(before.map { (JSONKey($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
            let new = Dictionary(after.map { (JSONKey($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
            windows[history.firstSequence + i] = new
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
                changedRecordsOfKey[key, default: []].append(history.firstSequence + i)
            }
            for key in old.keys where new[key] == nil {
                #expect(described.contains(key), "\(label): \(key) left but is not in the record")
                changedRecordsOfKey[key, default: []].append(history.firstSequence + i)
            }
            before = after
        }
        let present = Dictionary(array.rows.map { (JSONKey($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        for (key, sequences) in changedRecordsOfKey {
            let changes = history.changes(ofKey: key.string)
                .filter { $0.change.kind != .moved && !($0.change.kind == .changed && $0.change.fields.isEmpty) }.map(\.sequence)
            #expect(changes == sequences, "\(context): changes of \(key) \(changes), want \(sequences)")
            // The timeline's values are the child's in each revision's window.
            for entry in history.timeline(ofKey: key.string, value: present[key]) {
                let want = windows[entry.sequence]?[key]?.json
                #expect(entry.value == want, "\(context): \(key) after rev \(entry.record.revision): \(String(describing: entry.value)), want \(String(describing: want))")
            }
        }
    }
}
