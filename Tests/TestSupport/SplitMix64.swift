// Seeds for the property tests of every module: a failing case is replayed from its seed.
import SeededRandom

/// The generator every property test draws from (one copy, in `SeededRandom`).
public typealias SplitMix64 = SeededRandom.SplitMix64

/// Runs `body` for `count` seeds; failures should name the seed.
public func forEachSeed(_ count: Int, base: UInt64 = 0x5EED, _ body: (UInt64, inout SplitMix64) throws -> Void) rethrows {
    for i in 0..<UInt64(count) {
        let seed = base &+ i &* 0x1_0000_0001
        var rng = SplitMix64(seed: seed)
        try body(seed, &rng)
    }
}

/// `forEachSeed` for a body that awaits (a test that starts a server for each seed).
public func forEachSeed(_ count: Int, base: UInt64 = 0x5EED, _ body: (UInt64, inout SplitMix64) async throws -> Void) async rethrows {
    for i in 0..<UInt64(count) {
        let seed = base &+ i &* 0x1_0000_0001
        var rng = SplitMix64(seed: seed)
        try await body(seed, &rng)
    }
}
