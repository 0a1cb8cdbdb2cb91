// A batch between two arrays of keys, for lists that are not query windows.
import JSONTree

extension BatchDiff {
    /// The batch that turns rows keyed `old` into rows keyed `new`, matching rows by the exact
    /// code units of their keys (so `"é"` and `"e\u{301}"` are two rows).
    /// - Parameters:
    ///   - old, new: the rows' keys; each array's keys are distinct.
    ///   - isChanged: whether the row kept at old index `old` and new index `new` changed value
    ///     (it is reloaded); nil when no row changed.
    /// - Complexity: O(n) hashing, plus O(n log n) at worst for the moves.
    public init(from old: [String], to new: [String], isChanged: ((_ old: Int, _ new: Int) -> Bool)? = nil) {
        // The old keys' bytes in one buffer, so probes compare memory rather than Strings.
        var bytes = [UInt8]()
        bytes.reserveCapacity(old.count * 24)
        var offsets = [Int](repeating: 0, count: old.count + 1)
        for (i, key) in old.enumerated() {
            var k = key
            k.withUTF8 { bytes.append(contentsOf: $0) }
            offsets[i + 1] = bytes.count
        }
        var oldIndexOfNew = [Int32](repeating: -1, count: new.count)
        bytes.withUnsafeBufferPointer { b in
            offsets.withUnsafeBufferPointer { o in
                func oldKey(_ i: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: b[o[i]..<o[i + 1]]) }
                func equal(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
                    x.count == y.count && (x.isEmpty || bytesEqual(x.baseAddress!, y.baseAddress!, x.count))
                }
                var table = OrdinalTable(capacity: old.count)
                // A repeated old key stays unmatched (deleted); only its first row can be kept.
                for i in 0..<old.count {
                    let key = oldKey(i)
                    _ = table.insert(Int32(i), hash: hashBytes(key)) { equal(oldKey(Int($0)), key) }
                }
                var taken = [Bool](repeating: false, count: old.count)
                for (j, key) in new.enumerated() {
                    var k = key
                    k.withUTF8 { key in
                        if let i = table.find(hash: hashBytes(key), isEqual: { equal(oldKey(Int($0)), key) }), !taken[Int(i)] {
                            taken[Int(i)] = true
                            oldIndexOfNew[j] = i
                        }
                    }
                }
            }
        }
        var changed = [Bool](repeating: false, count: new.count)
        if let isChanged {
            for j in 0..<new.count where oldIndexOfNew[j] >= 0 { changed[j] = isChanged(Int(oldIndexOfNew[j]), j) }
        }
        self.init(oldCount: old.count, oldIndexOfNew: oldIndexOfNew, changed: changed, key: { new[$0] })
    }
}
