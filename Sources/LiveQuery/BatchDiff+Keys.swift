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
/// A hash join. Large inputs are first split by hash into partitions that fit in cache — the
/// keys' bytes copied along — so matching a million keys costs a few passes over memory rather
/// than several cache misses per key.
/// - Complexity: O(n + m) expected.
func matchKeys(_ old: [String], _ new: [String]) -> [Int32] {
    guard !old.isEmpty && !new.isEmpty else { return [Int32](repeating: -1, count: new.count) }
    // Partitions of about a thousand keys each.
    var bits = 0
    while (old.count >> bits) > 1024 { bits += 1 }
    let olds = PackedKeys(old).partitioned(bits: bits), news = PackedKeys(new).partitioned(bits: bits)
    var result = [Int32](repeating: -1, count: new.count)
    result.withUnsafeMutableBufferPointer { result in
        olds.withPointers { oh, oi, oo, od in
            news.withPointers { nh, ni, no, nd in
                func equal(_ a: Int, _ b: Int) -> Bool {
                    let la = Int(oo[a + 1] - oo[a]), lb = Int(no[b + 1] - no[b])
                    return oh[a] == nh[b] && la == lb && (la == 0 || bytesEqual(od + Int(oo[a]), nd + Int(no[b]), la))
                }
                for p in 0..<(1 << bits) {
                    let o = olds.starts[p]..<olds.starts[p + 1], n = news.starts[p]..<news.starts[p + 1]
                    guard !o.isEmpty && !n.isEmpty else { continue }
                    var table = OrdinalTable(capacity: o.count)
                    var taken = [Bool](repeating: false, count: o.count)
                    for e in o {
                        // A repeated old key keeps its first row; the others stay unmatched.
                        _ = table.insert(Int32(e - o.lowerBound), hash: oh[e]) { f in
                            let a = Int(f) + o.lowerBound
                            return oh[a] == oh[e] && oo[a + 1] - oo[a] == oo[e + 1] - oo[e]
                                && bytesEqual(od + Int(oo[a]), od + Int(oo[e]), Int(oo[e + 1] - oo[e]))
                        }
                    }
                    for e in n {
                        if let f = table.find(hash: nh[e], isEqual: { equal(Int($0) + o.lowerBound, e) }), !taken[Int(f)] {
                            taken[Int(f)] = true
                            result[Int(ni[e])] = oi[Int(f) + o.lowerBound]
                        }
                    }
                }
            }
        }
    }
    return result
}

/// Keys as one buffer of bytes with their hashes, in order.
private struct PackedKeys {
    var bytes: [UInt8] = []
    var offsets: [Int32]
    var hashes: [UInt64]

    init(_ keys: [String]) {
        offsets = [Int32](repeating: 0, count: keys.count + 1)
        hashes = [UInt64](repeating: 0, count: keys.count)
        bytes.reserveCapacity(keys.count * 24)
        for (i, key) in keys.enumerated() {
            var k = key
            k.withUTF8 { b in
                hashes[i] = hashBytes(b)
                bytes.append(contentsOf: b)
            }
            offsets[i + 1] = Int32(truncatingIfNeeded: bytes.count)
        }
    }

    /// The keys regrouped by the top `bits` of their hash, bytes included, each keeping its index.
    func partitioned(bits: Int) -> Partitions {
        let n = hashes.count, parts = 1 << bits
        func part(_ h: UInt64) -> Int { bits == 0 ? 0 : Int(h >> UInt64(64 - bits)) }
        var starts = [Int](repeating: 0, count: parts + 1)
        var byteStarts = [Int](repeating: 0, count: parts + 1)
        for i in 0..<n {
            let p = part(hashes[i])
            starts[p + 1] += 1
            byteStarts[p + 1] += Int(offsets[i + 1] - offsets[i])
        }
        for p in 0..<parts {
            starts[p + 1] += starts[p]
            byteStarts[p + 1] += byteStarts[p]
        }
        var out = Partitions(
            starts: starts, hashes: [UInt64](repeating: 0, count: n), indexes: [Int32](repeating: 0, count: n),
            offsets: [Int32](repeating: 0, count: n + 1), data: [UInt8](repeating: 0, count: bytes.count + 1))
        var next = starts, nextByte = byteStarts
        bytes.withUnsafeBufferPointer { src in
            out.data.withUnsafeMutableBufferPointer { dst in
                for i in 0..<n {
                    let p = part(hashes[i])
                    let e = next[p], b = nextByte[p]
                    let from = Int(offsets[i]), count = Int(offsets[i + 1]) - from
                    out.hashes[e] = hashes[i]
                    out.indexes[e] = Int32(truncatingIfNeeded: i)
                    out.offsets[e] = Int32(truncatingIfNeeded: b)
                    if count > 0 { (dst.baseAddress! + b).update(from: src.baseAddress! + from, count: count) }
                    next[p] = e + 1
                    nextByte[p] = b + count
                }
            }
        }
        // Partitions' bytes are contiguous, so entry e's bytes end where entry e + 1's begin.
        out.offsets[n] = Int32(truncatingIfNeeded: bytes.count)
        return out
    }
}

/// Keys grouped by hash: entries `starts[p]..<starts[p + 1]` are partition p; entry e's bytes
/// are `data[offsets[e]..<offsets[e + 1]]` (`data` ends with a spare byte, so it is never empty).
private struct Partitions {
    var starts: [Int]
    var hashes: [UInt64]
    var indexes: [Int32]
    var offsets: [Int32]
    var data: [UInt8]

    func withPointers<R>(
        _ body: (UnsafePointer<UInt64>, UnsafePointer<Int32>, UnsafePointer<Int32>, UnsafePointer<UInt8>) -> R
    ) -> R {
        hashes.withUnsafeBufferPointer { h in
            indexes.withUnsafeBufferPointer { i in
                offsets.withUnsafeBufferPointer { o in
                    data.withUnsafeBufferPointer { d in body(h.baseAddress!, i.baseAddress!, o.baseAddress!, d.baseAddress!) }
                }
            }
        }
    }
}
