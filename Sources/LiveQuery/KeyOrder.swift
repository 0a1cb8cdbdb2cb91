// Key order: the Realtime Database's `nameCompare`.
import JSONTree

/// The value of an *integer key*: one that matches `^-?0*\d{1,10}$` and fits in a signed
/// 32-bit integer (`"7"`, `"007"`, `"-5"`); nil for any other key (`"+5"`, `"5.0"`, `""`).
/// - Complexity: O(length).
@inlinable
public func integerKeyValue(_ key: UnsafeBufferPointer<UInt8>) -> Int32? {
    let n = key.count
    var i = 0
    var negative = false
    if n > 0 && key[0] == UInt8(ascii: "-") {
        negative = true
        i = 1
    }
    guard i < n else { return nil }
    var value: Int64 = 0
    var significant = 0
    while i < n {
        let d = key[i] &- 0x30
        guard d < 10 else { return nil }
        if value != 0 || d != 0 {
            // Leading zeros are free (`0*`); at most ten digits follow them.
            significant += 1
            guard significant <= 10 else { return nil }
        }
        value = value * 10 + Int64(d)
        i += 1
    }
    if negative { value = -value }
    return Int32(exactly: value)
}

/// The integer value of `key` when it is an integer key.
public func integerKeyValue(_ key: String) -> Int32? {
    var key = key
    return key.withUTF8 { integerKeyValue($0) }
}

/// Orders two keys as the Realtime Database does: integer keys first, numerically, the shorter
/// spelling first on a tie (`"7"` < `"007"`); other keys by UTF-16 code units.
///
/// Two distinct spellings of zero of the same length (`"-0"`, `"00"`) are ordered by code units,
/// so the order is total.
/// - Returns: a negative number, zero (identical keys) or a positive number.
/// - Complexity: O(length).
public func nameCompare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    compareKeys(KeyRef(a), KeyRef(b))
}

/// Orders two keys by `nameCompare`'s rules, by their code units (never `String <`).
public func nameCompare(_ a: String, _ b: String) -> Int {
    var a = a, b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in nameCompare(pa, pb) } }
}

/// A key prepared for comparison: its class, its integer value, and its bytes.
///
/// Array children have canonical integer keys (`"0"`, `"1"`, …) and carry no bytes: a canonical
/// spelling never ties in value and length with a different spelling.
struct KeyRef {
    enum Rank: UInt8 {
        /// Before every key: the key of `startAt(v)` and `endBefore(v)` without a key.
        case lowest = 0
        case integer = 1
        case other = 2
        /// After every key: the key of `endAt(v)` and `startAfter(v)` without a key.
        case highest = 3
    }

    var rank: Rank
    var int: Int32
    /// The key's length in bytes (its digit count for an array index).
    var length: Int32
    /// The key's UTF-8 bytes; nil for array indexes and the two sentinels.
    var bytes: UnsafePointer<UInt8>?

        init(rank: Rank, int: Int32, length: Int32, bytes: UnsafePointer<UInt8>?) {
        self.rank = rank
        self.int = int
        self.length = length
        self.bytes = bytes
    }

        init(_ key: UnsafeBufferPointer<UInt8>) {
        if let v = integerKeyValue(key) {
            self.init(rank: .integer, int: v, length: Int32(key.count), bytes: key.baseAddress)
        } else {
            self.init(rank: .other, int: 0, length: Int32(key.count), bytes: key.baseAddress)
        }
    }

    /// The key of array element `index`.
        init(arrayIndex index: Int) {
        var digits: Int32 = 1
        var v = index
        while v >= 10 {
            v /= 10
            digits += 1
        }
        self.init(rank: .integer, int: Int32(truncatingIfNeeded: index), length: digits, bytes: nil)
    }

    static var lowest: KeyRef { KeyRef(rank: .lowest, int: 0, length: 0, bytes: nil) }
    static var highest: KeyRef { KeyRef(rank: .highest, int: 0, length: 0, bytes: nil) }

        var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: bytes, count: Int(length)) }
}

func compareKeys(_ a: KeyRef, _ b: KeyRef) -> Int {
    if a.rank != b.rank { return a.rank.rawValue < b.rank.rawValue ? -1 : 1 }
    switch a.rank {
    case .integer:
        if a.int != b.int { return a.int < b.int ? -1 : 1 }
        if a.length != b.length { return a.length < b.length ? -1 : 1 }
        guard a.bytes != nil, b.bytes != nil else { return 0 }
        return utf16Compare(a.buffer, b.buffer)
    case .other:
        return utf16Compare(a.buffer, b.buffer)
    case .lowest, .highest:
        return 0
    }
}
