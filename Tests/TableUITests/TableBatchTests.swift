import Testing
import Sequences
@testable import TableUI
import TestSupport

@Suite struct TableBatchTests {
    /// The list-view reading of a batch: drop deleted and moved-away items, then place
    /// moved and inserted items at their new indexes, ascending.
    func apply(_ batch: TableBatch, to old: [Int], newItems: [Int: Int]) -> [Int] {
        let leaving = Set(batch.deletes + batch.moves.map(\.from))
        var rest = old.indices.filter { !leaving.contains($0) }.map { old[$0] }
        var placed: [Int: Int] = newItems
        for m in batch.moves { placed[m.to] = old[m.from] }
        var out: [Int] = []
        for j in 0..<batch.newCount {
            if let item = placed[j] { out.append(item) } else { out.append(rest.removeFirst()) }
        }
        return out
    }

    func randomLists(_ rng: inout SplitMix64) -> (old: [Int], new: [Int]) {
        let old = Array(0..<Int.random(in: 0...12, using: &rng))
        var new = old.filter { _ in Int.random(in: 0..<4, using: &rng) != 0 }
        for k in 0..<Int.random(in: 0...4, using: &rng) {
            new.insert(100 + k, at: Int.random(in: 0...new.count, using: &rng))
        }
        for _ in 0..<Int.random(in: 0...2, using: &rng) where new.count > 1 {
            let item = new.remove(at: Int.random(in: 0..<new.count, using: &rng))
            new.insert(item, at: Int.random(in: 0...new.count, using: &rng))
        }
        return (old, new)
    }

    @Test func diffReplaysToTheNewListWithFewestMoves() throws {
        let seed: UInt64 = 0xBA7C4
        var rng = SplitMix64(seed: seed)
        for _ in 0..<400 {
            let (old, new) = randomLists(&rng)
            let batch = TableBatch(from: old, to: new)
            try batch.validate(tableCount: old.count, newCount: new.count)
            let inserted = Dictionary(uniqueKeysWithValues: batch.inserts.map { ($0, new[$0]) })
            #expect(apply(batch, to: old, newItems: inserted) == new, "seed \(seed): \(old) → \(new): \(batch)")
            let kept = new.compactMap { old.firstIndex(of: $0) }
            #expect(batch.moves.count == kept.count - longestIncreasingRun(kept).count, "seed \(seed)")
        }
    }

    @Test func mappingAgreesWithTheLists() {
        let seed: UInt64 = 0x3A99
        var rng = SplitMix64(seed: seed)
        for _ in 0..<400 {
            let (old, new) = randomLists(&rng)
            let mapping = BatchMapping(TableBatch(from: old, to: new))
            for (i, item) in old.enumerated() {
                #expect(mapping.newIndex(ofOld: i) == new.firstIndex(of: item), "seed \(seed): \(old) → \(new) at \(i)")
            }
            for (j, item) in new.enumerated() {
                #expect(mapping.oldIndex(ofNew: j) == old.firstIndex(of: item), "seed \(seed): \(old) → \(new) at \(j)")
            }
        }
    }

    @Test func neighbourOfADeletedRowIsTheNextSurvivor() {
        let mapping = BatchMapping(TableBatch(from: [0, 1, 2, 3, 4], to: [0, 1, 3, 4]))
        #expect(mapping.neighbour(ofDeleted: 2) == 2)  // row 3, now at 2
        let last = BatchMapping(TableBatch(from: [0, 1, 2], to: [0, 1]))
        #expect(last.neighbour(ofDeleted: 2) == 1)  // none after: the one before
        let all = BatchMapping(TableBatch(from: [0, 1], to: []))
        #expect(all.neighbour(ofDeleted: 0) == nil)
    }

    @Test(arguments: [
        (TableBatch(oldCount: 4, deletes: [1]), 4, "row counts do not balance: 4 old - 1 deleted + 0 inserted = 3, but the data source has 4 rows"),
        (TableBatch(oldCount: 5, deletes: [1]), 3, "the batch starts from 5 rows but the table shows 4"),
        (TableBatch(oldCount: 4, deletes: [4]), 3, "delete of old row 4 is out of range (the batch starts from 4 rows)"),
        (TableBatch(oldCount: 4, deletes: [1, 1], inserts: [0]), 3, "old row 1 is deleted twice"),
        (TableBatch(oldCount: 4, inserts: [7]), 5, "insert at new row 7 is out of range (the data source has 5 rows)"),
        (TableBatch(oldCount: 4, inserts: [2, 2]), 6, "new row 2 is inserted twice"),
        (TableBatch(oldCount: 4, deletes: [1], moves: [(from: 1, to: 0)]), 3, "old row 1 is named twice among deletes and move sources"),
        (TableBatch(oldCount: 4, inserts: [0], moves: [(from: 3, to: 0)]), 5, "new row 0 is named twice among inserts and move destinations"),
        (TableBatch(oldCount: 4, moves: [(from: 9, to: 0)]), 4, "move from old row 9 is out of range (the batch starts from 4 rows)"),
        (TableBatch(oldCount: 4, deletes: [2], reloads: [(old: 2, new: 2)]), 3, "old row 2 is both deleted and reloaded"),
        (TableBatch(oldCount: 4, deletes: [0], reloads: [(old: 2, new: 2)]), 3, "reload says old row 2 becomes new row 2, but the batch puts it at 1"),
    ] as [(TableBatch, Int, String)])
    func rejectedBatchNamesTheNumbersAndReloads(batch: TableBatch, newCount: Int, message: String) {
        let rows = TestRows(count: 4)
        let (table, canvas) = makeTable(rows, lines: 8, columns: 20)
        rows.rows = (0..<newCount).map { (id: 50 + $0, cells: ["n\($0)", "\($0)"]) }
        #expect(throws: TableBatchError(message)) { try table.performBatchUpdates(batch, now: 0) }
        // Reloaded everything: the screen shows the new rows, consistent and without animations.
        table.render(into: canvas)
        #expect(table.rowCount == newCount)
        #expect(table.state.animations.isEmpty)
        #expect(canvas.line(showing: "n0") == 1)
        #expect(canvas.line(showing: "n\(newCount - 1)") == newCount)
        #expect(canvas.violations.isEmpty)
    }
}
