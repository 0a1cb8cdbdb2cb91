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
