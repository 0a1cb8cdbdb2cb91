// Push ids: keys for new children that sort in creation order.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes push ids, the Realtime Database's keys for `push`: 20 characters, 8 for the
/// millisecond timestamp and 12 random, over `-0-9A-Z_a-z` in ASCII order, so ids sort (by code
/// units, and by `nameCompare`) in the order they were made. Within one millisecond the random
/// part is incremented instead of drawn again; a clock that goes back is treated as standing still.
///
/// Thread-safe: one generator may serve every writer of a process.
///
/// ```swift
/// let ids = PushIDGenerator()
/// let key = ids.next()            // "-NxY3k2Q0ab3Zc_9DfGh"
/// ```
public final class PushIDGenerator: Sendable {
    /// The 64 characters of a push id, in ASCII order.
    public static let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    private struct State: Sendable {
        var lastTime: UInt64 = 0
        var random = [UInt8](repeating: 0, count: 12)
        var hasRandom = false
    }

    /// The process's generator: every store's pushes share it, so their ids sort in creation order.
    public static let shared = PushIDGenerator()

    private let state = Locked(State())
    private let clock: @Sendable () -> UInt64
    private let random: @Sendable () -> UInt64

    /// - Parameters:
    ///   - clock: milliseconds since 1970 (the system clock by default).
    ///   - random: a source of random bits (the system's by default).
    public init(
        clock: @escaping @Sendable () -> UInt64 = PushIDGenerator.systemMilliseconds,
        random: @escaping @Sendable () -> UInt64 = { UInt64.random(in: .min ... .max) }
    ) {
        self.clock = clock
        self.random = random
    }

    /// A new id, greater than every id this generator made before.
    public func next() -> String {
        let now = clock()
        let bytes: [UInt8] = state.withLock { s in
            if s.hasRandom && now <= s.lastTime {
                // Same millisecond (or the clock went back): the next random part.
                var i = 11
                while i >= 0 && s.random[i] == 63 {
                    s.random[i] = 0
                    i -= 1
                }
                if i >= 0 {
                    s.random[i] += 1
                } else {
                    // All 64^12 used up in one millisecond: borrow the next one.
                    s.lastTime += 1
                    draw(&s.random)
                }
            } else {
                s.lastTime = now
                draw(&s.random)
                s.hasRandom = true
            }
            var id = [UInt8](repeating: 0, count: 20)
            var t = s.lastTime
            for i in stride(from: 7, through: 0, by: -1) {
                id[i] = Self.alphabet[Int(t & 63)]
                t >>= 6
            }
            for i in 0..<12 { id[8 + i] = Self.alphabet[Int(s.random[i])] }
            return id
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func draw(_ digits: inout [UInt8]) {
        var bits = random()
        for i in 0..<12 {
            if i == 10 { bits = random() }
            digits[i] = UInt8(bits & 63)
            bits >>= 6
        }
    }

    /// The millisecond timestamp in a push id; nil when `id` is not one.
    public static func timestamp(of id: String) -> UInt64? {
        let bytes = Array(id.utf8)
        guard bytes.count == 20 else { return nil }
        var t: UInt64 = 0
        for b in bytes[0..<8] {
            guard let d = alphabet.firstIndex(of: b) else { return nil }
            t = t << 6 | UInt64(d)
        }
        guard bytes[8...].allSatisfy({ alphabet.contains($0) }) else { return nil }
        return t
    }

    /// Milliseconds since 1970 from the system clock.
    @Sendable public static func systemMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }
}
