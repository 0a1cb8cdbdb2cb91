import JSONTree
import LiveQuery
@testable import LiveViews
import Testing
import TestSupport

@Suite struct FrequencyViewTests {
    let players = Path(keys: ["players"])

    /// Checks one batch: well formed, replays the old rows into the new ones, and reloads
    /// exactly the kept rows whose count changed.
    func batchProblems(_ batch: BatchDiff, old: [FrequencyView.Row], new: [FrequencyView.Row]) -> [String] {
        var out = [String]()
        if batch.oldCount != old.count || batch.newCount != new.count { out.append("counts \(batch.oldCount)→\(batch.newCount), rows \(old.count)→\(new.count)") }
        guard batch.isConsistent, batch.oldCount == old.count, batch.newCount == new.count else { return out + ["inconsistent \(batch)"] }
        let replayed = batch.apply(to: old.map(\.value)) { new[$0].value }
        if replayed != new.map(\.value) { out.append("replay \(replayed) want \(new.map(\.value))") }
        let oldCount = Dictionary(uniqueKeysWithValues: old.map { ($0.value, $0.count) })
        let wanted = new.enumerated().filter { row in oldCount[row.element.value].map { $0 != row.element.count } ?? false }.map(\.offset)
        if batch.reloads.map(\.to) != wanted { out.append("reloads \(batch.reloads.map(\.to)) want \(wanted)") }
        for r in batch.reloads where old[r.from].value != new[r.to].value { out.append("reload \(r.from)→\(r.to) pairs two values") }
        return out
    }

    @Test func liveCountsEqualCountsFromScratchAndBatchesReplay() throws {
        try forEachSeed(30) { seed, rng in
            let column = rng.pick([Path(keys: ["team"]), Path(keys: ["score"]), Path(keys: ["tag"]), Path(keys: ["m", "v"]), Path.root])
            let view = FrequencyView(column: column, binWidth: rng.chance(0.25) ? 5 : nil)
            try followRandomEdits(&rng, steps: 25, start: { view.apply(WindowChange.initial($0)) }) { step, change in
                let before = view.rows
                let batch = view.apply(change)
                let scratch = FrequencyView.rows(of: change.new, column: column, binWidth: view.binWidth)
                #expect(view.rows == scratch, "seed \(seed) step \(step)")
                #expect(view.total == change.new.count, "seed \(seed) step \(step)")
                let problems = batchProblems(batch, old: before, new: view.rows)
                #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
                return problems.isEmpty && view.rows == scratch
            }
        }
    }

    /// A computed column (a number score's remainder by 7, else the team, else no value) counted
    /// live equals its counts from scratch, and the batches replay.
    @Test func computedColumnCountsEqualCountsFromScratch() throws {
        let computed = ChildValue(text: "score % 7 // team") { value, tape in
            guard tape.kind(value) == .object else { return nil }
            if let score = Array("score".utf8).withUnsafeBufferPointer({ tape.member(of: value, named: $0) }), tape.kind(score) == .number {
                return .number(JSONNumber(tape.number(score).truncatingRemainder(dividingBy: 7)))
            }
            if let team = Array("team".utf8).withUnsafeBufferPointer({ tape.member(of: value, named: $0) }), tape.kind(team) == .string {
                return .string(tape.withStringBytes(team) { String(decoding: $0, as: UTF8.self) })
            }
            return nil
        }
        try forEachSeed(15, base: 0xF7E0) { seed, rng in
            let view = FrequencyView(computed: computed, binWidth: rng.chance(0.25) ? 2 : nil)
            try followRandomEdits(&rng, steps: 20, start: { view.apply(WindowChange.initial($0)) }) { step, change in
                let before = view.rows
                let batch = view.apply(change)
                let scratch = FrequencyView.rows(of: change.new, computed: computed, binWidth: view.binWidth)
                #expect(view.rows == scratch, "seed \(seed) step \(step)")
                let problems = batchProblems(batch, old: before, new: view.rows)
                #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
                return problems.isEmpty && view.rows == scratch
            }
        }
        let fixed = FrequencyView(computed: computed)
        let doc = try document([("a", ["score": 9]), ("b", ["score": 16, "team": "red"]), ("c", ["team": "red"]), ("d", 5)])
        fixed.apply(WindowChange.initial(Window(query: Query(), path: players, document: doc)))
        // a and b: 2; c: its team; d is no object, so no value (missing, before strings).
        #expect(fixed.rows.map { "\($0.value.identity)×\($0.count)" } == ["n2.0×2", "m×1", "sred×1"])
    }

    @Test func aValueThatChangesReloadsItsTwoRowsAndNewOrGoneValuesInsertOrDelete() throws {
        let children: [(key: String, value: JSON)] = [("a", ["team": "red"]), ("b", ["team": "red"]), ("c", ["team": "blue"]), ("d", ["team": "gold"])]
        var window = Window(query: Query(), path: players, document: try document(children))
        let view = FrequencyView(column: Path(keys: ["team"]))
        view.apply(WindowChange.initial(window))
        #expect(view.rows.map(\.description) == ["sred×2", "sblue×1", "sgold×1"])
        var edited = children
        edited[0].value = ["team": "gold"]
        let change = window.advanced(to: try document(edited))
        window = change.new
        let batch = view.apply(change)
        // gold (2) overtakes red (now 1, tied with blue: blue first by value order).
        #expect(view.rows.map(\.description) == ["sgold×2", "sblue×1", "sred×1"])
        #expect(batch.reloads.map { [$0.from, $0.to] } == [[2, 0], [0, 2]])
        #expect(batch.moves.count == 2 && batch.deletes.isEmpty && batch.inserts.isEmpty)
        // A new value is an insert; a value no child holds any more, a delete.
        var next = edited
        next[2].value = ["team": "teal"]
        let second = view.apply(window.advanced(to: try document(next)))
        #expect(second.deletes == [1] && second.inserts == [2] && second.reloads.isEmpty)
        #expect(view.rows.map(\.description) == ["sgold×2", "sred×1", "steal×1"])
    }

    @Test func binningCountsNumbersInRoundRanges() throws {
        let children = (0..<40).map { (String(format: "k%02d", $0), JSON.object(JSONObject([("score", .number(JSONNumber(Double($0 * 3))))]))) }
        let window = Window(query: Query(), path: players, document: try document(children))
        let view = FrequencyView(column: Path(keys: ["score"]))
        view.apply(WindowChange.initial(window))
        #expect(view.count == 40)
        let batch = view.setBinning(true)
        #expect(view.binWidth == 20)  // 0…117 in about ten ranges
        #expect(view.rows.map(\.value.description) == ["[0, 20)", "[20, 40)", "[60, 80)", "[80, 100)", "[40, 60)", "[100, 120)"])
        #expect(view.rows.map(\.count) == [7, 7, 7, 7, 6, 6])
        #expect(batch.oldCount == 40 && batch.newCount == 6)
        view.setBinning(false)
        #expect(view.count == 40 && view.binWidth == nil)
    }
}
