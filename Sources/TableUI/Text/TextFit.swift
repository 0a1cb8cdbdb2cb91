// Fitting text into a fixed number of cells: padding, alignment, truncation with an ellipsis.
#if canImport(Glibc)
import Glibc
#endif

/// `text` made exactly `width` cells wide: padded with spaces (on the left when
/// `alignRight`), or cut at a grapheme boundary and ended with `ellipsis` when it is
/// too wide. A wide character that would straddle the edge is dropped and the gap
/// padded, so the result never exceeds `width`.
/// - Parameter ellipsis: one cell wide (`…`, or `~` on terminals without UTF-8).
/// - Complexity: O(width) — reading stops as soon as the text is known not to fit.
public func fit(_ text: String, width: Int, alignRight: Bool = false, ellipsis: Character = "…") -> String {
    guard width > 0 else { return "" }
    if let n = printableASCIICount(text) {
        if n <= width {
            let padding = String(repeating: " ", count: width - n)
            return alignRight ? padding + text : text + padding
        }
        var out = String(decoding: text.utf8.prefix(width - 1), as: UTF8.self)
        out.append(ellipsis)
        return out
    }
    var used = 0
    var cutIndex = text.startIndex  // end of the longest prefix that fits in width - 1 cells
    var cutWidth = 0
    var index = text.startIndex
    while index < text.endIndex {
        let character = text[index]
        let w = displayWidth(character)
        if used + w > width {
            // Too wide: keep what fits beside the ellipsis.
            var out = String(text[..<cutIndex])
            out.append(ellipsis)
            let gap = String(repeating: " ", count: width - cutWidth - 1)
            return alignRight ? gap + out : out + gap
        }
        used += w
        index = text.index(after: index)
        if used <= width - 1 {
            cutIndex = index
            cutWidth = used
        }
    }
    let padding = String(repeating: " ", count: width - used)
    return alignRight ? padding + text : text + padding
}

/// A number made exactly `width` cells wide, right-aligned, and never cut to a prefix of its
/// digits (`13727016…` would read as another number): when its spelling is too wide it is
/// rounded to the digits that fit (`0.19743416929728977` in 8 cells: `0.197434`), or shown in
/// scientific notation (`1.3727e12`) when that keeps more of its digits, and when neither fits,
/// as the ellipsis alone. Text that is not a number is fitted as `fit` does.
/// - Complexity: O(width).
public func fitNumber(_ text: String, width: Int, ellipsis: Character = "…") -> String {
    guard width > 0 else { return "" }
    guard displayWidth(text) > width, let value = Double(text), value.isFinite else {
        return fit(text, width: width, alignRight: true, ellipsis: ellipsis)
    }
    var science: String?
    for digits in stride(from: min(width, 15), through: 0, by: -1) {
        let short = scientific(value, fractionDigits: digits)
        if short.utf8.count <= width {
            science = short
            break
        }
    }
    let rounded = roundedToFit(value, width: width)
    let best = [rounded, science].compactMap { $0 }.max { significantDigits($0) < significantDigits($1) }
    guard let best else { return String(repeating: " ", count: width - 1) + String(ellipsis) }
    return String(repeating: " ", count: width - best.utf8.count) + best
}

/// `value` without an exponent, rounded to as many digits after the point as fit in `width`
/// (trailing zeros dropped); nil when its integer part alone is too wide, or nothing of it is
/// left but zero.
private func roundedToFit(_ value: Double, width: Int) -> String? {
    guard let whole = fixed(value, fractionDigits: 0), whole.utf8.count <= width else { return nil }
    var text = whole
    for digits in stride(from: min(width - whole.utf8.count - 1, 17), through: 1, by: -1) {
        if let t = fixed(value, fractionDigits: digits), t.utf8.count <= width {
            text = t
            break
        }
    }
    if text.contains(".") {
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
    }
    return significantDigits(text) == 0 && value != 0 ? nil : text
}

/// The digits of a number's text that carry its value: from the first non-zero digit to the
/// exponent, if any.
private func significantDigits(_ text: String) -> Int {
    let mantissa = text.prefix { $0 != "e" }
    let digits = mantissa.filter(\.isNumber)
    return digits.drop { $0 == "0" }.count
}

/// `value` as `d.ddde±x` with `fractionDigits` digits after the point (trailing zeros dropped).
private func scientific(_ value: Double, fractionDigits: Int) -> String {
    guard value != 0 else { return "0" }
    let magnitude = abs(value)
    var exponent = Int((log10(magnitude)).rounded(.down))
    var scale = 1
    for _ in 0..<fractionDigits { scale *= 10 }
    var mantissa = Int((magnitude / pow(10, Double(exponent)) * Double(scale)).rounded())
    if mantissa < scale {  // log10 came out a hair above an integer
        exponent -= 1
        mantissa = Int((magnitude / pow(10, Double(exponent)) * Double(scale)).rounded())
    }
    if mantissa >= 10 * scale {  // 9.99… rounded up to 10
        mantissa /= 10
        exponent += 1
    }
    var digits = String(mantissa)
    while digits.count > 1, digits.hasSuffix("0") { digits.removeLast() }
    var text = value < 0 ? "-" : ""
    text += String(digits.prefix(1))
    if digits.count > 1 { text += "." + digits.dropFirst() }
    return text + "e\(exponent)"
}
