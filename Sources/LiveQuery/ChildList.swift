// The children of one location in one revision, as the Realtime Database sees them.
import EngineMemory
import JSONTree

/// The children of one location in one revision, in file order; a child is named by its
/// *ordinal*, its position in this list.
///
/// Object members are children except metadata (keys starting with `.`, like `.priority`) and
/// null values; array elements are children with keys `"0"`, `"1"`, … except nulls. A missing
/// location or a leaf has no children.
///
/// Built once per revision for a million children, so it keeps only what the tape does not
/// already hold — the tape index of each child (4 bytes; 8 in an array with nulls, none in an
/// array of scalars without nulls) — in plain buffers, and
/// the next revision's list is derived from this one where the file did not change
/// (`derived(from:…)`).
final class ChildList: @unchecked Sendable {
    // @unchecked: a list's entries below `count` are written only while the list is made (`init`,
    // `derived`); a later list sharing its buffers writes past them only (`OrdinalBuffer`). So the
    // list may be shared between threads like any immutable value.

    let document: JSONDocument
    let isArray: Bool
    /// How many children; set once while the list is made.
    private(set) var count = 0
    /// Per child: the tape index of its key (objects; its value follows it) or of its value
    /// (arrays). Freed (nil) for an array of scalars without nulls, whose child `o` is tape
    /// entry `location + 2 + o`: millions of numbers need nothing per child.
    private(set) var nodes: UnsafeMutablePointer<Int32>?
    /// Per child of an array: its element index, which is its key. nil for an object, and for
    /// an array without nulls (child `o` is element `o`).
    private(set) var indexes: UnsafeMutablePointer<Int32>?
    /// The memory of `nodes` and `indexes`, which a later revision's list may share (`derived`).
    private var nodeBuffer: OrdinalBuffer?
    private var indexBuffer: OrdinalBuffer?
    /// The tape index of the location, or -1 when there is none.
    let location: Int
    /// Whether the location object has members overridden by a later duplicate key.
    private(set) var hasShadowed = false

    /// - Parameter stored: false for an array of scalars without nulls (nothing stored per child).
    private init(document: JSONDocument, isArray: Bool, capacity: Int, location: Int, stored: Bool = true) {
        self.document = document
        self.isArray = isArray
        self.location = location
        nodeBuffer = stored ? OrdinalBuffer(capacity: capacity) : nil
        indexBuffer = stored && isArray ? OrdinalBuffer(capacity: capacity) : nil
        nodes = nodeBuffer?.base
        indexes = indexBuffer?.base
    }

    /// A list that shares `old`'s buffers, which hold room for what it appends.
    private init(extending old: ChildList, document: JSONDocument, nodes: OrdinalBuffer, indexes: OrdinalBuffer?) {
        self.document = document
        isArray = old.isArray
        location = old.location
        nodeBuffer = nodes
        indexBuffer = indexes
        self.nodes = nodes.base
        self.indexes = indexes?.base
    }

    /// The buffers stop at the list's count: a later list may append past it.
    private func settle() {
        nodeBuffer?.settle(at: count)
        indexBuffer?.settle(at: count)
    }

    /// The tape index of child `o`'s key (objects) or value (arrays).
    @inline(__always) func node(_ o: Int) -> Int { nodes.map { Int($0[o]) } ?? location + 2 + o }
    /// The tape index of child `o`'s value.
    @inline(__always) func valueIndex(_ o: Int) -> Int { isArray ? node(o) : node(o) + 1 }
    /// The tape index of child `o`'s key. - Precondition: an object's child.
    @inline(__always) func keyIndex(_ o: Int) -> Int { node(o) }
    /// The element index of child `o`. - Precondition: an array's child.
    @inline(__always) func elementIndex(_ o: Int) -> Int32 { indexes.map { $0[o] } ?? Int32(truncatingIfNeeded: o) }
    /// Where child `o` starts in the file (its key; its value in an array).
    @inline(__always) func start(_ o: Int, _ tape: TapeReader) -> Int { tape.start(node(o)) }
    /// Where child `o` ends in the file (after its value).
    @inline(__always) func end(_ o: Int, _ tape: TapeReader) -> Int { tape.end(valueIndex(o)) }

