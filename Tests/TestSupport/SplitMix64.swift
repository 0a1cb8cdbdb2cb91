// A small seeded random generator for the property tests of every module: a failing
// case is replayed from its seed.

/// SplitMix64: fast, seeded, the same sequence on every machine.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    public mutating func pick<T>(_ items: [T]) -> T { items[int(0..<items.count)] }
}

/// Runs `body` for `count` seeds; failures should name the seed.
public func forEachSeed(_ count: Int, base: UInt64 = 0x5EED, _ body: (UInt64, inout SplitMix64) throws -> Void) rethrows {
    for i in 0..<UInt64(count) {
        let seed = base &+ i &* 0x1_0000_0001
        var rng = SplitMix64(seed: seed)
        try body(seed, &rng)
    }
}
