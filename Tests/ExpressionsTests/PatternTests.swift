import JSONTree
import Testing
import TestSupport
@testable import Expressions

@Suite struct PatternTests {
    /// `test` on RE2: a pattern that backtracks exponentially in jq (over 100 s on these 41
    /// characters) answers at once.
    @Test func nestedRepetitionIsLinear() throws {
        let filter = try Expression(#".name | test("^(a+)+$")"#)
        let child = try JSONDocument(parsing: JSON.object(JSONObject([("name", .string(String(repeating: "a", count: 40) + "b"))])).serializedString())
        var result = ExpressionResult.empty
        let elapsed = ContinuousClock().measure { result = filter.value(of: child.root) }
        #expect(result == .value(false))
        #expect(elapsed < .seconds(5))
    }

    /// Patterns and flags mean what they mean in jq 1.6 (Debian's, Oniguruma): anchors at the
    /// string's ends, `$` before a final newline, Unicode classes, `x` and `n`. One jq for all.
    @Test func testAgreesWithJQ() throws {
        let cases: [(pattern: String, flags: String, text: String)] = [
            ("^b", "", "a\nb"), ("a$", "", "a\nb"), ("a$", "", "a\n"), (#"a\Z"#, "", "a\n"), ("a$", "", "a\n\n"),
            ("a.b", "", "a\nb"), ("a.b", "s", "a\nb"), ("a.b", "p", "a\nb"), ("^$", "", ""), ("^.$", "", "é"),
            ("a", "i", "A"), ("é", "i", "É"), ("ab", "il", "AB"), ("a", "gi", "A"), ("(?i)A", "", "a"),
            ("a b", "x", "ab"), (#"a\ b"#, "x", "a b"), ("a # comment\nb", "x", "ab"), ("a[ ]b", "x", "a b"), ("a#b", "x", "a#b"),
            ("a*", "n", "b"), ("a*", "n", "ba"), ("a*", "", "b"), ("x*", "n", "éx"),
            (#"\d"#, "", "٣"), (#"\D"#, "", "٣"), (#"[^\d]"#, "", "٣"), (#"\s"#, "", "\u{A0}"), (#"\s"#, "", "\u{0B}"),
            (#"\S"#, "", " "), (#"\w\w"#, "", "aé"), (#"\W"#, "", "é"), (#"[\w-]"#, "", "é"), (#"\w"#, "", "_"),
            ("[[:alpha:]]", "", "x"), ("[]a]", "", "]"), ("[^]a]", "", "]"), ("[$]", "", "$"), (#"a\$"#, "", "a$"),
            (#"^(19|20)\d\d-(0[1-9]|1[012])$"#, "", "2014-12"), ("o.e", "", "zoë"), ("^a", "", "\u{0}a"), ("a", "", "\u{0}a"),
        ]
        let program = "[" + cases.map {
            "(\(JSON.string($0.text).serializedString()) | test(\(JSON.string($0.pattern).serializedString()); \(JSON.string($0.flags).serializedString())))"
        }.joined(separator: ", ") + "]"
        let folder = ScratchFolder("jq-patterns")
        let jq = try runProgram("/usr/bin/jq", ["-n", "-c", "-f", folder.write("program.jq", program)])
        try #require(jq.status == 0, "jq failed: \(jq.errors)")
        let expected = try #require(try JSONDocument(parsing: jq.output).root.json.arrayValue)
        try #require(expected.count == cases.count)
        for (c, jqAnswer) in zip(cases, expected) {
            let filter = try Expression("test(\(JSON.string(c.pattern).serializedString()); \(JSON.string(c.flags).serializedString()))")
            let text = try JSONDocument(parsing: JSON.string(c.text).serializedString())
            #expect(filter.value(of: text.root) == .value(jqAnswer), "\(String(reflecting: c.text)) | test(\(String(reflecting: c.pattern)); \"\(c.flags)\")")
        }
    }

    /// What RE2 cannot match in linear time is refused when the filter is parsed, saying so.
    @Test(arguments: [#"a(?=b)"#, #"(a)\1"#, "a++", #"(?>a)"#])
    func backtrackingFormsAreRefused(pattern: String) {
        let error = #expect(throws: ExpressionError.self) { try Expression(".a | test(\(JSON.string(pattern).serializedString()))") }
        #expect(error?.description.hasPrefix("1:6: test: invalid regular expression \(String(reflecting: pattern)): ") == true)
        #expect(error?.description.hasSuffix("(regular expressions run in linear time, on RE2: no lookaround, backreferences or possessive repetition)") == true)
    }
}
