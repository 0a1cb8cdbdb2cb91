// Property: a log folded by a key is jq's fold of the same records.
import Expressions
import FileStore
import Foundation
import JSONTree
import StoreInterface
import Testing
import TestSupport
@testable import KeyedStore

@Suite("A log folded by a key")
struct KeyedStoreTests {
    /// `records` folded by jq: `.[$r.k] = $r`, or `del(.[$r.k])` for a record of type DELETED.
    private func jqFold(_ records: [String], deletes: Bool) throws -> JSON {
        let folder = ScratchFolder("keyed-jq")
        let input = folder.write("records.jsonl", records.joined(separator: "\n") + "\n")
        let step = deletes ? #"if $r.type == "DELETED" then del(.[$r.k]) else .[$r.k] = $r end"# : ".[$r.k] = $r"
        let result = try runProgram("/usr/bin/jq", ["-c", "-n", "reduce inputs as $r ({}; \(step))", input])
        #expect(result.status == 0, "\(result.errors)")
        return try JSONDocument(parsing: result.output).root.json
    }

    private func randomRecords(_ rng: inout SplitMix64, deletes: Bool) -> [String] {
        (0..<rng.int(1...60)).map { _ in
            let type = deletes && rng.chance(0.2) ? "DELETED" : "MODIFIED"
            return #"{"k": "key\#(rng.int(0..<10))", "type": "\#(type)", "v": \#(rng.int(0..<1000))}"#
        }
    }

    /// The members of an object, by key (jq and the fold may order keys that were deleted and
    /// added again alike, but the comparison need not depend on it).
    private func byKey(_ value: JSON) -> [String: JSON] {
        Dictionary(uniqueKeysWithValues: (value.objectValue?.members ?? []).map { ($0.key, $0.value) })
    }

    @Test("a JSON Lines file followed by a keyed store, appended to in pieces, equals jq's reduce")
    func foldEqualsJq() throws {
        try forEachSeed(12) { seed, rng in
            let deletes = rng.chance(0.5)
            let records = randomRecords(&rng, deletes: deletes)
            let folder = ScratchFolder("keyed-log")
            let path = folder.file("events.jsonl")
            let cut = rng.int(0...records.count)
            writeFileInPlace(path, Array(records[..<cut].map { $0 + "\n" }.joined().utf8))
            let log = try FileStore(path: path, options: FileStore.Options(format: .jsonLines))
            let store = try KeyedStore(log: log, fold: KeyedFold(key: try Expression(".k"),
                                                                 deleteWhen: deletes ? try Expression(#".type == "DELETED""#) : nil))
            try store.run(timeoutMilliseconds: 30_000) { log.status.lines?.records == cut && store.currentRevision != nil }
            writeFileInPlace(path, Array(records.map { $0 + "\n" }.joined().utf8))
            try store.run(timeoutMilliseconds: 30_000) { log.status.lines?.records == records.count }
            let expected = try jqFold(records, deletes: deletes)
            let folded = try #require(store.currentRevision).document.root.json
            #expect(byKey(folded) == byKey(expected), "seed \(seed)")
        }
    }

    @Test("a record without the key is an error row, never dropped")
    func recordWithoutKey() throws {
        let log = try MemoryStore()
        let store = try KeyedStore(log: log, fold: KeyedFold(key: try Expression(".metadata.name")))
        // A log's revision: its records as an array, as a JSON Lines source gives them.
        log.publish(try JSONDocument(parsing: #"[{"metadata": {"name": "a"}, "n": 1}, {"n": 2}, {"metadata": {"name": "a"}, "n": 3}]"#))
        try store.run(timeoutMilliseconds: 10_000) { store.currentRevision != nil }
        let root = try #require(store.currentRevision).document.root.json
        #expect(root.objectValue?.keys == ["a", "$1"])
        #expect(root["a"]?["n"] == .number(JSONNumber(3)))
        #expect(root["$1"]?["$error"]?["message"] == .string("--key .metadata.name gives null, not a string or a number"))
    }

    @Test("each of several revisions published at once (a journal replayed for history) is folded and published in turn")
    func everyRevisionFolded() throws {
        let log = try MemoryStore()
        let store = try KeyedStore(log: log, fold: KeyedFold(key: try Expression(".k")))
        var seen: [(number: Int, rows: [String: JSON])] = []
        store.observeRevisions { seen.append(($0.number, self.byKey($0.document.root.json))) }
        let revisions = [#"[{"k": "a", "n": 1}]"#, #"[{"k": "a", "n": 1}, {"k": "b", "n": 2}]"#,
                         #"[{"k": "a", "n": 1}, {"k": "b", "n": 2}, {"k": "a", "n": 5}]"#, #"[{"k": "b", "n": 7}]"#]
        for text in revisions { log.publish(try JSONDocument(parsing: text)) }
        store.processPendingChanges()
        let record = { (k: String, n: Int) in JSON.object(JSONObject([("k", .string(k)), ("n", .number(JSONNumber(n)))])) }
        #expect(seen.map(\.number) == [1, 2, 3, 4])
        #expect(seen.map(\.rows) == [["a": record("a", 1)], ["a": record("a", 1), "b": record("b", 2)],
                                     ["a": record("a", 5), "b": record("b", 2)], ["b": record("b", 7)]])
    }
}