    /// The children of the node at `path` in `document`; an object of `splitFrom` members or
    /// more that was parsed on two threads is read by two (`JSONDocument.memberNearMiddle`);
    /// by default none plain, and `splitEvaluationCount` tuned.
    /// - Complexity: O(number of members or elements of the location).
    convenience init(document: JSONDocument, path: Path, splitFrom: Int = splitCount(.current)) {
        guard let node = document.root.node(at: path), node.isContainer else {
            self.init(document: document, isArray: false, capacity: 0, location: -1)
            return
        }
        let (isArray, end) = document.withTapeReader { ($0.firstByte(node.index) == UInt8(ascii: "["), $0.nextIndex(node.index)) }
        let first = node.index + 2  // the first child's tape index (see `TapeReader.firstChild`)
        if isArray && document.withTapeReader({ ChildList.isOneEntryEach(first, end, $0) }) {
            // Known before anything is stored: a buffer filled and then dropped still counts at
            // the process's peak.
            self.init(document: document, isArray: true, capacity: 0, location: node.index, stored: false)
            count = end - first
            return
        }
        // An object parsed on two threads is listed by two, from the key where they met.
        let middle = isArray || (end - first) / 2 < splitFrom ? nil : document.memberNearMiddle(of: node.index)
        let room = middle.map { ChildList.room(ChildList.capacity(false, first, $0)) }
        self.init(document: document, isArray: isArray, capacity: room.map { $0 + ChildList.capacity(false, middle!, end) }
                  ?? ChildList.capacity(isArray, first, end), location: node.index)
        let (n, shadowed) = document.withTapeReader { tape in
            guard let middle, let room, middle > first, middle < end else { return append(tape, from: first, to: end, elementIndex: 0, at: 0) }
            return appendInHalves(tape, from: first, middle: middle, to: end, room: room)
        }
        count = n
        hasShadowed = shadowed
        if isArray { dropConsecutive() }
        settle()
    }

    /// Whether the elements between tape indexes `from` and `to` take one tape entry each (none
    /// is a container, which takes two) and none is null: then child `o` is tape entry `from + o`.
    private static func isOneEntryEach(_ from: Int, _ to: Int, _ tape: TapeReader) -> Bool {
        var k = from
        while k < to {
            if tape.isContainer(k) || tape.firstByte(k) == UInt8(ascii: "n") { return false }
            k += 1
        }
        return true
    }

    /// Frees an array's element indexes when no element is null (they are the ordinals).
    private func dropConsecutive() {
        // Element indexes are 0, 1, … exactly when the last child is the last element.
        guard count == 0 || Int(indexes![count - 1]) == count - 1 else { return }
        indexBuffer = nil
        indexes = nil
    }

    /// At most how many children the members (or elements) between tape indexes `from` and `to`
    /// hold: a member takes at least two tape entries, an element one.
    private static func capacity(_ isArray: Bool, _ from: Int, _ to: Int) -> Int {
        isArray ? to - from : (to - from + 1) / 2
    }

    /// Appends the children among the members (or elements) of the location that start at tape
    /// index `from` and end before `to`, writing from ordinal `at` (the buffers have room).
    /// - Returns: the count of children, and whether a member overridden by a duplicate was seen.
    private func append(_ tape: TapeReader, from: Int, to: Int, elementIndex: Int32, at: Int) -> (count: Int, shadowed: Bool) {
        let metadata = document.mayHaveMetadataKeys
        var n = at
        var shadowed = false
        var k = from
        if isArray {
            var index = elementIndex
            while k < to {
                let v = k
                k = tape.nextIndex(v)
                defer { index += 1 }
                guard !isNull(v, tape) else { continue }
                nodes![n] = Int32(truncatingIfNeeded: v)
                // (No indexes: the elements are consecutive, see `extensionBuffers`.)
                if let indexes { indexes[n] = index }
                n += 1
            }
            return (n - at, false)
        }
        while k < to {
            let key = k, v = k + 1
            k = tape.nextIndex(v)
            if tape.isShadowed(key) {
                shadowed = true
                continue
            }
            guard !isNull(v, tape) else { continue }
            // A key is metadata when its first decoded byte is "."; only an escape can hide it.
            // (Not read where the parse saw no such key: that byte is a cache miss per child.)
            if metadata {
                let first = tape.byte(at: tape.start(key) + 1)
                if first == UInt8(ascii: ".") { continue }
                if first == UInt8(ascii: "\\") && tape.withStringBytes(key, { $0.first == UInt8(ascii: ".") }) { continue }
            }
            nodes![n] = Int32(truncatingIfNeeded: key)
            n += 1
        }
        return (n - at, shadowed)
    }

