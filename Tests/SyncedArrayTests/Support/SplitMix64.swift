// A small seeded random generator, so a failing property test can be replayed from its seed.

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0..<items.count)] }
}

/// Runs `body` for `count` seeds; failures should name the seed.
func forEachSeed(_ count: Int, base: UInt64 = 0x5EED, _ body: (UInt64, inout SplitMix64) throws -> Void) rethrows {
    for i in 0..<UInt64(count) {
        let seed = base &+ i &* 0x1_0000_0001
        var rng = SplitMix64(seed: seed)
        try body(seed, &rng)
    }
}
