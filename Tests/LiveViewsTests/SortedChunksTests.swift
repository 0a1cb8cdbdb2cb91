@testable import LiveViews
import Testing
import TestSupport

@Suite struct SortedChunksTests {
    @Test func insertsAndRemovesKeepTheElementsSortedWithRanks() {
        forEachSeed(4) { seed, rng in
            var set = SortedChunks<Int>(sorted: (0..<rng.int(0..<2500)).map { _ in rng.int(0..<500) }.sorted())
            var model = set.elements
            var problems = [String]()
            for step in 0..<1000 where problems.isEmpty {
                let x = rng.int(0..<500)
                if rng.chance(0.5) {
                    set.insert(x)
                    model.insert(x, at: model.firstIndex { $0 >= x } ?? model.count)
                } else {
                    if set.remove(x) != model.contains(x) { problems.append("step \(step): remove \(x)") }
                    if let i = model.firstIndex(of: x) { model.remove(at: i) }
                }
                guard step % 100 == 0 || step == 999 else { continue }
                if set.elements != model || set.count != model.count { problems.append("step \(step): elements") }
                let probe = rng.int(0..<500)
                if set.rank(of: probe) != model.filter({ $0 < probe }).count { problems.append("step \(step): rank of \(probe)") }
                if !model.isEmpty {
                    let i = rng.int(0..<model.count)
                    if set.element(at: i) != model[i] || set.first != model.first || set.last != model.last {
                        problems.append("step \(step): element \(i), first, last")
                    }
                }
            }
            #expect(problems.isEmpty, "seed \(seed): \(problems)")
        }
    }
}