    /// Room for `count` entries, rounded up to whole pages (of 4-byte entries).
    private static func room(_ count: Int) -> Int { (count + 1023) / 1024 * 1024 }

    /// Appends the members of an object that start at tape index `from` and end before `to`, by
    /// two threads: the second from `middle` (a member's key), written from entry `room` (a page
    /// boundary, past all the first half may hold), then moved down to follow the first half
    /// 2 MiB at a time, the pages each piece leaves given back at once (the list is never held
    /// twice, beyond one piece). Pieces of a huge page: giving pages back also keeps the huge
    /// pages around them small, one call per piece (a page at a time, it was 500 calls on the
    /// same huge page for a million children).
    private func appendInHalves(_ tape: TapeReader, from: Int, middle: Int, to: Int, room: Int) -> (count: Int, shadowed: Bool) {
        let second = ThreadWork { self.append(tape, from: middle, to: to, elementIndex: 0, at: room) }
        let first = append(tape, from: from, to: middle, elementIndex: 0, at: 0)
        let last = second.join()
        let end = first.count + last.count, piece = (2 << 20) / 4
        for k in stride(from: 0, to: last.count, by: piece) {
            let n = min(piece, last.count - k)
            UnsafeMutableRawPointer(nodes! + first.count + k).copyMemory(from: nodes! + room + k, byteCount: n * 4)
            // (Entries before `end` are the list's own.)
            nodeBuffer!.discardPages(max(end, room + k)..<max(end, room + k + n))
        }
        return (end, first.shadowed || last.shadowed)
    }

    /// Whether node `v` is null. A container is known from its tape entry alone: a million
    /// objects are told from null without reading a byte of the file for each.
    @inline(__always)
    private func isNull(_ v: Int, _ tape: TapeReader) -> Bool {
        !tape.isContainer(v) && tape.firstByte(v) == UInt8(ascii: "n")
    }

