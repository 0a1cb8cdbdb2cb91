// Which child of one revision is which child of the next, and which of them changed.
import JSONTree

/// The children of a location in two revisions, paired by key, each pair marked changed or not.
///
/// An edit to a file usually touches a few bytes. Children whose bytes lie entirely in the
/// documents' common leading bytes (at the same offsets) or common trailing bytes (at the same
/// distance from the end) are the same key with the same value, so they pair up in O(1) each
/// without reading a key: the first `prefix` ordinals of both lists, and the last `suffix`.
/// Only the *middle* between them is paired by key (in file order where it still agrees, by a
/// hash table otherwise) and compared by value (`JSONNode.valueEquals`: formatting is not a change).
struct ChildMatch {
    let old: ChildList
    let new: ChildList
    /// `old[0..<prefix]` and `new[0..<prefix]` are the same children, unchanged.
    let prefix: Int
    /// The last `suffix` children of both lists are the same children, unchanged.
    let suffix: Int
    /// For old ordinals `prefix..<old.count - suffix`: the new ordinal, or -1 when removed.
    private let oldMiddle: [Int32]
    /// For new ordinals `prefix..<new.count - suffix`: the old ordinal, or -1 when added.
    private let newMiddle: [Int32]
    /// For new ordinals in the middle: paired, and the value differs.
    private let changedMiddle: [Bool]
    /// New ordinals that were added or whose value changed, ascending.
    let dirty: [Int32]
    /// How many old children have no new counterpart.
    let removedCount: Int

    /// Whether nothing changed: the same children with the same values at the same ordinals.
    let isIdentity: Bool

    /// - Complexity: O(n) integer work over the two lists plus O(bytes in common) at memory speed,
    ///   and O(m) key reads and hashes for the m children in the middle.
    init(old: ChildList, new: ChildList) {
        self.init(old: old, new: new, known: nil)
    }

    /// Pairs children where the first `prefix` and last `suffix` of both lists are already known
    /// to be the same children, unchanged (see `ChildList.derived`); only the middle is read.
    init(old: ChildList, new: ChildList, prefix: Int, suffix: Int) {
        self.init(old: old, new: new, known: (prefix, suffix))
    }

    private init(old: ChildList, new: ChildList, known: (prefix: Int, suffix: Int)?) {
        self.old = old
        self.new = new
        let nOld = old.count, nNew = new.count
        let (ends, middle) = old.document.withTapeReader { ot in
            new.document.withTapeReader { nt in
                let sameDocument = old.document === new.document
                let ends = known ?? ChildMatch.commonEnds(old, ot, new, nt, sameDocument: sameDocument)
                var middle = MiddlePairs(prefix: ends.prefix, oldEnd: nOld - ends.suffix, newEnd: nNew - ends.suffix)
                if old.isArray && new.isArray {
                    middle.pairElements(old, ot, new, nt)
                } else if !old.isArray && !new.isArray {
                    middle.pairMembers(old, ot, new, nt)
                }
                return (ends, middle)
            }
        }
        prefix = ends.prefix
        suffix = ends.suffix
        oldMiddle = middle.oldMiddle
        newMiddle = middle.newMiddle
        changedMiddle = middle.changed
        var dirty = [Int32]()
        for (k, o) in newMiddle.enumerated() where o < 0 || changedMiddle[k] { dirty.append(Int32(prefix + k)) }
        self.dirty = dirty
        removedCount = oldMiddle.reduce(0) { $0 + ($1 < 0 ? 1 : 0) }
        var identity = dirty.isEmpty && removedCount == 0 && nOld == nNew
        if identity {
            for (k, n) in oldMiddle.enumerated() where Int(n) != prefix + k {
                identity = false
                break
            }
        }
        isIdentity = identity
    }

    /// How many leading and trailing children of two lists are the same children, unchanged:
    /// at the same offsets inside the files' common leading bytes, or at the same distance from
    /// the end inside their common trailing bytes (a child with the same bytes in both is the
    /// same key with the same value).
    /// - Complexity: O(bytes in common) at memory speed, O(n) integer compares.
    static func commonEnds(_ old: ChildList, _ ot: TapeReader, _ new: ChildList, _ nt: TapeReader, sameDocument: Bool) -> (prefix: Int, suffix: Int) {
        let nOld = old.count, nNew = new.count
        var prefix = 0, suffix = 0
        let (cp, cs) = sameDocument ? (ot.byteCount, 0) : old.document.bytes.sharedEnds(with: new.document.bytes)
        let both = min(nOld, nNew)
        // Leading children: same offsets, ending inside the common prefix.
        while prefix < both && old.isArray == new.isArray && old.start(prefix, ot) == new.start(prefix, nt)
            && old.end(prefix, ot) == new.end(prefix, nt) && old.end(prefix, ot) <= cp
            && (!old.isArray || old.elementIndex(prefix) == new.elementIndex(prefix))
        {
            prefix += 1
        }
        // Trailing children: same distance from the end, starting inside the common suffix.
        let delta = nt.byteCount - ot.byteCount
        let suffixStart = nt.byteCount - cs
        while suffix < both - prefix {
            let o = nOld - 1 - suffix, n = nNew - 1 - suffix
            guard old.isArray == new.isArray, new.start(n, nt) >= suffixStart, old.start(o, ot) + delta == new.start(n, nt),
                old.end(o, ot) + delta == new.end(n, nt), !old.isArray || old.elementIndex(o) == new.elementIndex(n)
            else { break }
            suffix += 1
        }
        return (prefix, suffix)
    }

