// JSON number syntax and conversion to Double.

/// Whether `text` is a JSON number (RFC 8259 grammar, nothing around it).
public func isValidJSONNumber(_ text: String) -> Bool {
    var t = text
    return t.withUTF8 { p in
        var i = 0
        let n = p.count
        func digit(_ i: Int) -> Bool { i < n && p[i] >= 0x30 && p[i] <= 0x39 }
        if i < n && p[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else { return false }
        if p[i] == UInt8(ascii: "0") { i += 1 } else { while digit(i) { i += 1 } }
        if i < n && p[i] == UInt8(ascii: ".") {
            i += 1
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        if i < n && (p[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            if i < n && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) { i += 1 }
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        return i == n
    }
}

/// The value of a valid JSON number spelling.
public func parseJSONNumber(_ text: String) -> Double? {
    guard isValidJSONNumber(text) else { return nil }
    var t = text
    return t.withUTF8 { parseJSONNumber($0) }
}

private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// Converts a valid JSON number spelling to the nearest Double.
///
/// Fast path (Clinger): a mantissa of at most 2^53 scaled by at most 10^22 is exact in
/// one multiplication or division; anything else goes to the correctly rounding
/// library conversion.
/// - Complexity: O(length).
public func parseJSONNumber(_ p: UnsafeBufferPointer<UInt8>) -> Double {
    var i = 0
    let n = p.count
    var negative = false
    if i < n && p[i] == UInt8(ascii: "-") {
        negative = true
        i += 1
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var exponent = 0
    while i < n, case let d = p[i] &- 0x30, d < 10 {
        if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(d) } else { exponent += 1 }
        if mantissa != 0 { digits += 1 }
        i += 1
    }
    if i < n && p[i] == UInt8(ascii: ".") {
        i += 1
        while i < n, case let d = p[i] &- 0x30, d < 10 {
            if digits < 19 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                exponent -= 1
                if mantissa != 0 { digits += 1 }
            }
            i += 1
        }
    }
    if i < n && (p[i] | 0x20) == UInt8(ascii: "e") {
        i += 1
        var expNegative = false
        if p[i] == UInt8(ascii: "+") { i += 1 } else if p[i] == UInt8(ascii: "-") { expNegative = true; i += 1 }
        var e = 0
        while i < n, case let d = p[i] &- 0x30, d < 10 {
            if e < 100_000 { e = e * 10 + Int(d) }
            i += 1
        }
        exponent += expNegative ? -e : e
    }
    if digits < 19 && mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 {
        var v = Double(mantissa)
        if exponent < 0 { v /= exactPowersOfTen[-exponent] } else { v *= exactPowersOfTen[exponent] }
        return negative ? -v : v
    }
    if mantissa == 0 { return negative ? -0.0 : 0.0 }
    return Double(String(decoding: p, as: UTF8.self)) ?? .nan
}
