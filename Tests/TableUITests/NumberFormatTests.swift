// Numbers that read well (issue 52): a column's format, and a fraction rounded to its width.
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TableUI
import TestSupport

@Suite struct NumberFormatTests {
    @Test func typedFormats() {
        #expect(NumberFormat(typed: "2") == .decimals(2) && NumberFormat(typed: " 0 ") == .decimals(0))
        #expect(NumberFormat(typed: ",") == .thousands && NumberFormat(typed: "b") == .bytes)
        #expect(NumberFormat(typed: "s") == .epochSeconds && NumberFormat(typed: "ms") == .epochMilliseconds)
        for bad in ["", "16", "-1", "x", "2.5"] { #expect(NumberFormat(typed: bad) == nil, "\(bad)") }
        for f in [NumberFormat.decimals(3), .thousands, .bytes, .epochSeconds, .epochMilliseconds] { #expect(NumberFormat(typed: f.typed) == f) }
    }

    @Test func decimalsRoundAsWritten() {
        let two = NumberFormat.decimals(2)
        #expect(two.text(for: "0.19743416929728977") == "0.20")
        #expect(two.text(for: "0.125") == "0.13")          // half away from zero, on the digits read
        #expect(two.text(for: "-0.125") == "-0.13")
        #expect(two.text(for: "-0.001") == "0.00")         // no minus on a zero
        #expect(two.text(for: "999.995") == "1000.00")
        #expect(two.text(for: "1e-7") == "0.00")
        #expect(two.text(for: "12") == "12.00")
        #expect(NumberFormat.decimals(0).text(for: "2.5") == "3")
        #expect(NumberFormat.decimals(3).text(for: "1.5e3") == "1500.000")
        #expect(two.text(for: "1e300") == nil && two.text(for: "\"x\"") == nil)
    }

    @Test func thousandsBytesAndTimes() {
        #expect(NumberFormat.thousands.text(for: "1234567.5") == "1,234,567.5")
        #expect(NumberFormat.thousands.text(for: "-1000") == "-1,000")
        #expect(NumberFormat.thousands.text(for: "999") == "999")
        #expect(NumberFormat.thousands.text(for: "1.5e6") == "1,500,000")
        #expect(NumberFormat.bytes.text(for: "512") == "512 B")
        #expect(NumberFormat.bytes.text(for: "1536") == "1.5 KiB")
        #expect(NumberFormat.bytes.text(for: "3355443") == "3.2 MiB")
        #expect(NumberFormat.bytes.text(for: "1048575") == "1.0 MiB")  // 1023.999 KiB rounds up a unit
        #expect(NumberFormat.epochSeconds.text(for: "0") == "1970-01-01 00:00:00")
        #expect(NumberFormat.epochSeconds.text(for: "1764925356.25") == "2025-12-05 09:02:36.250")
        #expect(NumberFormat.epochMilliseconds.text(for: "1764925356000") == "2025-12-05 09:02:36")
        #expect(NumberFormat.epochSeconds.text(for: "1e20") == nil)
    }

    /// Any number in any width: exactly the width, and either as written, the ellipsis, or a
    /// rounding within half a unit of the last digit it shows (never a prefix of the digits).
    @Test func fractionsAreRoundedToTheWidth() {
        #expect(fitNumber("0.19743416929728977", width: 8) == "0.197434")
        #expect(fitNumber("0.19743416929728977", width: 4) == " 0.2")
        #expect(fitNumber("12345.678", width: 7) == "12345.7")
        #expect(fitNumber("-0.000123456", width: 8) == "-1.23e-4")  // rounded would keep 2 digits
        forEachSeed(300) { seed, rng in
            let digits = (0..<rng.int(1...17)).map { _ in String(rng.int(0...9)) }.joined()
            let value = (rng.chance(0.3) ? -1.0 : 1.0) * (Double("0." + digits) ?? 0) * pow(10, Double(rng.int(-8...12)))
            let text = "\(value)", width = rng.int(1...22)
            let out = fitNumber(text, width: width)
            #expect(out.count == width, "seed \(seed)")
            let shown = String(out.drop { $0 == " " })
            if shown == text || shown == "…" { return }
            guard let read = Double(shown) else {
                Issue.record("seed \(seed): \(text) in \(width) → \(shown), not a number")
                return
            }
            let parts = shown.split(separator: "e")
            let decimals = parts[0].split(separator: ".").dropFirst().first?.count ?? 0
            let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
            let unit = 0.5 * pow(10, Double(exponent - decimals))
            // Within half a unit, give or take the double's own last bits at 16 digits.
            #expect(abs(read - value) <= unit + abs(value) * 4e-16, "seed \(seed): \(text) in \(width) → \(shown)")
        }
    }
}