    /// The children of the same location in a newer revision, made from `old`'s where the file
    /// is unchanged: children that end before the first differing byte are copied as they are,
    /// children in the common trailing bytes are copied shifted, and only the members in
    /// between are read from the new document.
    ///
    /// A member starting at the same distance from the end of both files, inside their common
    /// trailing bytes, is the same member with the same subtree: from there to the end both
    /// files hold the same bytes and the parser reads them the same way. A copied leading child
    /// could only be wrong if a key new in the middle overrides it (the later duplicate wins):
    /// when the middle has new keys, the leading children's keys are checked for that.
    /// - Parameters:
    ///   - commonPrefix, commonSuffix: how many leading and trailing bytes the two files share
    ///     (not overlapping).
    /// - Returns: the list, and how many leading (`prefix`) and trailing (`suffix`) children are
    ///   the same children as in `old`, unchanged; nil when the location moved or changed kind,
    ///   or duplicate keys are involved — then read the whole location.
    /// - Complexity: O(n) copying and O(m) reading for m members between the common ends (and
    ///   O(leading children) flag reads when the middle has new keys).
    static func derived(
        from old: ChildList, document: JSONDocument, path: Path, commonPrefix cp: Int, commonSuffix cs: Int
    ) -> (list: ChildList, prefix: Int, suffix: Int)? {
        guard old.location >= 0, !old.hasShadowed,
            let node = document.root.node(at: path), node.index == old.location
        else { return nil }
        return old.document.withTapeReader { ot in
            document.withTapeReader { nt -> (list: ChildList, prefix: Int, suffix: Int)? in
                // The location opens at the same place, with the same bracket, in the shared prefix.
                guard ot.start(old.location) == nt.start(node.index), nt.start(node.index) < cp,
                    ot.firstByte(old.location) == nt.firstByte(node.index)
                else { return nil }
                let nOld = old.count
                // Leading children: those ending strictly before the first differing byte (so even
                // a number's extent is the same).
                var lo = 0, hi = nOld
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if old.end(mid, ot) < cp { lo = mid + 1 } else { hi = mid }
                }
                // A child ending exactly there is unchanged too unless the new byte there could
                // continue it: only a number (or literal) can grow at its end. (A log's last
                // record, followed by the next one's comma.)
                if lo < nOld && old.end(lo, ot) == cp && cp < nt.byteCount && endsValue(nt.byte(at: cp))
                    && old.end(lo, ot) == nt.end(old.valueIndex(lo))
                {
                    lo += 1
                }
                let prefix = lo
                // Where the members after the prefix start, in both tapes (the same index: the
                // tapes agree up to the prefix).
                let first = prefix > 0 ? ot.nextIndex(old.valueIndex(prefix - 1)) : ot.firstChild(old.location)
                let firstElement: Int32 = prefix > 0 && old.isArray ? old.elementIndex(prefix - 1) + 1 : 0
                let newEnd = nt.nextIndex(node.index)
                let byteShift = nt.byteCount - ot.byteCount
                let suffixStart = nt.byteCount - cs
                // Walk the new members until one is an old child at the same distance from the end.
                var k = first
                var anchor = nOld  // the first old child of the suffix
                var anchorTape = newEnd
                var anchorElement: Int32 = 0
                var element = firstElement
                while k < newEnd {
                    let start = nt.start(k)
                    let value = old.isArray ? k : k + 1
                    if start >= suffixStart {
                        // Binary search the old child starting at the same distance from the end.
                        var a = prefix, b = nOld
                        let target = start - byteShift
                        while a < b {
                            let mid = (a + b) / 2
                            if old.start(mid, ot) < target { a = mid + 1 } else { b = mid }
                        }
                        if a < nOld && old.start(a, ot) == target && old.end(a, ot) + byteShift == nt.end(value) {
                            anchor = a
                            anchorTape = k
                            anchorElement = element
                            break
                        }
                    }
                    k = nt.nextIndex(value)
                    element += 1
                }
                let suffix = nOld - anchor
                let middleCapacity = ChildList.capacity(old.isArray, first, anchorTape)
                let tapeShift = suffix > 0 ? anchorTape - old.node(anchor) : 0
                let list: ChildList
                var middle: (count: Int, shadowed: Bool)?
                if suffix == 0 && prefix == nOld,
                    let shared = old.extensionBuffers(by: middleCapacity, addsNull: old.isArray && ChildList.holdsNull(nt, first, anchorTape))
                {
                    // Children only added at the end (a log that grew): the old list's buffers
                    // are this one's too, and it writes past their end (O(added), not O(children)).
                    list = ChildList(extending: old, document: document, nodes: shared.nodes, indexes: shared.indexes)
                } else if let same = ChildList.sameOrdinals(as: old, document: document, nt, from: first, to: anchorTape,
                                                            replacing: prefix..<anchor, tapeShift: tapeShift, capacity: middleCapacity)
                {
                    // Every child at its old tape index: the old list's buffers, as they are.
                    (list, middle) = (same.list, same.middle)
                } else {
                    // Room for a quarter more when children were only added at the end: a growing
                    // log's next lists then share this one's buffers (see above).
                    let needed = prefix + middleCapacity + suffix
                    let room = suffix == 0 && prefix == nOld ? needed / 4 : 0
                    list = ChildList(document: document, isArray: old.isArray, capacity: needed + room, location: node.index)
                    // Copy the prefix; the middle is read, the suffix copied shifted, below.
                    if let nodes = old.nodes {
                        list.nodes!.update(from: nodes, count: prefix)
                    } else {
                        for i in 0..<prefix { list.nodes![i] = Int32(truncatingIfNeeded: old.node(i)) }
                    }
                    if old.isArray { for i in 0..<prefix { list.indexes![i] = old.elementIndex(i) } }
                }
                let copied = middle == nil
                let read = middle ?? list.append(nt, from: first, to: anchorTape, elementIndex: firstElement, at: prefix)
                let at = prefix + read.count
                if suffix > 0 && copied {
                    if let oldNodes = old.nodes {
                        // A copy, or a loop the compiler vectorises: a million children's
                        // suffix copied child by child was 1.6 ms of an edit
                        // (docs/engine/follower-profile.md).
                        let shift = Int32(truncatingIfNeeded: tapeShift)
                        ChildList.shiftCopy(oldNodes + anchor, to: list.nodes! + at, count: suffix, by: shift)
                    } else {
                        for i in 0..<suffix { list.nodes![at + i] = Int32(truncatingIfNeeded: old.node(anchor + i) + tapeShift) }
                    }
                    if old.isArray {
                        let elementShift = anchorElement - old.elementIndex(anchor)
                        if let oldIndexes = old.indexes {
                            ChildList.shiftCopy(oldIndexes + anchor, to: list.indexes! + at, count: suffix, by: elementShift)
                        } else {
                            for i in 0..<suffix { list.indexes![at + i] = old.elementIndex(anchor + i) &+ elementShift }
                        }
                    }
                }
                // A copied leading child is wrong if a key new in the middle overrides it (a later
                // duplicate wins); its flag says so. Only a new key can: the old file had no
                // duplicates, and the suffix holds old keys. So the flags alone decide, and the
                // middle's keys need no hashing (a watched command's every run has a long middle).
                // Where the leading children lie before the bytes a re-parse in place parsed
                // anew, their flags are the old ones: none is set.
                let leadingKept = document.reparsedBytes(since: old.document).map { prefix == 0 || old.end(prefix - 1, ot) <= $0.lowerBound }
                if !old.isArray && read.count > 0 && leadingKept != true
                    && !keysAreOld(of: list, nt, at: prefix, count: read.count, in: old, ot, from: prefix, to: anchor)
                    && (0..<prefix).contains(where: { nt.isShadowed(list.keyIndex($0)) })
                {
                    return nil
                }
                list.hasShadowed = read.shadowed
                list.count = at + suffix
                // (Buffers shared as they are keep their claim: a list extending the old one may
                // have written past its end.)
                if copied { list.settle() }
                let sameKeys = !old.isArray || anchor == nOld || anchorElement == old.elementIndex(anchor)
                return (list, prefix, sameKeys ? suffix : 0)
            }
        }
    }

    /// A list sharing `old`'s buffers as they are, when an object's children in `document` are
    /// `old`'s at the same tape indexes: the middle read anew (the members between tape indexes
    /// `from` and `to`) holds the children of `replaced` at their old indexes, and the suffix
    /// moved by no entry (`tapeShift`). An edit that keeps every member's entry count — a value
    /// rewritten, a number one digit longer — changes no ordinal, and a million children's copy
    /// is skipped. Tried only for a middle of at most 8,192 tape entries (a mismatch reads it
    /// twice), and for a buffer that is a mapping no larger than twice the list (a first list's,
    /// sized for as many children as its entries could hold, is replaced by one of its size): a
    /// block from malloc (plain under 8 MiB, tuned under 1 MiB) is copied into the space glibc's
    /// arena freed, where kept it would sit beside that space (plain's held memory rose 1–3 %).
    /// nil otherwise.
    /// - Returns: the list (its count not yet set) and what reading the middle found.
    private static func sameOrdinals(as old: ChildList, document: JSONDocument, _ nt: TapeReader, from: Int, to: Int,
                                     replacing replaced: Range<Int>, tapeShift: Int, capacity: Int)
        -> (list: ChildList, middle: (count: Int, shadowed: Bool))?
    {
        guard !old.isArray, tapeShift == 0, capacity <= 4096, let buffer = old.nodeBuffer, buffer.isMapped,
              buffer.capacity <= 2 * old.count, let oldNodes = old.nodes
        else { return nil }
        let probe = ChildList(document: document, isArray: false, capacity: capacity, location: old.location)
        let middle = probe.append(nt, from: from, to: to, elementIndex: 0, at: 0)
        guard middle.count == replaced.count,
              (0..<middle.count).allSatisfy({ probe.nodes![$0] == oldNodes[replaced.lowerBound + $0] })
        else { return nil }
        return (ChildList(extending: old, document: document, nodes: buffer, indexes: nil), middle)
    }

    /// Whether each of the `count` keys of `list` from child `at` (the middle a derived list
    /// read anew) is, byte for byte, the key of one of `old`'s children `from..<to` (the
    /// middle it replaced): then the middle has no new key, and so shadows no leading child
    /// (the old object had no duplicate). A few keys only (an edit's); else false, and the
    /// leading children's flags decide — reading them for a million children was a fifth of an
    /// edit's time (docs/engine/follower-profile.md).
    private static func keysAreOld(of list: ChildList, _ nt: TapeReader, at: Int, count: Int, in old: ChildList, _ ot: TapeReader,
                                   from: Int, to: Int) -> Bool {
        guard count <= 8, to - from <= 8 else { return false }
        return (at..<at + count).allSatisfy { o in
            let k = list.keyIndex(o), key = nt.start(k)..<nt.end(k)
            return (from..<to).contains { p in
                let q = old.keyIndex(p)
                return ot.end(q) - ot.start(q) == key.count && nt.sameBytes(key, as: ot, from: ot.start(q))
            }
        }
    }

    /// `count` numbers from `source` into `target`, each plus `shift` (wrapping: they are tape or
    /// element indexes, which fit); a copy when `shift` is 0.
    private static func shiftCopy(_ source: UnsafePointer<Int32>, to target: UnsafeMutablePointer<Int32>, count: Int, by shift: Int32) {
        if shift == 0 { return target.update(from: source, count: count) }
        for i in 0..<count { target[i] = source[i] &+ shift }
    }

    /// Whether an element between tape indexes `from` and `to` is null.
    private static func holdsNull(_ tape: TapeReader, _ from: Int, _ to: Int) -> Bool {
        var k = from
        while k < to {
            if tape.firstByte(k) == UInt8(ascii: "n") { return true }
            k = tape.nextIndex(k)
        }
        return false
    }

    /// Buffers holding this list's children with room for `n` more after them, which no other
    /// list reads: this list's own when they have the room and no later list claimed it, else
    /// copies twice as large (so a list that grows a child at a time copies O(1) per child,
    /// amortised). nil when the list stores no per-child numbers (then nothing is shared).
    ///
    /// An array whose elements are consecutive keeps no indexes, nor does its extension when the
    /// elements added hold no null (`addsNull` false).
    private func extensionBuffers(by n: Int, addsNull: Bool) -> (nodes: OrdinalBuffer, indexes: OrdinalBuffer?)? {
        guard let nodeBuffer, !isArray || indexBuffer != nil || !addsNull else { return nil }
        if nodeBuffer.extend(from: count, by: n) {
            if let indexBuffer, !indexBuffer.extend(from: count, by: n) {
                nodeBuffer.settle(at: count)
                return nil
            }
            return (nodeBuffer, indexBuffer)
        }
        return (nodeBuffer.grown(keeping: count, room: n), indexBuffer?.grown(keeping: count, room: n))
    }

    /// The value of child `ordinal`.
    func value(_ ordinal: Int) -> JSONNode { JSONNode(document: document, index: valueIndex(ordinal)) }

    /// The key of child `ordinal`.
    func key(_ ordinal: Int) -> String {
        if isArray { return String(elementIndex(ordinal)) }
        return JSONNode(document: document, index: keyIndex(ordinal)).stringValue!
    }

    /// Calls `body` with the UTF-8 bytes of the key of child `ordinal`.
    func withKeyBytes<R>(_ ordinal: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if isArray {
            var digits = String(elementIndex(ordinal))
            return try digits.withUTF8(body)
        }
        return try JSONNode(document: document, index: keyIndex(ordinal)).withStringBytes(body)
    }

    /// The key of child `ordinal` for comparisons, reading from `tape` (this list's document);
    /// an escaped key is decoded into `arena`.
    func keyRef(_ ordinal: Int, _ tape: TapeReader, _ arena: ByteArena) -> KeyRef {
        if isArray { return KeyRef(arrayIndex: Int(elementIndex(ordinal))) }
        return KeyRef(tape.stringBytes(keyIndex(ordinal), arena: arena))
    }

    /// Whether children `a` of this list and `b` of `other` have the same key (code units).
    func sameKey(_ a: Int, _ tape: TapeReader, _ b: Int, of other: ChildList, _ otherTape: TapeReader) -> Bool {
        if isArray || other.isArray {
            return isArray && other.isArray && elementIndex(a) == other.elementIndex(b)
        }
        let ka = keyIndex(a), kb = other.keyIndex(b)
        if !tape.hasEscapes(ka) && !otherTape.hasEscapes(kb) {
            let a = tape.start(ka)..<tape.end(ka)
            return a.count == otherTape.end(kb) - otherTape.start(kb) && tape.sameBytes(a, as: otherTape, from: otherTape.start(kb))
        }
        return tape.withStringBytes(ka) { x in otherTape.withStringBytes(kb) { y in x.elementsEqual(y) } }
    }

    /// Whether objects' children `a` of this list and `b` of `other` are the same bytes, from the
    /// key to the end of the value (then the same key with the same value).
    @inline(__always)
    func sameBytes(_ a: Int, _ tape: TapeReader, _ b: Int, of other: ChildList, _ otherTape: TapeReader) -> Bool {
        let ra = start(a, tape)..<end(a, tape), sb = other.start(b, otherTape)
        return ra.count == other.end(b, otherTape) - sb && tape.sameBytes(ra, as: otherTape, from: sb)
    }

    /// Whether children `a` of this list and `b` of `other` have equal values: identical bytes, or
    /// equal as JSON (numbers by value, objects in any order).
    func sameValue(_ a: Int, _ tape: TapeReader, _ b: Int, of other: ChildList, _ otherTape: TapeReader) -> Bool {
        let va = valueIndex(a), vb = other.valueIndex(b)
        let ra = tape.start(va)..<tape.end(va)
        if ra.count == otherTape.end(vb) - otherTape.start(vb) && tape.sameBytes(ra, as: otherTape, from: otherTape.start(vb)) {
            return true
        }
        return value(a).valueEquals(other.value(b))
    }
}

