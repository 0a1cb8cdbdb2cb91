import JSONTree
import Testing
@testable import Expressions

@Suite struct ExpressionParsingTests {
    /// A bad expression names the line and column of the problem (from 1, in Unicode scalars).
    @Test(arguments: [
        (".score >", "1:9: expected a value after '>'"),
        (".score > 1 and", "1:15: expected a value after 'and'"),
        (".a >\n  ", "2:3: expected a value after '>'"),
        ("", "1:1: expected a value"),
        ("(.a", "1:4: expected ')' to close the '(' at 1:1"),
        (".a == 1 == 2", "1:9: comparisons do not chain: join them with 'and'"),
        ("\"abc", "1:1: unterminated string"),
        (".a ! 1", "1:4: unexpected character '!'"),
        ("é == .b )", "1:1: unexpected character 'é'"),
        (".é > 1", "1:2: unexpected character 'é'"),
        (". 1", "1:3: unexpected '1'"),
        (".a + * 2", "1:6: expected a value after '+'"),
        ("startswith(\"a\", \"b\")", "1:15: arguments are separated by ';' in jq, not ','"),
        ("length(1)", "1:1: 'length' takes no arguments, not 1"),
        ("not .a", "1:1: 'not' is a filter: write '… | not' or '(…) | not'"),
        (".a | test(\"(\")", "1:6: test: invalid regular expression"),
        (".a | test(\"a\"; \"q\")", "1:6: test: flag 'q' is not supported (use g, i, n, s, x)"),
        (".a | test(.b)", "1:6: test's pattern must be a string literal"),
    ])
    func parseErrorsNameThePlace(text: String, message: String) {
        #expect(throws: ExpressionError.self) { try Expression(text) }
        do {
            _ = try Expression(text)
        } catch {
            #expect(error.description.hasPrefix(message), "\(String(reflecting: text)): \(error)")
        }
    }

    /// Forms of jq outside the subset are named as such, with where the expression came from.
    @Test(arguments: [
        ("reduce .[] as $x (0; . + $x)", "1:1: 'reduce' is not supported in --where"),
        (".a | map(.b)", "1:6: 'map' is not supported in --where"),
        (".a[]", "1:3: iteration '[]' (more than one value) is not supported in --where"),
        (".a, .b", "1:3: ',' (more than one value) is not supported in --where"),
        ("{a: 1}", "1:1: object construction '{…}' is not supported in --where"),
        ("$x", "1:1: a variable '$…' is not supported in --where"),
        ("..", "1:1: recursive descent '..' is not supported in --where"),
        (".a = 1", "1:4: assignment '=' is not supported in --where"),
        ("\"a\\(.b)\"", "1:3: string interpolation '\\(…)' is not supported in --where"),
        ("if .a then 1 else 2 end", "1:1: 'if' is not supported in --where"),
        (".a[1:2]", "1:3: a slice '[a:b]' is not supported in --where"),
        ("@csv", "1:1: a format '@…' is not supported in --where"),
    ])
    func unsupportedFormsAreNamed(text: String, message: String) {
        do {
            _ = try Expression(text, context: "--where")
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.description == message)
        }
    }

    /// Precedence as jq's: `|` < `//` < `or` < `and` < comparisons < `+ -` < `* / %`.
    @Test func precedenceIsJQs() throws {
        let doc = try JSONDocument(parsing: #"{"a": 2, "b": 3, "c": null, "s": "Ab"}"#)
        func eval(_ text: String) throws -> ExpressionResult { try Expression(text).value(of: doc.root) }
        #expect(try eval(".a + .b * 2") == .value(8))
        #expect(try eval("-.a + 1") == .value(-1))
        #expect(try eval("-.a * .b") == .value(-6))
        #expect(try eval(".a < .b and .c == null or false") == .value(true))
        #expect(try eval(".c // .a + 1") == .value(3))
        #expect(try eval(".s | ascii_downcase | startswith(\"a\")") == .value(true))
        #expect(try eval(".a > 1 | not") == .value(false))
        #expect(try eval(".s.x") == .error(#"Cannot index string with "x""#))
        #expect(try eval(".s.x?") == .empty)
    }

    @Test func wordsSayTheFilter() throws {
        #expect(try Expression(#".score > 100 and .team == "a""#).words == #"score > 100 and team = "a""#)
        #expect(try Expression(#".metrics.views >= 10 or (.name | test("^a"; "i"))"#).words == #"metrics/views ≥ 10 or name matches /^a/i"#)
        #expect(try Expression(#".tags | contains(["x"])"#).words == #"tags contains ["x"]"#)
    }
}
