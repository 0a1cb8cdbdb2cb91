import JSONTree
import Testing
@testable import LiveQuery
import TestSupport

@Suite struct WindowChangeReplayTests {
    /// A first window of 20,000 rows and a revision of a few hundred events over it: the
    /// indexes replay exactly, at a cost in the events (by key, the first window alone was
    /// 2·10⁸ key comparisons: the limit fails it).
    @Test(.timeLimit(.minutes(1))) func largeWindowReplaysByIndex() throws {
        var rng = SplitMix64(seed: 0x43_08)
        let n = 20_000
        let values: [Int?] = (0..<n).map { _ in rng.int(0..<1_000_000) }
        func text(_ values: [Int?]) -> String {
            "{" + values.enumerated().compactMap { i, v in v.map { "\"k\(i)\":\($0)" } }.joined(separator: ",") + "}"
        }
        let query = try Query().orderByValue()
        let first = Window(query: query, document: try JSONDocument(parsing: text(values)))
        let initial = WindowChange.initial(first)
        #expect(initial.replayIndexes.map(\.index) == Array(0..<n))

        // Removals, additions and re-sorted children at random, in one revision.
        var next = values
        for _ in 0..<300 {
            let i = rng.int(0..<n)
            switch rng.int(0..<3) {
            case 0: next[i] = nil
            case 1: next.append(rng.int(0..<1_000_000))
            default: next[i] = rng.int(0..<1_000_000)
            }
        }
        let change = first.advanced(to: try JSONDocument(parsing: text(next)))
        #expect(change.childEvents.count > 300)
        // Applied by index alone to the old keys, they give the new keys.
        var keys = first.keys
        for (event, at) in zip(change.childEvents, change.replayIndexes) {
            switch event.kind {
            case .childRemoved: keys.remove(at: at.index)
            case .childAdded: keys.insert(event.key, at: at.index)
            case .childMoved:
                keys.remove(at: try #require(at.fromIndex))
                keys.insert(event.key, at: at.index)
            case .childChanged: #expect(keys[at.index] == event.key)
            }
        }
        #expect(keys == change.new.keys)
    }

    /// Windows of two different queries over one revision (a query reassigned): every child
    /// may move, and the indexes still replay to the new window.
    @Test func changesBetweenQueriesReplayByIndex() {
        forEachSeed(200, base: 0x43_80) { seed, rng in
            let items = randomCollection(&rng)
            let (doc, _) = document(documentText(items, asArray: false, pretty: false))
            let a = Window(query: randomQuery(&rng), path: itemsPath, document: doc)
            let b = Window(query: randomQuery(&rng), path: itemsPath, document: doc)
            let change = WindowChange(from: a, to: b)
            let byIndex = replayByIndex(change.childEvents, change.replayIndexes, on: rows(a))
            #expect(byIndex == rows(b), "seed \(seed): \(a.query) → \(b.query)")
        }
    }
}
