#if canImport(Glibc)
import Glibc
#endif
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
        (".a | test(\"a\"; \"q\")", "1:6: test: flag 'q' is not supported (use g, i, l, n, p, s, x)"),
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

    /// Nesting is bounded (issue 47: 7,000 `(` or 10,000 `[` overflowed the stack): past
    /// `Parser.maximumDepth` it is an error at the first token nested too deep, and a chain of
    /// operators as deep (a tree that evaluating it would recurse down) at its operator.
    @Test(arguments: [
        (String(repeating: "(", count: 7000) + ".a" + String(repeating: ")", count: 7000), Parser.maximumDepth + 1),
        (String(repeating: "[", count: 10000), Parser.maximumDepth + 1),
        (String(repeating: "- ", count: 600) + "1", 2 * (Parser.maximumDepth + 1)),
        (".a" + String(repeating: " | .a", count: 600), 5 * Parser.maximumDepth + 5),
        (".a" + String(repeating: "[.a", count: 600) + String(repeating: "]", count: 600), 3 * Parser.maximumDepth + 3),
        ("length(" + String(repeating: "has(", count: 600), 7 + 4 * Parser.maximumDepth),
        // `.a` is 1 high, each `+` one more: the operator that makes it too high.
        ((0..<600).map { _ in ".a" }.joined(separator: " + "), 3 + 5 * (Parser.maximumDepth - 1)),
    ])
    func deepNestingIsAnError(text: String, offset: Int) {
        let error = #expect(throws: ExpressionError.self) { try Expression(text) }
        #expect(error?.description == "1:\(offset + 1): the expression nests deeper than \(Parser.maximumDepth) levels")
    }

    /// The deepest expression the parser takes evaluates and says its words on a thread with a
    /// quarter of the stack threads have here (8 MiB), in a debug build: room to spare.
    @Test func theDeepestExpressionEvaluatesOnASmallStack() throws {
        let depth = Parser.maximumDepth
        let texts = [
            ".a" + String(repeating: " + .a", count: depth - 1),
            String(repeating: "(", count: depth) + ".a" + String(repeating: ")", count: depth),
            String(repeating: "-", count: depth - 1) + ".a",
        ]
        let expressions = try texts.map { try Expression($0) }
        let document = try JSONDocument(parsing: #"{"a": 1}"#)
        let (values, words) = onSmallStack(bytes: 2 << 20) {
            (expressions.map { $0.value(of: document.root) }, expressions.map(\.words))
        }
        #expect(values == [.value(JSON(integerLiteral: depth)), .value(1), .value(-1)])
        #expect(words.allSatisfy { !$0.isEmpty })
    }

    @Test func wordsSayTheFilter() throws {
        #expect(try Expression(#".score > 100 and .team == "a""#).words == #"score > 100 and team = "a""#)
        #expect(try Expression(#".metrics.views >= 10 or (.name | test("^a"; "i"))"#).words == #"metrics/views ≥ 10 or name matches /^a/i"#)
        #expect(try Expression(#".tags | contains(["x"])"#).words == #"tags contains ["x"]"#)
    }
}

/// `body`'s result, computed on a new thread with a stack of `bytes`.
private func onSmallStack<T>(bytes: Int, _ body: @escaping () -> T) -> T {
    var result: T?
    let work = StackWork { result = body() }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, bytes)
    var thread = pthread_t()
    let started = pthread_create(&thread, &attributes, { argument in
        Unmanaged<StackWork>.fromOpaque(argument!).takeUnretainedValue().run()
        return nil
    }, Unmanaged.passUnretained(work).toOpaque())
    precondition(started == 0, "cannot start a thread")
    pthread_join(thread, nil)
    return result!
}

/// The work of `onSmallStack`'s thread.
private final class StackWork {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
