import Foundation
import JSONTree
import Testing
@testable import LiveQuery

@Suite struct PushIDGeneratorTests {
    final class Clock: @unchecked Sendable {
        // @unchecked: set by the test before the generator reads it, never concurrently.
        var now: UInt64 = 1_700_000_000_000
    }

    @Test func formatAndTimestamp() {
        let clock = Clock()
        let ids = PushIDGenerator(clock: { clock.now })
        let id = ids.next()
        #expect(id.utf8.count == 20)
        #expect(id.utf8.allSatisfy { PushIDGenerator.alphabet.contains($0) })
        #expect(PushIDGenerator.timestamp(of: id) == clock.now)
        #expect(PushIDGenerator.timestamp(of: "short") == nil)
        #expect(PushIDGenerator.alphabet == PushIDGenerator.alphabet.sorted())
        #expect(PushIDGenerator.alphabet.count == 64)
    }

    /// Random sources whose digits make increments carry (…62 → …63 → …00 with a carry) or
    /// overflow the whole random part.
    @Test(arguments: [0xFFFF_FFFF_FFFF_FFBF, UInt64.max, 0])
    func idsSortInCreationOrder(bits: UInt64) {
        let clock = Clock()
        let ids = PushIDGenerator(clock: { clock.now }, random: { bits })
        var made = [String]()
        for i in 0..<300 {
            if i % 50 == 0 { clock.now += UInt64(i % 100 == 0 ? 1 : 0) }
            if i == 200 { clock.now -= 5 }  // the clock goes back: still increasing
            made.append(ids.next())
        }
        for (a, b) in zip(made, made.dropFirst()) {
            #expect(Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)), "\(a) < \(b)")
            #expect(nameCompare(a, b) < 0)
        }
    }

    @Test func systemClockIdsAreUniqueAcrossThreads() async {
        let ids = PushIDGenerator()
        let made = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 { group.addTask { (0..<500).map { _ in ids.next() } } }
            var all = [String]()
            for await part in group { all += part }
            return all
        }
        #expect(Set(made).count == 4000)
        let now = PushIDGenerator.systemMilliseconds()
        #expect(made.allSatisfy { PushIDGenerator.timestamp(of: $0)! <= now + 1 })
    }
}