/// Whether `byte`, right after a value, ends it (no number or literal goes on through it).
private func endsValue(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") || byte == 0x20 || byte == 0x0A
        || byte == 0x0D || byte == 0x09
}

/// Per-child numbers of `ChildList`s: a list's own, or shared by the lists of later revisions
/// that only added children at the end or whose children kept their tape indexes, each reading
/// its first `count` entries while the newest writes past them. `claimed` is how far some list
/// reads or writes.
final class OrdinalBuffer: @unchecked Sendable {
    // @unchecked: entries below `claimed` are never written again; `claimed` is behind a lock.
    let base: UnsafeMutablePointer<Int32>
    let capacity: Int
    private let claimed: Locked<Int>
    /// A list of a million children takes 4 MB each revision. From malloc, glibc's moving
    /// threshold for mapping put those in its heaps after the first few, which kept what one
    /// freed around the next: the viewer following edits grew by 4–15 MB now and then. Mapped
    /// (huge pages) and given back or kept as a spare, tuned, the resident size stays flat.
    private let memory: RecycledMemory<Int32>

    init(capacity: Int) {
        memory = RecycledMemory(capacity: max(capacity, 1), mappedFrom: 1 << 20)
        self.capacity = memory.capacity
        base = memory.base
        claimed = Locked(self.capacity)
    }

