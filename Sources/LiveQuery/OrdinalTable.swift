// A hash table of ordinals, keyed by byte strings (a child list's keys), and the hash it uses.

/// A 64-bit hash of a byte string (multiply-and-mix over 8-byte words).
/// - Complexity: O(length).
func hashBytes(_ p: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(p.count)
    guard let base = p.baseAddress else { return mix(h) }
    let raw = UnsafeRawPointer(base)
    var i = 0
    while i + 8 <= p.count {
        h = mix(h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        i += 8
    }
    if i < p.count {
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < p.count {
            tail |= UInt64(base[i]) << shift
            shift += 8
            i += 1
        }
        h = mix(h ^ tail)
    }
    return mix(h)
}

@inline(__always)
private func mix(_ x: UInt64) -> UInt64 {
    var z = x &* 0xBF58_476D_1CE4_E5B9
    z ^= z >> 31
    z = z &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 29)
}

/// An open-addressing hash table from hashed byte strings to small integers (ordinals, rows).
/// The strings stay where they are: callers hash them and say whether a stored value's string
/// equals theirs. One 64-bit slot per entry (hash tag and value), so a probe is one cache miss.
struct OrdinalTable: Sendable {
    /// Per slot: the hash's high 32 bits, and the value + 1 (0: empty).
    private var slots: [UInt64]
    private let mask: Int

    /// A table for up to `capacity` entries.
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
    }

    /// Stores `value` under `hash`, unless `isEqual` finds a value with the same string: then
    /// returns that value and stores nothing.
    mutating func insert(_ value: Int32, hash: UInt64, isEqual: (Int32) -> Bool) -> Int32? {
        let tag = hash & 0xFFFF_FFFF_0000_0000
        let mask = self.mask
        return slots.withUnsafeMutableBufferPointer { slots in
            var s = Int(truncatingIfNeeded: hash) & mask
            while slots[s] != 0 {
                let e = slots[s]
                if e & 0xFFFF_FFFF_0000_0000 == tag, case let v = Int32(truncatingIfNeeded: e) - 1, isEqual(v) { return v }
                s = (s + 1) & mask
            }
            slots[s] = tag | UInt64(UInt32(bitPattern: value + 1))
            return nil
        }
    }

    /// The value stored under a string with `hash` for which `isEqual` holds.
    func find(hash: UInt64, isEqual: (Int32) -> Bool) -> Int32? {
        let tag = hash & 0xFFFF_FFFF_0000_0000
        return slots.withUnsafeBufferPointer { slots in
            var s = Int(truncatingIfNeeded: hash) & mask
            while slots[s] != 0 {
                let e = slots[s]
                if e & 0xFFFF_FFFF_0000_0000 == tag, case let v = Int32(truncatingIfNeeded: e) - 1, isEqual(v) { return v }
                s = (s + 1) & mask
            }
            return nil
        }
    }
}
