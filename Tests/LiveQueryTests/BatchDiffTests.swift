import JSONTree
import Testing
import Sequences
@testable import LiveQuery
import TestSupport

@Suite struct BatchDiffTests {
    func check(_ old: [String], _ new: [String], changed: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation) -> BatchDiff {
        let batch = BatchDiff(from: old, to: new) { i, _ in changed.contains(old[i]) }
        let o = old.map { RefChild(key: $0, value: .null) }, n = new.map { RefChild(key: $0, value: changed.contains($0) ? 1 : .null) }
        let issues = batchProblems(batch, old: o, new: n)
        #expect(issues.isEmpty, "\(old) → \(new): \(issues)", sourceLocation: sourceLocation)
        return batch
    }

    @Test func movesOnlyWhatChangedPlace() {
        // One row from the end to the front: one move, not a shift of every index.
        let b = check(["a", "b", "c", "d"], ["d", "a", "b", "c"])
        #expect(b.moves == [BatchDiff.Move(from: 3, to: 0)])
        #expect(b.deletes.isEmpty && b.inserts.isEmpty)
        // Rows shifted by an insert are not moves.
        let shifted = check(["a", "b", "c"], ["x", "a", "b", "c"])
        #expect(shifted.moves.isEmpty)
        #expect(shifted.inserts == [0])
    }

    @Test func deletesInsertsReloads() {
        let b = check(["a", "b", "c", "d"], ["b", "e", "d", "a"], changed: ["d"])
        #expect(b.deletes == [2])
        #expect(b.inserts == [1])
        #expect(b.moves == [BatchDiff.Move(from: 0, to: 3)])
        #expect(b.reloads == [BatchDiff.Reload(key: "d", from: 3, to: 2)])
        #expect(b.oldCount - b.deletes.count + b.inserts.count == b.newCount)
    }

    @Test func keysByCodeUnits() {
        let b = check(["é", "x"], ["e\u{301}", "x"])
        #expect(b.deletes == [0])
        #expect(b.inserts == [0])
    }

    @Test func emptyAndIdentical() {
        #expect(check([], []).isEmpty)
        #expect(check(["a", "b"], ["a", "b"]).isEmpty)
        #expect(check([], ["a"]).inserts == [0])
        #expect(check(["a"], []).deletes == [0])
    }

    @Test func randomPermutationsAndEdits() {
        forEachSeed(400, base: 4242) { seed, rng in
            let old = (0..<rng.int(0..<40)).map { "k\($0)" }.shuffled(using: &rng)
            var new = old.filter { _ in !rng.chance(0.2) }
            for i in 0..<rng.int(0..<8) { new.insert("n\(i)", at: rng.int(0..<(new.count + 1))) }
            if rng.chance(0.5) { new.shuffle(using: &rng) } else if new.count > 2 {
                for _ in 0..<rng.int(0..<3) {
                    let m = new.remove(at: rng.int(0..<new.count))
                    new.insert(m, at: rng.int(0..<(new.count + 1)))
                }
            }
            let changed = Set(old.filter { _ in rng.chance(0.2) })
            let b = BatchDiff(from: old, to: new) { i, _ in changed.contains(old[i]) }
            let o = old.map { RefChild(key: $0, value: .null) }, n = new.map { RefChild(key: $0, value: changed.contains($0) ? 1 : .null) }
            let issues = batchProblems(b, old: o, new: n)
            #expect(issues.isEmpty, "seed \(seed): \(issues)")
        }
    }

    @Test func longestIncreasingSubsequenceIsLongest() {
        forEachSeed(300, base: 9) { seed, rng in
            let values = (0..<rng.int(0..<30)).map { _ in Int32(rng.int(0..<40)) }
            let marks = longestIncreasingSubsequence(values)
            let chosen = values.indices.filter { marks[$0] }.map { values[$0] }
            #expect(zip(chosen, chosen.dropFirst()).allSatisfy { $0 < $1 }, "seed \(seed): increasing")
            #expect(chosen.count == refLISLength(values.map(Int.init)), "seed \(seed): longest")
        }
    }

    /// Large key arrays go through the partitioned hash join: same matches as a plain lookup by bytes.
    @Test func largeKeyArraysMatchByBytes() {
        forEachSeed(6, base: 808) { seed, rng in
            let pool = ["é", "e\u{301}", "", "a", "😀", "\u{FF61}"]
            var old = (0..<rng.int(2000..<6000)).map { "k\($0)" } + pool
            old.shuffle(using: &rng)
            var new = old.filter { _ in !rng.chance(0.1) } + (0..<300).map { "n\($0)" }
            new.shuffle(using: &rng)
            if rng.chance(0.5) { old.append(old[0]) }  // a repeated old key: only its first row matches
            let matched = matchKeys(old, new)
            var firstIndex = [[UInt8]: Int]()
            for (i, k) in old.enumerated() where firstIndex[Array(k.utf8)] == nil { firstIndex[Array(k.utf8)] = i }
            let expected = new.map { Int32(firstIndex[Array($0.utf8)] ?? -1) }
            #expect(matched == expected, "seed \(seed)")
            let b = BatchDiff(from: old, to: new)
            #expect(b.isConsistent && b.apply(to: old, element: { new[$0] }) == new, "seed \(seed)")
        }
    }
}