    /// The new ordinal of old child `o`, or -1 when it was removed.
    @inline(__always)
    func newOrdinal(ofOld o: Int) -> Int {
        if o < prefix { return o }
        if o >= old.count - suffix { return o - old.count + new.count }
        return Int(oldMiddle[o - prefix])
    }

    /// The old ordinal of new child `n`, or -1 when it was added.
    @inline(__always)
    func oldOrdinal(ofNew n: Int) -> Int {
        if n < prefix { return n }
        if n >= new.count - suffix { return n - new.count + old.count }
        return Int(newMiddle[n - prefix])
    }

    /// Whether new child `n` was there before with a different value.
    @inline(__always)
    func isChanged(new n: Int) -> Bool {
        if n < prefix || n >= new.count - suffix { return false }
        return changedMiddle[n - prefix]
    }
}

/// The pairs of two lists' children between their common ends, as `ChildMatch` stores them.
/// Filled through this struct's own arrays, not arrays a nested function captures: the loops
/// below run once per child of a watched command's every run.
private struct MiddlePairs {
    let prefix: Int, oldEnd: Int, newEnd: Int
    /// For old ordinals `prefix..<oldEnd`: the new ordinal, or -1 when removed.
    var oldMiddle: [Int32]
    /// For new ordinals `prefix..<newEnd`: the old ordinal, or -1 when added.
    var newMiddle: [Int32]
    /// For new ordinals `prefix..<newEnd`: paired, and the value differs.
    var changed: [Bool]

    init(prefix: Int, oldEnd: Int, newEnd: Int) {
        (self.prefix, self.oldEnd, self.newEnd) = (prefix, oldEnd, newEnd)
        oldMiddle = [Int32](repeating: -1, count: oldEnd - prefix)
        newMiddle = [Int32](repeating: -1, count: newEnd - prefix)
        changed = [Bool](repeating: false, count: newEnd - prefix)
    }

    @inline(__always)
    private mutating func pair(_ o: Int, _ n: Int, changed isChanged: Bool) {
        oldMiddle[o - prefix] = Int32(n)
        newMiddle[n - prefix] = Int32(o)
        changed[n - prefix] = isChanged
    }

    /// Pairs old child `o` with new child `n` when they have the same key; false otherwise.
    /// Most children of a run are byte for byte the same, key and value: one comparison.
    @inline(__always)
    private mutating func pairInOrder(_ o: Int, _ n: Int, _ old: ChildList, _ ot: TapeReader, _ new: ChildList, _ nt: TapeReader) -> Bool {
        if old.sameBytes(o, ot, n, of: new, nt) {
            pair(o, n, changed: false)
        } else if old.sameKey(o, ot, n, of: new, nt) {
            pair(o, n, changed: !old.sameValue(o, ot, n, of: new, nt))
        } else {
            return false
        }
        return true
    }

    /// Array keys are element indexes, ascending in both lists: a merge.
    mutating func pairElements(_ old: ChildList, _ ot: TapeReader, _ new: ChildList, _ nt: TapeReader) {
        var i = prefix, j = prefix
        while i < oldEnd && j < newEnd {
            let a = old.elementIndex(i), b = new.elementIndex(j)
            if a == b {
                pair(i, j, changed: !old.sameValue(i, ot, j, of: new, nt))
                i += 1
                j += 1
            } else if a < b {
                i += 1
            } else {
                j += 1
            }
        }
    }

    /// Where file order still agrees (from both ends), pairs in order; hashes the rest.
    mutating func pairMembers(_ old: ChildList, _ ot: TapeReader, _ new: ChildList, _ nt: TapeReader) {
        var i = prefix, j = prefix, oe = oldEnd, ne = newEnd
        while i < oe && j < ne && pairInOrder(i, j, old, ot, new, nt) {
            i += 1
            j += 1
        }
        while oe > i && ne > j && pairInOrder(oe - 1, ne - 1, old, ot, new, nt) {
            oe -= 1
            ne -= 1
        }
        guard i < oe && j < ne else { return }
        var table = OrdinalTable(capacity: oe - i)
        for o in i..<oe {
            _ = table.insert(Int32(o), hash: ot.withStringBytes(old.keyIndex(o)) { hashBytes($0) }) { _ in false }
        }
        for n in j..<ne {
            let h = nt.withStringBytes(new.keyIndex(n)) { hashBytes($0) }
            if let o = table.find(hash: h, isEqual: { old.sameKey(Int($0), ot, n, of: new, nt) }) {
                pair(Int(o), n, changed: !old.sameValue(Int(o), ot, n, of: new, nt))
            }
        }
    }
}
