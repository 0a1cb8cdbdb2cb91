import Testing
@testable import TableUI

@Suite struct DisplayWidthTests {
    @Test func asciiIsOneCellAndControlsNone() {
        #expect(displayWidth("hello") == 5)
        #expect(displayWidth("") == 0)
        #expect(displayWidth("\u{1b}") == 0)
        #expect(displayWidth("\u{7f}") == 0)
        #expect(displayWidth("\u{85}") == 0)
    }

    @Test func eastAsianWideAndFullwidthAreTwo() {
        #expect(displayWidth("東京") == 4)
        #expect(displayWidth("한국어") == 6)
        #expect(displayWidth("カタカナ") == 8)
        #expect(displayWidth("ＡＢ") == 4)  // fullwidth Latin
        #expect(displayWidth("\u{3000}") == 2)  // ideographic space
        #expect(displayWidth("\u{20000}") == 2)  // CJK extension B
        #expect(displayWidth("ｱ") == 1)  // halfwidth katakana
    }

    @Test func combiningMarksAndJamoAreZeroWidth() {
        #expect(displayWidth("e\u{301}") == 1)
        #expect(displayWidth("a\u{300}\u{301}\u{302}\u{303}") == 1)  // stacked marks
        #expect(displayWidth("\u{1100}\u{1161}\u{11A8}") == 2)  // Hangul L+V+T
        #expect(displayWidth("x\u{20DD}") == 1)  // enclosing mark
        #expect(displayWidth("a\u{200B}b") == 2)  // zero-width space
    }

    @Test func emojiPresentationAndSequences() {
        #expect(displayWidth("😀") == 2)
        #expect(displayWidth("👍🏽") == 2)  // skin-tone modifier
        #expect(displayWidth("👨‍👩‍👧") == 2)  // ZWJ family
        #expect(displayWidth("🏳️‍🌈") == 2)  // flag with VS16 + ZWJ
        #expect(displayWidth("🇫🇷") == 2)  // regional-indicator pair
        #expect(displayWidth("❤") == 1)  // text by default
        #expect(displayWidth("❤️") == 2)  // VS16
        #expect(displayWidth("⌚︎") == 1)  // VS15 on an emoji-presentation base
        #expect(displayWidth("1️⃣") == 2)  // keycap
        #expect(displayWidth("a😀b") == 4)
    }

    @Test func ambiguousWidthIsNarrow() {
        #expect(displayWidth("…↑↓▶") == 4)
    }
}
