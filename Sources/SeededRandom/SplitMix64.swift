// One seeded random generator for whatever must give the same numbers on every machine:
// the bench's generated files, the table demo (and its terminal test), the property tests.

/// SplitMix64: fast, seeded, the same sequence on every machine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<n by plain modulo (what the bench's generated files were made with; keeps them the same).
    public mutating func next(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    public mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    public mutating func pick<T>(_ items: [T]) -> T { items[int(0..<items.count)] }
}
