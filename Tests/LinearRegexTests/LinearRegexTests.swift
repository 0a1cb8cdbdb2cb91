import LinearRegex
import Testing

@Suite struct LinearRegexTests {
    /// A pattern that backtracks exponentially (a backtracking engine takes minutes on these 41
    /// characters) answers at once: RE2's time is linear in the string.
    @Test func nestedRepetitionIsLinear() throws {
        let regex = try LinearRegex("^(a+)+$")
        let text = String(repeating: "a", count: 40) + "b"
        var answer = true
        let elapsed = ContinuousClock().measure { answer = regex.matches(text) }
        #expect(!answer)
        #expect(elapsed < .seconds(5))
        #expect(regex.matches(String(repeating: "a", count: 40)))
    }

    @Test func optionsChangeTheMatch() throws {
        #expect(try !LinearRegex("world").matches("Hello World"))
        #expect(try LinearRegex("world", options: .caseInsensitive).matches("Hello World"))
        #expect(try LinearRegex("É", options: .caseInsensitive).matches("é"))
        #expect(try !LinearRegex("a.b").matches("a\nb"))
        #expect(try LinearRegex("a.b", options: .dotMatchesNewline).matches("a\nb"))
    }

    /// Matches are found anywhere unless anchored; a match's range is in bytes, and the bytes
    /// before `start` are context for `^`.
    @Test func firstMatchGivesByteRanges() throws {
        let text = Array("xé-ab-ab".utf8)
        try text.withUnsafeBufferPointer { text in
            let ab = try LinearRegex("ab")
            #expect(ab.firstMatch(in: text) == 4..<6)
            #expect(ab.firstMatch(in: text, from: 5) == 7..<9)
            #expect(try LinearRegex("^ab").firstMatch(in: text, from: 4) == nil)
            #expect(try LinearRegex("a*", options: .longestMatch).firstMatch(in: text, from: 4) == 4..<5)
        }
    }

    /// What RE2 leaves out is refused with its words and why; other mistakes with RE2's words.
    @Test func mistakesAreNamed() {
        let lookahead = #expect(throws: LinearRegexError.self) { try LinearRegex("a(?=b)") }
        #expect(lookahead?.kind == .unsupported)
        #expect(lookahead?.description.contains("(?=") == true)
        #expect(lookahead?.description.hasSuffix("(regular expressions run in linear time, on RE2: no lookaround, backreferences or possessive repetition)") == true)
        #expect((#expect(throws: LinearRegexError.self) { try LinearRegex(#"(a)\1"#) })?.kind == .unsupported)
        let paren = #expect(throws: LinearRegexError.self) { try LinearRegex("(a") }
        #expect(paren?.kind == .syntax)
        #expect(paren?.description == "missing ): (a")
        #expect((#expect(throws: LinearRegexError.self) { try LinearRegex("((a{1000}){1000}){1000}") })?.kind == .tooLarge)
    }
}
