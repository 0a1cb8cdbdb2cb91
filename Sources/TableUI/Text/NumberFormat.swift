// How a column shows its numbers: as written, with fixed digits, grouped, as bytes or as a time.
#if canImport(Glibc)
import Glibc
#endif

/// A column's display format for numbers. Only what is shown changes: exports and `list`
/// write the exact values.
///
/// ```swift
/// NumberFormat(typed: "2")?.text(for: "0.19743416929728977")   // "0.20"
/// NumberFormat.thousands.text(for: "1234567.5")                // "1,234,567.5"
/// NumberFormat.bytes.text(for: "1536")                         // "1.5 KiB"
/// NumberFormat.epochMilliseconds.text(for: "1764925356000")    // "2025-12-05 09:02:36"
/// ```
public enum NumberFormat: Hashable, Sendable {
    /// This many digits after the point, rounded (0 to 15).
    case decimals(Int)
    /// Digits in groups of three with `,` (`1,234,567.5`), the fraction as written.
    case thousands
    /// A count of bytes in binary units: `512 B`, `1.5 KiB`, `3.2 MiB`, up to EiB.
    case bytes
    /// A time in UTC, `2026-12-05 09:02:36`, from seconds since 1970.
    case epochSeconds
    /// The same from milliseconds since 1970 (JavaScript's `Date.now()`).
    case epochMilliseconds

    /// What a user types at the prompt: `2` (digits), `,`, `b`, `s`, `ms`; nil for anything else.
    public init?(typed text: String) {
        let t = String(text.filter { $0 != " " })
        switch t {
        case ",": self = .thousands
        case "b": self = .bytes
        case "s": self = .epochSeconds
        case "ms": self = .epochMilliseconds
        default:
            guard let n = Int(t), (0...15).contains(n) else { return nil }
            self = .decimals(n)
        }
    }

    /// The format as typed at the prompt (`NumberFormat(typed:)` reads it back).
    public var typed: String {
        switch self {
        case .decimals(let n): String(n)
        case .thousands: ","
        case .bytes: "b"
        case .epochSeconds: "s"
        case .epochMilliseconds: "ms"
        }
    }

    /// `spelled` (a JSON number's text) in this format; nil when it is not a finite number or,
    /// for a time, out of the years 0 to 9999 (the cell then shows the number as written).
    public func text(for spelled: String) -> String? {
        guard let value = Double(spelled), value.isFinite else { return nil }
        switch self {
        case .decimals(let n): return fixed(value, fractionDigits: n)
        case .thousands: return grouped(spelled)
        case .bytes: return byteCount(value)
        case .epochSeconds: return utcTime(seconds: value)
        case .epochMilliseconds: return utcTime(seconds: value / 1000)
        }
    }
}

/// `value` with exactly `fractionDigits` digits after the point, rounded half away from zero on
/// its shortest decimal spelling (`0.125` → `0.13`, as a person rounds what they read), without
/// an exponent; nil from 10^21 on (the number's own spelling is clearer there).
func fixed(_ value: Double, fractionDigits: Int) -> String? {
    guard abs(value) < 1e21 else { return nil }
    let (digits, scale) = decimalDigits(abs(value))
    // The digits worth value × 10^fractionDigits, rounded on the first digit left out.
    let keep = scale + digits.count + fractionDigits
    var scaled: [UInt8]
    if keep >= digits.count {
        scaled = digits + [UInt8](repeating: 0, count: keep - digits.count)
    } else if keep <= 0 {
        scaled = keep == 0 && digits[0] >= 5 ? [1] : [0]
    } else {
        scaled = Array(digits[..<keep])
        if digits[keep] >= 5 { scaled = incremented(scaled) }
    }
    if scaled.count <= fractionDigits { scaled = [UInt8](repeating: 0, count: fractionDigits + 1 - scaled.count) + scaled }
    let text = String(decoding: scaled.map { $0 + 48 }, as: UTF8.self)
    let point = text.index(text.endIndex, offsetBy: -fractionDigits)
    let shown = fractionDigits > 0 ? text[..<point] + "." + text[point...] : text
    return value < 0 && scaled.contains(where: { $0 != 0 }) ? "-" + shown : shown
}

