import Testing
@testable import TableUI
import TestSupport

@Suite struct SanitizeTests {
    @Test func namedC0Escapes() {
        #expect(sanitize("a\nb\tc\rd") == "a\\nb\\tc\\rd")
    }

    @Test(arguments: Array(0..<0x20).filter { ![0x09, 0x0A, 0x0D].contains($0) } + [0x7F])
    func everyOtherC0AndDelIsHex(code: Int) {
        let raw = "x" + String(Character(Unicode.Scalar(UInt8(code)))) + "y"
        let hex = String(code, radix: 16)
        #expect(sanitize(raw) == "x\\x" + (hex.count == 1 ? "0" + hex : hex) + "y")
    }

    @Test(arguments: Array(0x80..<0xA0))
    func everyC1IsUnicodeEscape(code: Int) {
        let raw = String(Character(Unicode.Scalar(UInt32(code))!))
        #expect(sanitize(raw) == "\\u00" + String(code, radix: 16))
    }

    @Test(arguments: [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C])
    func bidiControlsAreShownAsEscapes(code: Int) {
        let raw = "abc" + String(Character(Unicode.Scalar(UInt32(code))!)) + "def"
        let out = sanitize(raw)
        #expect(out == "abc\\u" + String(format4(code)) + "def")
        #expect(!out.unicodeScalars.contains { Int($0.value) == code })
    }

    @Test func lineSeparatorsAreEscaped() {
        #expect(sanitize("a\u{2028}b\u{2029}") == "a\\u2028b\\u2029")
    }

    @Test func escapeSequenceCannotReachTheTerminal() {
        let out = sanitize("\u{1b}[2J\u{1b}]0;title\u{07}\u{9b}31m")
        #expect(out == "\\x1b[2J\\x1b]0;title\\x07\\u009b31m")
        #expect(!out.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) })
    }

    @Test func invalidUTF8BecomesReplacementCharacter() {
        #expect(sanitize([0x61, 0xFF, 0x62] as [UInt8]) == "a\u{FFFD}b")
        #expect(sanitize([0xC3] as [UInt8]) == "\u{FFFD}")  // truncated sequence
        #expect(sanitize([0xED, 0xA0, 0x80] as [UInt8]).allSatisfy { $0 == "\u{FFFD}" })  // encoded surrogate
        #expect(sanitize([0xC0, 0xAF] as [UInt8]).allSatisfy { $0 == "\u{FFFD}" })  // overlong "/"
        #expect(sanitize([0x1B, 0x5B] as [UInt8]) == "\\x1b[")
    }

    @Test func textThatIsSafeIsUnchanged() {
        for text in ["plain", "東京 😀", "e\u{301}", "a\\nb", "👨‍👩‍👧"] {
            #expect(sanitize(text) == text)
        }
    }

    @Test func leadingCombiningMarkGetsABase() {
        #expect(sanitize("\u{301}x") == "\u{25CC}\u{301}x")
    }

    @Test func scalarLimitCutsLongText() {
        let out = sanitize(String(repeating: "a", count: 100), scalarLimit: 10)
        #expect(out == String(repeating: "a", count: 10) + "…")
    }

    @Test func randomStringsNeverKeepDangerousScalars() {
        let seed: UInt64 = 0x5A17
        var rng = SplitMix64(seed: seed)
        let dangerous: Set<UInt32> = Set(0..<0x20).union([0x7F]).union(Set(0x80..<0xA0))
            .union([0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C])
        let pool: [UInt32] = Array(dangerous) + [0x41, 0x301, 0x6771, 0x1F600, 0x200D, 0x5C]
        for _ in 0..<300 {
            let scalars = (0..<Int.random(in: 0...12, using: &rng)).map { _ in
                Unicode.Scalar(pool.randomElement(using: &rng)!)!
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            let out = sanitize(text)
            #expect(!out.unicodeScalars.contains { dangerous.contains($0.value) }, "seed \(seed): \(text.debugDescription)")
        }
    }

    private func format4(_ code: Int) -> String {
        let hex = String(code, radix: 16)
        return String(repeating: "0", count: 4 - hex.count) + hex
    }
}
