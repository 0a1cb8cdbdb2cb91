// Random values: a sparkline has one block per value, the lowest value the lowest block, the
// highest the highest, and keeps the values' order.
import Testing
@testable import SyncedArray
import TestSupport

@Suite struct SparklineTests {
    @Test func blocksFollowTheValuesOrder() {
        let blocks = Array("▁▂▃▄▅▆▇█")
        forEachSeed(50) { seed, rng in
            let values: [Double?] = (0..<rng.int(1...12)).map { _ in rng.chance(0.1) ? nil : Double(rng.int(-50...50)) }
            let line = Array(sparkline(values))
            #expect(line.count == values.count, "seed \(seed)")
            let numbers = values.compactMap { $0 }
            for (value, block) in zip(values, line) {
                guard let value else {
                    #expect(block == " ", "seed \(seed): a missing value is a space")
                    continue
                }
                if numbers.min() == numbers.max() { continue }
                if value == numbers.min() { #expect(block == blocks.first!, "seed \(seed)") }
                if value == numbers.max() { #expect(block == blocks.last!, "seed \(seed)") }
            }
            for (a, b) in zip(zip(values, line), zip(values, line).dropFirst()) {
                guard let x = a.0, let y = b.0 else { continue }
                let (i, j) = (blocks.firstIndex(of: a.1)!, blocks.firstIndex(of: b.1)!)
                #expect(x < y ? i <= j : x > y ? i >= j : i == j, "seed \(seed): \(values) → \(String(line))")
            }
        }
    }
}