/// The digits of `magnitude`'s shortest spelling (Swift's, which reads back as the same
/// double) without leading zeros, and the power of ten of the last one: `0.125` → ([1, 2, 5], -3).
private func decimalDigits(_ magnitude: Double) -> (digits: [UInt8], scale: Int) {
    let text = magnitude.description
    var mantissa = Substring(text), exponent = 0
    if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
        mantissa = text[..<e]
        exponent = Int(text[text.index(after: e)...]) ?? 0
    }
    let fraction = mantissa.firstIndex(of: ".").map { mantissa.distance(from: $0, to: mantissa.endIndex) - 1 } ?? 0
    let all = mantissa.utf8.filter { $0 != UInt8(ascii: ".") }.map { $0 - 48 }
    let digits = Array(all.drop { $0 == 0 })
    return digits.isEmpty ? ([0], 0) : (digits, exponent - fraction)
}

/// `digits` plus one in the last place (`[9, 9]` → `[1, 0, 0]`).
private func incremented(_ digits: [UInt8]) -> [UInt8] {
    var d = digits
    var i = d.count - 1
    while i >= 0 {
        if d[i] < 9 {
            d[i] += 1
            return d
        }
        d[i] = 0
        i -= 1
    }
    return [1] + d
}

/// A number's spelling with its integer digits in groups of three (`-1234567.25e0` is read as
/// a value first when it has an exponent or is not plain digits).
private func grouped(_ spelled: String) -> String? {
    var text = spelled
    if text.contains(where: { $0 == "e" || $0 == "E" }) {
        guard let value = Double(text), abs(value) < 1e21, let plain = fixed(value, fractionDigits: 0) else { return nil }
        text = value == value.rounded() ? plain : String(value)
    }
    let negative = text.hasPrefix("-")
    if negative { text.removeFirst() }
    let point = text.firstIndex(of: ".") ?? text.endIndex
    let integer = Array(text[..<point])
    var out = ""
    for (i, c) in integer.enumerated() {
        if i > 0 && (integer.count - i) % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return (negative ? "-" : "") + out + text[point...]
}

/// A byte count in binary units with one digit after the point (`1.5 KiB`), whole bytes as they are.
private func byteCount(_ value: Double) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    var scaled = abs(value), unit = 0
    while scaled >= 1024 && unit < units.count - 1 {
        scaled /= 1024
        unit += 1
    }
    let sign = value < 0 ? "-" : ""
    if unit == 0 { return sign + (fixed(scaled, fractionDigits: scaled == scaled.rounded() ? 0 : 1) ?? "") + " B" }
    var shown = fixed(scaled, fractionDigits: 1) ?? ""
    if shown == "1024.0" && unit < units.count - 1 {
        // Rounded up to the next unit: 1023.96 KiB reads as 1.0 MiB.
        shown = "1.0"
        unit += 1
    }
    return sign + shown + " " + units[unit]
}

/// `seconds` since 1970 as a UTC time, `2026-12-05 09:02:36` (with milliseconds when it has a
/// fraction); nil outside the years 0 to 9999.
private func utcTime(seconds: Double) -> String? {
    guard seconds > -62_167_219_200, seconds < 253_402_300_800 else { return nil }
    let whole = seconds.rounded(.down)
    var t = time_t(whole)
    var parts = tm()
    guard gmtime_r(&t, &parts) != nil else { return nil }
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let year = String(parts.tm_year + 1900)
    var text = "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
        + " \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    let millis = Int(((seconds - whole) * 1000).rounded())
    if millis > 0 && millis < 1000 { text += "." + String(repeating: "0", count: 3 - String(millis).count) + String(millis) }
    return text
}
