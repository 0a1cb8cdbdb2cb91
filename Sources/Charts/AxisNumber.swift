// Numbers as axis labels: the fewest characters that still read as the value.

/// `value` spelled in at most `width` characters with at most `significant` significant
/// digits: plainly (`0.1974`, `12500`) when that fits, else in scientific notation (`1.97e-7`).
/// A label is read at a glance, so the 17 digits of `0.19743416929728977` carry nothing
/// the eye can use; four are enough to tell the ticks apart.
/// When not even one digit fits, the result is the one-digit scientific form, wider than `width`.
public func axisLabel(_ value: Double, width: Int, significant: Int = 4) -> String {
    guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-inf" : "inf") }
    if value == 0 { return "0" }
    let most = max(1, min(significant, 15))
    for digits in stride(from: most, through: 1, by: -1) {
        let plain = plainSpelling(value, significant: digits)
        if let plain, plain.count <= width { return plain }
        let short = scientificSpelling(value, significant: digits)
        if short.count <= width { return short }
    }
    return scientificSpelling(value, significant: 1)
}

/// `value`'s magnitude rounded to `significant` digits, as those digits and the power of ten
/// of the first: built from an integer so no binary fraction leaks into the text.
private func roundedDigits(_ value: Double, significant: Int) -> (digits: Int, exponent: Int) {
    var (mantissa, exponent) = decimalParts(abs(value))
    var digits = Int((mantissa * power10(significant - 1)).rounded())
    // Rounding can carry into one more digit (9.9996 at four digits is 10.00).
    if digits >= Int(power10(significant)) {
        digits = (digits + 5) / 10
        exponent += 1
    }
    return (digits, exponent)
}

/// A finite, non-zero magnitude as a mantissa in [1, 10) and a power of ten, found by
/// stepping (a power of ten computed first would overflow near the ends of Double's range).
private func decimalParts(_ magnitude: Double) -> (mantissa: Double, exponent: Int) {
    var exponent = 0
    var m = magnitude
    while m >= 10 { m /= 10; exponent += 1 }
    while m < 1 { m *= 10; exponent -= 1 }
    return (m, exponent)
}

/// Plain decimal spelling, or nil when it would need more than 15 integer digits.
private func plainSpelling(_ value: Double, significant: Int) -> String? {
    let (digits, exponent) = roundedDigits(value, significant: significant)
    guard exponent < 15 else { return nil }
    let sign = value < 0 ? "-" : ""
    let lastPlace = exponent - significant + 1  // the power of ten of the last digit
    var text = String(digits)
    if lastPlace >= 0 { return sign + text + String(repeating: "0", count: lastPlace) }
    let decimals = -lastPlace
    if text.count <= decimals { text = String(repeating: "0", count: decimals - text.count + 1) + text }
    let point = text.index(text.endIndex, offsetBy: -decimals)
    var fraction = text[point...]
    while fraction.last == "0" { fraction.removeLast() }
    return sign + text[..<point] + (fraction.isEmpty ? "" : "." + fraction)
}

/// `1.97e-7`, `-3e12`: one digit, the point, the rest, then the exponent.
private func scientificSpelling(_ value: Double, significant: Int) -> String {
    let (digits, exponent) = roundedDigits(value, significant: significant)
    var text = String(digits)
    while text.count > 1, text.last == "0" { text.removeLast() }
    let mantissa = text.count > 1 ? String(text.prefix(1)) + "." + text.dropFirst() : text
    return (value < 0 ? "-" : "") + mantissa + "e" + String(exponent)
}

private func power10(_ n: Int) -> Double {
    var result = 1.0
    for _ in 0..<abs(n) { result *= 10 }
    return n < 0 ? 1 / result : result
}
