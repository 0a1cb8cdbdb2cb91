// Keys and strings compared by their code units, never by Swift's canonical equivalence.

/// A JSON object key (or any JSON string) identified by its exact UTF-8 code units.
///
/// `String ==` treats canonically equivalent strings as equal (`"é" == "e\u{301}"`),
/// which would merge two distinct JSON keys; `JSONKey` compares and hashes bytes.
public struct JSONKey: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let string: String

    public init(_ string: String) { self.string = string }
    public init(stringLiteral value: String) { self.string = value }

    public static func == (a: JSONKey, b: JSONKey) -> Bool { codeUnitsEqual(a.string, b.string) }

    public func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    public var description: String { string }
}

/// True when `a` and `b` have the same UTF-8 code units.
@inlinable
public func codeUnitsEqual(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    // Native strings are compared as bytes in memory (keys of a large update are compared
    // for each hash table probe): far quicker than stepping through the views.
    let inMemory = a.utf8.withContiguousStorageIfAvailable { pa in
        b.utf8.withContiguousStorageIfAvailable { pb in
            pa.isEmpty || memcmpEqual(pa.baseAddress!, pb.baseAddress!, pa.count)
        }
    }
    if case .some(.some(let equal)) = inMemory { return equal }
    return a.utf8.elementsEqual(b.utf8)
}

/// Orders two strings by UTF-16 code units, as JavaScript's `<` does.
/// - Returns: a negative number, zero or a positive number.
public func utf16Compare(_ a: String, _ b: String) -> Int {
    var a = a, b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in utf16Compare(pa, pb) } }
}

/// Orders two valid UTF-8 byte sequences by their UTF-16 code units.
///
/// UTF-8 byte order is code point order; UTF-16 order differs only where a code
/// point in U+E000…U+FFFF meets a supplementary one (stored as surrogates
/// D800…DFFF, which sort lower). So compare bytes, and at the first difference
/// decode both code points and apply that one correction.
/// - Complexity: O(length of the common prefix).
public func utf16Compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let n = min(a.count, b.count)
    var i = 0
    while i < n && a[i] == b[i] { i += 1 }
    if i == n { return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1) }
    // Back up to the start of the code point that differs.
    var s = i
    while s > 0 && (a[s] & 0xC0) == 0x80 { s -= 1 }
    let ca = decodeScalar(a, at: s), cb = decodeScalar(b, at: s)
    return utf16Key(ca) < utf16Key(cb) ? -1 : 1
}

@inline(__always)
private func utf16Key(_ c: UInt32) -> UInt32 {
    // Supplementary code points lead with a high surrogate (0xD800…0xDBFF) in UTF-16.
    c >= 0x10000 ? 0xD800 + ((c - 0x10000) >> 10) : c
}

@inline(__always)
func decodeScalar(_ p: UnsafeBufferPointer<UInt8>, at i: Int) -> UInt32 {
    let b0 = UInt32(p[i])
    if b0 < 0x80 { return b0 }
    if b0 < 0xE0, i + 1 < p.count { return (b0 & 0x1F) << 6 | UInt32(p[i + 1] & 0x3F) }
    if b0 < 0xF0, i + 2 < p.count {
        return (b0 & 0x0F) << 12 | UInt32(p[i + 1] & 0x3F) << 6 | UInt32(p[i + 2] & 0x3F)
    }
    if i + 3 < p.count {
        return (b0 & 0x07) << 18 | UInt32(p[i + 1] & 0x3F) << 12 | UInt32(p[i + 2] & 0x3F) << 6
            | UInt32(p[i + 3] & 0x3F)
    }
    return b0
}
