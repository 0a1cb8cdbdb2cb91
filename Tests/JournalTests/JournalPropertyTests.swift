// Property: a journal written then replayed gives back every revision exactly, also after its
// writer was killed mid-line; a file that is not a journal is a named error at its line and column.
import Foundation
import JSONTree
import LiveQuery
import StoreInterface
import SyncedArray
import Testing
import TestSupport
@testable import Journal

@Suite("A journal written then replayed")
struct JournalPropertyTests {
    @Test("random edits written then read back are every revision, exactly; a torn last line is a warning naming it")
    func writtenThenReplayed() throws {
        try forEachSeed(40) { seed, rng in
            let folder = ScratchFolder("journal-property")
            let path = folder.file("table.journal")
            let writer = try JournalWriter(path: path)
            var value = randomValue(&rng, depth: 0)
            var written = [String]()
            for n in 0..<rng.int(1...25) {
                if n > 0 { value = edited(value, &rng) }
                // Pretty or compact: the journal keeps values, not layouts.
                let document = try JSONDocument(parsing: value.serializedString(rng.chance(0.5) ? .compact : .pretty))
                try writer.append(document, time: 1_700_000_000 + Double(n), writer: "other process")
                if written.last != value.serializedString() { written.append(value.serializedString()) }
            }
            let lines = (readFileText(path) ?? "").split(separator: "\n").count
            let torn = rng.chance(0.5)
            if torn {
                // A writer killed mid-line: part of a line, no newline.
                let handle = try #require(FileHandle(forWritingAtPath: path))
                handle.seekToEndOfFile()
                handle.write(Data(#"{"time":1700000099000,"changes":[["/a","#.utf8))
                handle.closeFile()
            }
            let recording = try JournalRecording(path: path)
            var replayed = [String]()
            try recording.forEachRevision { value, _ in replayed.append(value.json.serializedString()) }
            #expect(replayed == written, "seed \(seed)")
            #expect(recording.warning == (torn ? "\(path): line \(lines + 1) was cut short (its writer stopped mid-line) and is left out" : nil),
                    "seed \(seed): \(recording.warning ?? "no warning")")
            // The store replays the same revisions, with their times, to a reader of each one.
            let store = try JournalStore(path: path)
            store.publishesEveryRevision = true
            var published = [(String, Double)]()
            store.observeRevisions { published.append(($0.root.json.serializedString(), $0.time)) }
            store.processPendingChanges()
            #expect(published.map(\.0) == written, "seed \(seed)")
            #expect(published.first?.1 == 1_700_000_000, "seed \(seed)")
            // Any revision made on request, stepping back and forth in random order from the last.
            let revisions = try JournalRevisions(recording, spacing: rng.int(1...5))
            #expect(revisions.count == written.count, "seed \(seed)")
            var n = written.count - 1
            for _ in 0..<(3 * written.count) {
                #expect(revisions.value(at: n).json.serializedString() == written[n], "seed \(seed), revision \(n)")
                #expect(store.document(ofRevision: n).root.json.serializedString() == written[n], "seed \(seed), revision \(n)")
                n = rng.chance(0.7) ? min(max(n + rng.pick([-1, -1, 1]), 0), written.count - 1) : rng.int(0..<written.count)
            }
            try expectStepsOnDemand(path: path, written: written, seed: seed, &rng)
        }
    }

    /// The viewer's way: the last revision alone published, the time machine reading each earlier
    /// one from the journal when it steps there, back and forth in random order; its rows at each
    /// revision equal a window evaluated from scratch on what was written, and it reaches the first.
    /// Under the default and key orders a step makes only the changed children; under value
    /// order, or with a limit, it reads whole revisions.
    private func expectStepsOnDemand(path: String, written: [String], seed: UInt64, _ rng: inout SplitMix64) throws {
        let query = try rng.pick([Query(), Query().orderByKey(), Query().orderByValue(), Query().limitToFirst(2)])
        let store = try JournalStore(path: path)
        let array = SyncedArray(store.reference().withQuery(query))
        let history = RevisionHistory()
        history.earlier = store
        array.history = history
        array.startSync()
        store.processPendingChanges()
        #expect(store.currentRevision?.number == written.count, "seed \(seed)")
        #expect(history.records.isEmpty, "seed \(seed): no earlier revision made before a step")
        let expected = try written.map { text in
            let window = Window(query: query, document: try JSONDocument(parsing: text))
            return (0..<window.count).map { "\(window.key(at: $0))=\(canonical(window.value(at: $0).json))" }
        }
        // A row rebuilt by the history may hold its members in another order: the same value.
        func shown(_ cursor: HistoryCursor) -> [String] { cursor.rows.map { "\($0.key)=\(canonical($0.value.json))" } }
        var cursor = HistoryCursor(history: history, present: Array(array.rows))
        for _ in 0..<(3 * written.count) {
            let revision = try #require(cursor.revision, "seed \(seed)")
            #expect(shown(cursor) == expected[revision - 1], "seed \(seed), revision \(revision)")
            if rng.chance(0.6) { cursor.stepBack() } else { cursor.stepForward() }
        }
        while cursor.stepBack() {}
        #expect(cursor.revision == 1 && shown(cursor) == expected[0], "seed \(seed): the first revision reached")
        cursor.move(to: history.lastSequence)
        #expect(shown(cursor) == expected[written.count - 1], "seed \(seed): back at the last")
    }

    @Test("a journal over --record-max-bytes rotates: FILE.1 holds the oldest revisions, and both are replayed")
    func rotation() throws {
        let folder = ScratchFolder("journal-rotation")
        let path = folder.file("r.journal")
        let writer = try JournalWriter(path: path, maxBytes: 400)
        var expected = [String]()
        for n in 0..<12 {
            let value: JSON = ["n": .number(JSONNumber(n)), "pad": .string(String(repeating: "x", count: 60))]
            try writer.append(JSONDocument(value), time: 1_700_000_000 + Double(n), writer: nil)
            expected.append(value.serializedString())
        }
        #expect(FileManager.default.fileExists(atPath: path + ".1"))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size <= 400)
        var replayed = [String]()
        try JournalRecording(path: path).forEachRevision { value, _ in replayed.append(value.json.serializedString()) }
        // Only one older file is kept: what it and the newest hold, in order, ending with the last revision.
        #expect(!replayed.isEmpty && replayed.last == expected.last)
        #expect(expected.hasSuffix(replayed), "\(replayed)")
    }

    @Test("--since and --until cut the recording by time: the state at since first")
    func cutByTime() throws {
        let folder = ScratchFolder("journal-cut")
        let path = folder.file("c.journal")
        let writer = try JournalWriter(path: path)
        for n in 0..<10 { try writer.append(JSONDocument(["n": .number(JSONNumber(n))]), time: 100 + Double(n), writer: nil) }
        var values = [Double]()
        try JournalRecording(path: path).forEachRevision(since: 103.5, until: 107) { value, _ in values.append(value.json["n"]!.doubleValue!) }
        #expect(values == [3, 4, 5, 6, 7])
    }

    @Test("a file that is not a journal is a named error with its line and column")
    func notAJournal() throws {
        let folder = ScratchFolder("journal-not")
        for (text, column) in [(#"{"a": 1}"#, 1), (#"{"a" 1}"#, 6)] {
            let path = folder.write("x.json", text + "\n")
            do {
                _ = try JournalRecording(path: path)
                Issue.record("\(text) was read as a journal")
            } catch {
                guard case .notJournal(path, 1, column, _) = error else { Issue.record("\(text): \(error)"); continue }
                #expect(error.description.hasPrefix("\(path) is not a SyncTable journal: line 1, column \(column): "))
            }
        }
        // A line in the middle that is not one is an error too, not a warning.
        let path = folder.write("y.journal", JournalEntry(time: 1, writer: nil, content: .whole(["a": 1])).line().string + "oops\n{\"time\":2,\"changes\":[]}\n")
        #expect(throws: JournalError.self) { _ = try JournalRecording(path: path) }
    }
}

/// `value` written with each object's members in key order.
private func canonical(_ value: JSON) -> String {
    switch value {
    case .object(let object):
        let members = object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return "{" + members.map { JSON.string($0.key).serializedString() + ":" + canonical($0.value) }.joined(separator: ",") + "}"
    case .array(let elements): return "[" + elements.map(canonical).joined(separator: ",") + "]"
    default: return value.serializedString()
    }
}

// MARK: Random values and edits

private func randomScalar(_ rng: inout SplitMix64) -> JSON {
    switch rng.int(0..<6) {
    case 0: .null
    case 1: .bool(rng.chance(0.5))
    case 2: .number(JSONNumber(rng.int(-1000...1000)))
    case 3: .number(JSONNumber(text: rng.pick(["1.0", "2.50", "-0", "1e3", "0.1"]))!)
    case 4: .string(rng.pick(["", "a", "b/c", "~x", "é", "tab\t"]))
    default: .string("s\(rng.int(0..<100))")
    }
}

private func randomValue(_ rng: inout SplitMix64, depth: Int) -> JSON {
    guard depth < 3, rng.chance(depth == 0 ? 1 : 0.4) else { return randomScalar(&rng) }
    if rng.chance(0.7) {
        var object = JSONObject()
        for _ in 0..<rng.int(0...6) { object[rng.pick(["a", "b", "c/d", "e~f", "g", "h", "$rate"])] = randomValue(&rng, depth: depth + 1) }
        return .object(object)
    }
    return .array((0..<rng.int(0...5)).map { _ in randomValue(&rng, depth: depth + 1) })
}

/// `value` with a few random edits: members set, removed or added, elements appended or dropped,
/// a whole subtree replaced, keys reordered.
private func edited(_ value: JSON, _ rng: inout SplitMix64) -> JSON {
    if rng.chance(0.15) { return randomValue(&rng, depth: 1) }
    switch value {
    case .object(let object):
        var members = object.members
        for _ in 0..<rng.int(1...3) {
            switch rng.int(0..<5) {
            case 0 where !members.isEmpty: members.remove(at: rng.int(0..<members.count))
            case 1 where !members.isEmpty:
                let i = rng.int(0..<members.count)
                members[i].value = edited(members[i].value, &rng)
            case 2 where members.count > 1: members.swapAt(0, members.count - 1)
            default:
                let key = rng.pick(["a", "b", "c/d", "e~f", "g", "h", "i", "j"])
                if !members.contains(where: { $0.key == key }) { members.append((key, randomValue(&rng, depth: 2))) }
            }
        }
        return .object(JSONObject(members))
    case .array(var elements):
        switch rng.int(0..<3) {
        case 0: elements.append(randomValue(&rng, depth: 2))
        case 1 where !elements.isEmpty: elements.removeLast(rng.int(1...elements.count))
        default:
            if !elements.isEmpty {
                let i = rng.int(0..<elements.count)
                elements[i] = edited(elements[i], &rng)
            }
        }
        return .array(elements)
    default:
        return randomScalar(&rng)
    }
}

private extension Array where Element == UInt8 {
    var string: String { String(decoding: self, as: UTF8.self) }
}

private extension Array where Element: Equatable {
    func hasSuffix(_ suffix: [Element]) -> Bool { suffix.count <= count && Array(self[(count - suffix.count)...]) == suffix }
}
