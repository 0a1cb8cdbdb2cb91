// A batch between two arrays of keys, for lists that are not query windows.

extension BatchDiff {
    /// The batch that turns rows keyed `old` into rows keyed `new`, matching rows by the exact
    /// code units of their keys (so `"é"` and `"e\u{301}"` are two rows).
    /// - Parameters:
    ///   - old, new: the rows' keys; each array's keys are distinct.
    ///   - isChanged: whether the row kept at old index `old` and new index `new` changed value
    ///     (it is reloaded); nil when no row changed.
    /// - Complexity: O(n) hashing, plus O(n log n) at worst for the moves.
    public init(from old: [String], to new: [String], isChanged: ((_ old: Int, _ new: Int) -> Bool)? = nil) {
        var table = OrdinalTable(capacity: old.count)
        for (i, key) in old.enumerated() {
            var k = key
            let h = k.withUTF8 { hashBytes($0) }
            _ = table.insert(Int32(i), hash: h) { codeUnitsEqualBytes(old[Int($0)], key) }
        }
        var oldIndexOfNew = [Int32](repeating: -1, count: new.count)
        var taken = [Bool](repeating: false, count: old.count)
        for (j, key) in new.enumerated() {
            var k = key
            let h = k.withUTF8 { hashBytes($0) }
            if let i = table.find(hash: h, isEqual: { codeUnitsEqualBytes(old[Int($0)], key) }), !taken[Int(i)] {
                taken[Int(i)] = true
                oldIndexOfNew[j] = i
            }
        }
        self.init(
            oldCount: old.count, oldIndexOfNew: oldIndexOfNew,
            changed: { j in isChanged?(Int(oldIndexOfNew[j]), j) ?? false }, key: { new[$0] })
    }
}
