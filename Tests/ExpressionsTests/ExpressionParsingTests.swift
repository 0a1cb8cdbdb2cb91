#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import Testing
@testable import Expressions

@Suite struct ExpressionParsingTests {
    /// An expression jq does not accept is an error in jq's own words, with the place jq gives
    /// (its line, and the program's line on one line with it).
    @Test(arguments: [
        (".score >", "jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1: .score >"),
        (".score > 1 and", "jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1: .score > 1 and"),
        (".a >\n  ", "jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1: .a >"),
        ("(.a", "jq: error: syntax error, unexpected $end (Unix shell quoting issues?) at <top-level>, line 1: (.a"),
        (".a == 1 == 2", "jq: error: syntax error, unexpected == (Unix shell quoting issues?) at <top-level>, line 1: .a == 1 == 2"),
        ("\"abc", "jq: error: syntax error, unexpected $end, expecting QQSTRING_TEXT or QQSTRING_INTERP_START or QQSTRING_END"),
        (".a ! 1", "jq: error: syntax error, unexpected INVALID_CHARACTER, expecting $end (Unix shell quoting issues?) at <top-level>, line 1: .a ! 1"),
        (".é > 1", "jq: error: syntax error, unexpected INVALID_CHARACTER (Unix shell quoting issues?) at <top-level>, line 1: .é > 1; "
            + "jq: error: try .[\"field\"] instead of .field for unusually named fields at <top-level>, line 1: .é > 1"),
        (".a + * 2", "jq: error: syntax error, unexpected '*' (Unix shell quoting issues?) at <top-level>, line 1: .a + * 2"),
        ("length(1)", "jq: error: length/1 is not defined at <top-level>, line 1: length(1)"),
        ("map(.a", "jq: error: syntax error, unexpected $end, expecting ';' or ')' (Unix shell quoting issues?) at <top-level>, line 1: map(.a"),
        ("$x", "jq: error: $x is not defined at <top-level>, line 1: $x"),
    ])
    func errorsAreJQs(text: String, message: String) {
        do {
            _ = try Expression(text, context: "--where")
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.isJQs && error.description.hasPrefix(message), "\(String(reflecting: text)): \(error)")
        }
    }

    /// Nothing but spaces is no expression (jq's command line reads an empty program as `.`).
    @Test func anEmptyExpressionIsAnError() {
        #expect(throws: ExpressionError(Array("".unicodeScalars), at: 0, "expected a value")) { try Expression("") }
        #expect(throws: ExpressionError.self) { try Expression("  ") }
    }

    /// The native subset runs natively; every other form jq accepts runs on libjq, with jq's
    /// meaning (its runtime errors too).
    @Test(arguments: [
        (".score > 1 and .team == \"a\"", Evaluator.native, #"{"score": 2, "team": "a"}"#, "true"),
        (".name | test(\"^a\"; \"i\")", .native, #"{"name": "Ada"}"#, "true"),
        ("reduce .[] as $x (0; . + $x)", .jq, "[1, 2, 3]", "6"),
        (".tags | map(select(startswith(\"a\"))) | length", .jq, #"{"tags": ["ab", "b", "ac"]}"#, "2"),
        (".a[]", .jq, #"{"a": [3, 4]}"#, "3"),
        (".a, .b", .jq, #"{"a": 1, "b": 2}"#, "1"),
        ("{a: .b}", .jq, #"{"b": 5}"#, #"{"a": 5}"#),
        ("..", .jq, "[1]", "[1]"),
        (".a = 1", .jq, "{}", #"{"a": 1}"#),
        ("\"a\\(.b)\"", .jq, #"{"b": 2}"#, #""a2""#),
        ("if .a then 1 else 2 end", .jq, #"{"a": false}"#, "2"),
        (".a[1:2]", .jq, #"{"a": [1, 2, 3]}"#, "[2]"),
        ("@csv", .jq, #"[1, "a"]"#, #""1,\"a\"""#),
        (".a | test(ascii_upcase; \"i\")", .jq, #"{"a": "xyz"}"#, "true"),
        ("startswith(\"a\", \"b\")", .jq, #""bc""#, "false"),
    ])
    func everyFormJQAcceptsRuns(text: String, evaluator: Evaluator, input: String, first: String) throws {
        let e = try Expression(text, context: "--where")
        #expect(e.evaluator == evaluator)
        let document = try JSONDocument(parsing: input)
        #expect(e.value(of: document.root) == .value(try JSONDocument(parsing: first).root.json), "\(text)")
    }

    /// libjq's runtime errors are jq's messages, and no value is `.empty`; a filter keeps a child
    /// when any of the values is true, and an error before one drops it.
    @Test func libjqResultsAndTruthiness() throws {
        let document = try JSONDocument(parsing: #"{"a": [false, null, 3], "b": [null, false], "c": "x"}"#)
        func result(_ text: String) throws -> ExpressionResult { try Expression(text).value(of: document.root) }
        func keeps(_ text: String) throws -> Bool {
            let e = try Expression(text)
            return document.withTapeReader { e.keeps(0, in: $0) }
        }
        #expect(try result(".c[]") == .error("Cannot iterate over string (\"x\")"))
        #expect(try result("error(\"custom\")") == .error("custom"))
        #expect(try result("error({a: 1})") == .error(#"(not a string): {"a":1}"#))
        #expect(try result("empty") == .empty)
        #expect(try result(".a[]") == .value(false))
        #expect(try keeps(".a[]"))
        #expect(try !keeps(".b[]"))
        #expect(try !keeps("empty"))
        #expect(try !keeps(".c[]"))
        #expect(try keeps("(.a[] | select(. == 3)), error(\"after\")"))
        #expect(try !keeps("error(\"before\"), true"))
        #expect(try !keeps("halt_error"))
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
    /// quarter of the stack threads have here (8 MiB), even in an unoptimized build (the largest
    /// frames): room to spare.
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
