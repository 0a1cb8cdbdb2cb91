import Testing
@testable import TableUI
import TestSupport

@Suite struct TextFitTests {
    @Test func padsLeftOrRight() {
        #expect(fit("ab", width: 5) == "ab   ")
        #expect(fit("42", width: 5, alignRight: true) == "   42")
        #expect(fit("abcde", width: 5) == "abcde")
    }

    @Test func truncatesWithEllipsis() {
        #expect(fit("abcdef", width: 5) == "abcd…")
        #expect(fit("abcdef", width: 1) == "…")
        #expect(fit("abcdef", width: 0) == "")
        #expect(fit("abcdef", width: 4, ellipsis: "~") == "abc~")
    }

    @Test func wideCharactersNeverStraddleTheEdge() {
        #expect(fit("東京都", width: 6) == "東京都")
        #expect(fit("東京都", width: 5) == "東京…")
        #expect(fit("東京都", width: 4) == "東… ")  // 東 (2) + … (1) + a space for the gap
        #expect(displayWidth(fit("😀😀😀", width: 4)) == 4)
    }

    @Test func combiningMarksStayWithTheirBase() {
        #expect(fit("e\u{301}e\u{301}e\u{301}", width: 2) == "e\u{301}…")
    }

    @Test func resultIsAlwaysExactlyTheWidth() {
        let seed: UInt64 = 77
        var rng = SplitMix64(seed: seed)
        let pool = ["a", "東", "😀", "e\u{301}", "👨‍👩‍👧", " ", "🇫🇷"]
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 0...10, using: &rng)).map { _ in pool.randomElement(using: &rng)! }.joined()
            let width = Int.random(in: 0...12, using: &rng)
            let right = Bool.random(using: &rng)
            #expect(displayWidth(fit(text, width: width, alignRight: right)) == width, "seed \(seed): \(text) in \(width)")
        }
    }
}

/// A number is never shown as a prefix of its digits.
@Suite struct FitNumberTests {
    @Test func fitsAsSpelledWhenThereIsRoom() {
        #expect(fitNumber("1372701600000", width: 15) == "  1372701600000")
        #expect(fitNumber("-3.5", width: 4) == "-3.5")
        #expect(fitNumber("abcdef", width: 4) == "abc…")  // not a number: cut as text
    }

    @Test func tooWideBecomesScientificWithTheDigitsThatFit() {
        #expect(fitNumber("1372701600000", width: 9) == "1.3727e12")
        #expect(fitNumber("1372701600000", width: 6) == "1.4e12")
        #expect(fitNumber("1372701600000", width: 4) == "1e12")
        #expect(fitNumber("1372701600000", width: 3) == "  …")
        #expect(fitNumber("-0.000123456", width: 8) == "-1.23e-4")
        #expect(fitNumber("999999", width: 5) == "  1e6")
    }

    @Test func neverAPrefixOfTheDigits() {
        forEachSeed(300) { seed, rng in
            let digits = rng.int(1...18)
            var text = rng.chance(0.3) ? "-" : ""
            text += String(rng.int(1...9)) + (0..<(digits - 1)).map { _ in String(rng.int(0...9)) }.joined()
            let width = rng.int(1...20)
            let shown = fitNumber(text, width: width).drop { $0 == " " }
            #expect(fitNumber(text, width: width).count == width, "seed \(seed)")
            if shown == Substring(text) || shown == "…" { return }
            // Otherwise a scientific form whose value is within the precision it shows.
            let parts = shown.split(separator: "e")
            #expect(parts.count == 2, "seed \(seed): \(text) in \(width) → \(shown)")
            guard parts.count == 2, let mantissa = Double(parts[0]), let exponent = Int(parts[1]), let value = Double(text) else { return }
            let decimals = parts[0].split(separator: ".").dropFirst().first?.count ?? 0
            var unit = 0.5
            for _ in 0..<decimals { unit /= 10 }
            var scale = 1.0
            for _ in 0..<abs(exponent) { scale *= 10 }
            let mantissaOfValue = exponent >= 0 ? value / scale : value * scale
            #expect(abs(mantissaOfValue - mantissa) <= unit + 1e-9, "seed \(seed): \(text) in \(width) → \(shown)")
        }
    }
}
