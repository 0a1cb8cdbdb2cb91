// Reading a document's nodes by tape index, without a `JSONNode` per node.

/// A read-only view of a document's bytes and tape, valid only inside `JSONDocument.withTapeReader`.
///
/// For code that walks very large documents: the query engine visits a million children per
/// revision, and a `JSONNode` per visit would retain and release the document each time.
/// A node is named by its tape index, the same number as `JSONNode.index`.
///
/// ```swift
/// doc.withTapeReader { tape in
///     tape.forEachMember(of: 0) { key, value in
///         if tape.kind(value) == .number { total += tape.number(value) }
///     }
/// }
/// ```
public struct TapeReader {
    /// The document's bytes when they are one buffer, else empty and `bytePieces` holds them
    /// (`DocumentBytes.pieces`). Read only through `byte(at:)`, `address(of:)`, `withBytes`,
    /// `sameBytes` and the node readers, which take either.
    @usableFromInline let buffer: UnsafeBufferPointer<UInt8>
    /// Not retained (a reader is copied into every call that takes one): `withTapeReader` keeps
    /// the pieces alive.
    @usableFromInline unowned(unsafe) let bytePieces: BytePieces?
    /// How many bytes the document has.
    public let byteCount: Int
    /// The tape's entries, as `TapeStorage` reads them: the first `headCount` from `head`, the
    /// rest from `pieces`.
    @usableFromInline let head: UnsafePointer<TapeEntry>
    @usableFromInline let headCount: Int
    @usableFromInline let pieces: TapePieces
    @usableFromInline let entryCount: Int
    /// The root's next index and end, which are the document's own (see `TapeStorage`).
    @usableFromInline let rootNext: Int
    @usableFromInline let rootEnd: Int

    @inlinable
    init(bytes: UnsafeBufferPointer<UInt8>, bytePieces: BytePieces? = nil, tape: TapeStorage) {
        buffer = bytes
        self.bytePieces = bytePieces
        byteCount = bytePieces?.count ?? bytes.count
        head = tape.head
        headCount = tape.headCount
        pieces = tape.pieces
        entryCount = tape.count
        rootNext = tape.rootNext
        rootEnd = tape.rootEnd
    }

    /// The byte at `offset`.
    @inlinable
    public func byte(at offset: Int) -> UInt8 {
        guard let bytePieces else { return buffer[offset] }
        return bytePieces.address(of: offset).pointee
    }

    /// Where byte `offset` lies: bytes up to the end of its token lie after it.
    @inlinable
    func address(of offset: Int) -> UnsafePointer<UInt8> {
        guard let bytePieces else {
            assert(offset >= 0 && offset < buffer.count, "byte index out of range")
            return buffer.baseAddress! + offset
        }
        return bytePieces.address(of: offset)
    }