    // A buffer whose room went mostly unused is no spare for the next list of its size: a first
    // list's, sized for as many children as the bytes could hold (28 MB for a million), was
    // kept for good, up to 15 MB of it resident, while each later list took a fresh 4 MB.
    deinit {
        if claimed.withLock({ $0 }) * 2 < capacity { memory.release() } else { memory.releaseKeepingSpare() }
    }

    /// Gives back the pages that lie wholly within entries `range`.
    func discardPages(_ range: Range<Int>) { memory.discardPages(range) }

    /// Whether the buffer is a mapping of its own (else from malloc).
    var isMapped: Bool { memory.isMapped }

    /// Claims entries `from..<from + n` for a list that extends one of `from` entries: true when
    /// no list claimed past `from` and they fit.
    func extend(from: Int, by n: Int) -> Bool {
        claimed.withLock { claimed in
            guard claimed == from, from + n <= capacity else { return false }
            claimed = from + n
            return true
        }
    }

    /// After the list that claimed entries wrote `count` of them.
    func settle(at count: Int) {
        claimed.withLock { $0 = count }
    }

    /// A buffer with this one's first `count` entries and room for `n` more, claimed.
    func grown(keeping count: Int, room n: Int) -> OrdinalBuffer {
        let bigger = OrdinalBuffer(capacity: max(capacity * 2, count + n))
        bigger.base.update(from: base, count: count)
        return bigger
    }
}
