// A batch as single-row steps: replaying the steps gives what applying the batch gives.
import JSONTree
import LiveQuery
import Testing
@testable import SyncedArray
import TestSupport

@Suite struct BatchDiffStepsTests {
    /// Replays steps on `old`, the way a per-event delegate would.
    func replay(_ steps: [RowStep], _ old: [String], _ new: [String]) -> [String] {
        var rows = old
        for step in steps {
            switch step {
            case .remove(let i): rows.remove(at: i)
            case .move(let from, let to): rows.insert(rows.remove(at: from), at: to)
            case .insert(let j): rows.insert(new[j], at: j)
            case .change(let j): rows[j] = new[j]
            }
        }
        return rows
    }

    @Test func stepsReplayEveryRandomBatch() {
        forEachSeed(400) { seed, rng in
            let pool = (0..<12).map { "k\($0)" }
            let old = pool.filter { _ in rng.chance(0.6) }.shuffled(using: &rng)
            let new = pool.filter { _ in rng.chance(0.6) }.shuffled(using: &rng)
            let changed = Set(pool.filter { _ in rng.chance(0.3) })
            let batch = BatchDiff(from: old, to: new) { o, _ in changed.contains(old[o]) }
            let steps = batch.steps()
            #expect(replay(steps, old, new) == new, "seed \(seed): \(old) → \(new) by \(steps)")
            let moves = steps.filter { if case .move = $0 { true } else { false } }.count
            #expect(moves == batch.moves.count && moves == fewestMoves(old: old, new: new), "seed \(seed)")
            #expect(batch.oldIndexOfNew() == new.map { k in old.firstIndex(of: k) ?? -1 }, "seed \(seed)")
        }
    }

    @Test func stepsComeRemovesMovesInsertsThenChanges() {
        let batch = BatchDiff(from: ["a", "b", "c", "d"], to: ["d", "x", "b", "c"]) { o, _ in o == 1 }
        #expect(batch.steps() == [.remove(0), .move(from: 2, to: 0), .insert(1), .change(2)])
    }
}