    /// Calls `body` with the bytes in `range`, read in place (copied only where they are pieces
    /// and it crosses from one to the next: never within a token); the pointer must not escape
    /// the call.
    @inlinable
    public func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard let bytePieces else { return try body(UnsafeBufferPointer(rebasing: buffer[range])) }
        return try bytePieces.withBytes(range, body)
    }

    /// The bytes between the quotes of string node `i`, which has no escapes (`hasEscapes`), in
    /// place: unlike other pointers into the bytes, valid for as long as the document lives
    /// (its bytes never move), not only inside the reader's call.
    @inlinable
    public func unescapedStringBytes(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        assert(!hasEscapes(i), "a string with escapes read in place")
        let s = start(i), e = end(i)
        return UnsafeBufferPointer(start: address(of: s) + 1, count: e - s - 2)
    }

    /// Whether the bytes in `range` are `other`'s bytes from `otherStart` on.
    @inlinable
    public func sameBytes(_ range: Range<Int>, as other: TapeReader, from otherStart: Int) -> Bool {
        precondition(range.lowerBound >= 0 && range.upperBound <= byteCount && otherStart >= 0
                         && otherStart + range.count <= other.byteCount, "byte range out of range")
        guard !range.isEmpty else { return true }
        guard bytePieces == nil && other.bytePieces == nil else {
            return withBytes(range) { a in other.withBytes(otherStart..<otherStart + range.count) { b in bytesEqual(a.baseAddress!, b.baseAddress!, a.count) } }
        }
        return bytesEqual(buffer.baseAddress! + range.lowerBound, other.buffer.baseAddress! + otherStart, range.count)
    }

    /// Number of entries on the tape (a node's, and a container's second; see `TapeEntry`).
    @inlinable public var count: Int { entryCount }

    @inlinable func entry(_ i: Int) -> TapeEntry {
        assert(i >= 0 && i < entryCount, "tape index out of range")
        return i < headCount ? head[i] : pieces.entry(i)
    }

    /// Byte offset where node `i` starts (a string's opening quote).
    @inlinable public func start(_ i: Int) -> Int { Int(entry(i).start) }
    /// Byte offset just after node `i`.
    @inlinable
    public func end(_ i: Int) -> Int {
        let e = entry(i)
        if e.isContainer { return i == 0 ? rootEnd : Int(entry(i + 1).start) }
        let length = e.length
        return length != Tape.longLength ? Int(e.start + length) : scalarEnd(from: Int(e.start))
    }
    /// Where the scalar starting at byte `start` ends, read from its bytes (for one too long for
    /// its tape entry to say).
    @inlinable
    func scalarEnd(from start: Int) -> Int {
        guard let bytePieces else { return Tape.scalarEnd(buffer, from: start) }
        // A token lies in one piece, and ends at the piece's end at the latest.
        let (run, runStart) = bytePieces.run(holding: start)
        return runStart + Tape.scalarEnd(run, from: start - runStart)
    }

    /// The first byte of node `i`, which tells its kind.
    @inlinable public func firstByte(_ i: Int) -> UInt8 { byte(at: Int(entry(i).start)) }

    @inlinable
    public func kind(_ i: Int) -> JSONKind { JSONKind(firstByte: firstByte(i)) }

    @inlinable public func isContainer(_ i: Int) -> Bool { entry(i).isContainer }

    /// The index of the first node after node `i` and its subtree.
    @inlinable
    public func nextIndex(_ i: Int) -> Int {
        let e = entry(i)
        return e.isContainer ? (i == 0 ? rootNext : e.next) : i + 1
    }

    /// The index of container `i`'s first child (its first key, for an object) when it has one.
    @inlinable public func firstChild(_ i: Int) -> Int { i + 2 }

    /// Members of an object (without overridden duplicates) or elements of an array; 0 for scalars.
    /// - Complexity: O(count): the tape links siblings, it does not store counts.
    @inlinable
    public func childCount(_ i: Int) -> Int {
        var n = 0
        switch firstByte(i) {
        case UInt8(ascii: "{"): forEachMember(of: i) { _, _ in n += 1 }
        case UInt8(ascii: "["): forEachElement(of: i) { _ in n += 1 }
        default: break
        }
        return n
    }

    /// Whether key node `i` is overridden by a later member with the same key (skipped by `forEachMember`).
    @inlinable public func isShadowed(_ i: Int) -> Bool { entry(i).word & Tape.shadowed != 0 }

    /// Whether string node `i` holds escapes (its decoded bytes differ from its raw bytes).
    @inlinable public func hasEscapes(_ i: Int) -> Bool { entry(i).word & Tape.escaped != 0 }

    /// Calls `body(key, value)` with the tape indexes of each member of object `i`, in file order,
    /// skipping members overridden by a later duplicate key.
    /// - Complexity: O(number of members); nested values are skipped in O(1).
    @inlinable
    public func forEachMember(of i: Int, _ body: (_ key: Int, _ value: Int) throws -> Void) rethrows {
        guard firstByte(i) == UInt8(ascii: "{") else { return }
        var k = firstChild(i)
        let end = nextIndex(i)
        while k < end {
            let v = k + 1
            let next = nextIndex(v)
            if entry(k).word & Tape.shadowed == 0 { try body(k, v) }
            k = next
        }
    }

    /// Calls `body(value)` with the tape index of each element of array `i`, in order.
    @inlinable
    public func forEachElement(of i: Int, _ body: (_ value: Int) throws -> Void) rethrows {
        guard firstByte(i) == UInt8(ascii: "[") else { return }
        var k = firstChild(i)
        let end = nextIndex(i)
        while k < end {
            let next = nextIndex(k)
            try body(k)
            k = next
        }
    }

    /// Calls `body` with the decoded UTF-8 bytes of string node `i` (no copy when it has no escapes).
    /// - Precondition: node `i` is a string (or an object key).
    @inlinable
    public func withStringBytes<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let (s, e) = (start(i), end(i))
        let token = UnsafeBufferPointer(start: address(of: s), count: e - s)
        if !hasEscapes(i) { return try body(UnsafeBufferPointer(rebasing: token[1..<(e - s - 1)])) }
        return try decodeString(token, 0, e - s).withUnsafeBufferPointer(body)
    }

    /// The value of number node `i`.
    /// - Precondition: node `i` is a number.
    @inlinable
    public func number(_ i: Int) -> Double {
        let s = start(i)
        return parseJSONNumber(UnsafeBufferPointer(start: address(of: s), count: end(i) - s))
    }

    /// The value of the member of object `i` whose key has these decoded bytes — of duplicates,
    /// the last, the effective one (as `JSONNode.child` and jq take it: the others are marked
    /// shadowed, so the first unshadowed match is it); nil when there is none or node `i` is
    /// not an object.
    /// - Complexity: O(number of members).
    @inlinable
    public func member(of i: Int, named key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard firstByte(i) == UInt8(ascii: "{") else { return nil }
        var k = firstChild(i)
        let end = nextIndex(i)
        while k < end {
            let e = entry(k)
            if e.word & Tape.shadowed == 0 {
                if e.word & Tape.escaped == 0 && e.length != Tape.longLength {
                    let n = Int(e.length) - 2
                    if n == key.count && (n == 0 || bytesEqual(address(of: Int(e.start) + 1), key.baseAddress!, n)) { return k + 1 }
                } else if withStringBytes(k, { s in s.elementsEqual(key) }) {
                    return k + 1
                }
            }
            k = nextIndex(k + 1)
        }
        return nil
    }
}

/// Whether `n` bytes at `a` and `b` are equal.
@inlinable
public func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    var i = 0
    while i + 8 <= n {
        if UnsafeRawPointer(a).loadUnaligned(fromByteOffset: i, as: UInt64.self)
            != UnsafeRawPointer(b).loadUnaligned(fromByteOffset: i, as: UInt64.self)
        {
            return false
        }
        i += 8
    }
    while i < n {
        if a[i] != b[i] { return false }
        i += 1
    }
    return true
}

extension JSONDocument {
    /// Calls `body` with a reader of this document's nodes; the reader must not escape the call.
    @inlinable
    public func withTapeReader<R>(_ body: (TapeReader) throws -> R) rethrows -> R {
        if let pieces = bytes.pieces {
            return try withExtendedLifetime(pieces) {
                try body(TapeReader(bytes: UnsafeBufferPointer(start: nil, count: 0), bytePieces: pieces, tape: tape))
            }
        }
        return try bytes.withUnsafeBufferPointer { b in
            try body(TapeReader(bytes: b, tape: tape))
        }
    }
}
