// A batch between two arrays of keys, for lists that are not query windows.
import JSONTree

extension BatchDiff {
    /// The batch that turns rows keyed `old` into rows keyed `new`, matching rows by the exact
    /// code units of their keys (so `"é"` and `"e\u{301}"` are two rows).
    /// - Parameters:
    ///   - old, new: the rows' keys; each array's keys are distinct (a repeated key after the
    ///     first is treated as a different row).
    ///   - isChanged: whether the row kept at old index `old` and new index `new` changed value
    ///     (it is reloaded); nil when no row changed.
    /// - Complexity: O(n) hashing, plus O(n log n) at worst for the moves.
    public init(from old: [String], to new: [String], isChanged: ((_ old: Int, _ new: Int) -> Bool)? = nil) {
        let oldIndexOfNew = matchKeys(old, new)
        var changed = [Bool](repeating: false, count: new.count)
        if let isChanged {
            for j in 0..<new.count where oldIndexOfNew[j] >= 0 { changed[j] = isChanged(Int(oldIndexOfNew[j]), j) }
        }
        self.init(oldCount: old.count, oldIndexOfNew: oldIndexOfNew, changed: changed, key: { new[$0] })
    }
}

/// For each new key, the index of the old key with the same code units, or -1.
///
/// A hash join, worked a block of keys at a time: each step first touches what the block's keys
/// will read (their strings, their table slots, the old key they probably match), so the cache
/// misses of a million scattered keys overlap instead of queueing one after another.
/// - Complexity: O(n + m) expected.
func matchKeys(_ old: [String], _ new: [String]) -> [Int32] {
    var result = [Int32](repeating: -1, count: new.count)
    guard !old.isEmpty && !new.isEmpty else { return result }
    var size = 16
    while size < old.count * 2 { size <<= 1 }
    let mask = size - 1
    // Per slot: the hash's high 32 bits, and in the low 32 the old index + 1 (0: empty) with
    // the top bit set once a new key has taken that row.
    var slots = [UInt64](repeating: 0, count: size)
    let high: UInt64 = 0xFFFF_FFFF_0000_0000, takenBit: UInt64 = 0x8000_0000, indexBits: UInt64 = 0x7FFF_FFFF
    let block = 32
    var hashes = [UInt64](repeating: 0, count: block), candidates = [Int](repeating: -1, count: block)
    var sum: UInt64 = 0
    old.withUnsafeBufferPointer { old in
        new.withUnsafeBufferPointer { new in
            slots.withUnsafeMutableBufferPointer { slots in
                hashes.withUnsafeMutableBufferPointer { hashes in
                    func same(_ a: String, _ b: String) -> Bool {
                        withKeyBytes(a) { x in withKeyBytes(b) { y in x.count == y.count && (x.isEmpty || bytesEqual(x.baseAddress!, y.baseAddress!, x.count)) } }
                    }
                    func firstByte(_ s: String) -> UInt64 { UInt64(s.utf8.withContiguousStorageIfAvailable { $0.first ?? 0 } ?? 0) }
                    func slot(_ h: UInt64) -> Int { Int(truncatingIfNeeded: h) & mask }
                    // Each loop below does one kind of memory access for the whole block, with
                    // a small body, so the processor keeps many of the block's misses in flight.
                    var touched: UInt64 = 0
                    // The old keys into the table; a repeated key keeps its first row.
                    var start = 0
                    while start < old.count {
                        let n = min(block, old.count - start)
                        for k in 0..<n { hashes[k] = withKeyBytes(old[start + k]) { hashBytes($0) } }
                        for k in 0..<n { touched &+= slots[slot(hashes[k])] }
                        for k in 0..<n {
                            let i = start + k, tag = hashes[k] & high
                            var s = slot(hashes[k])
                            var repeated = false
                            while slots[s] != 0 {
                                if slots[s] & high == tag && same(old[Int(slots[s] & indexBits) - 1], old[i]) {
                                    repeated = true
                                    break
                                }
                                s = (s + 1) & mask
                            }
                            if !repeated { slots[s] = tag | UInt64(i + 1) }
                        }
                        start += n
                    }
                    // The new keys: their strings, their slots, the old key each probably is, then compare.
                    start = 0
                    while start < new.count {
                        let n = min(block, new.count - start)
                        for k in 0..<n { touched &+= firstByte(new[start + k]) }
                        for k in 0..<n { hashes[k] = withKeyBytes(new[start + k]) { hashBytes($0) } }
                        for k in 0..<n { touched &+= slots[slot(hashes[k])] }
                        for k in 0..<n {
                            let tag = hashes[k] & high
                            var s = slot(hashes[k])
                            candidates[k] = -1
                            while slots[s] != 0 {
                                if slots[s] & high == tag {
                                    candidates[k] = s
                                    break
                                }
                                s = (s + 1) & mask
                            }
                        }
                        for k in 0..<n where candidates[k] >= 0 { touched &+= firstByte(old[Int(slots[candidates[k]] & indexBits) - 1]) }
                        for k in 0..<n where candidates[k] >= 0 {
                            let j = start + k, tag = hashes[k] & high
                            // The first slot with the tag is almost always the key; else keep probing.
                            var s = candidates[k]
                            while slots[s] != 0 {
                                if slots[s] & high == tag && same(old[Int(slots[s] & indexBits) - 1], new[j]) {
                                    if slots[s] & takenBit == 0 {
                                        slots[s] |= takenBit
                                        result[j] = Int32(truncatingIfNeeded: Int(slots[s] & indexBits) - 1)
                                    }
                                    break
                                }
                                s = (s + 1) & mask
                            }
                        }
                        start += n
                    }
                    sum = touched
                }
            }
        }
    }
    keepLoads(sum)
    return result
}

/// Calls `body` with the UTF-8 bytes of `s`, in place when they are contiguous (native strings).
@inline(__always)
func withKeyBytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let r = s.utf8.withContiguousStorageIfAvailable(body) { return r }
    return Array(s.utf8).withUnsafeBufferPointer(body)
}

/// Keeps loads whose only purpose is to bring memory into cache: their sum is "used".
@inline(never)
func keepLoads(_ sum: UInt64) {
    if sum == 0x0123_4567_89AB_CDEF { print("", terminator: "") }
}
