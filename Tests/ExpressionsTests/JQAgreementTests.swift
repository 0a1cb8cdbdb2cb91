import JSONTree
import Testing
import TestSupport
@testable import Expressions

/// Random children: the fields filters look at, of every kind, and values that are not objects.
private func randomChild(_ rng: inout SplitMix64) -> JSON {
    if rng.chance(0.1) { return rng.pick([.null, true, 3, "c", [1, "a"], [:]] as [JSON]) }
    var members: [(key: String, value: JSON)] = []
    func maybe(_ key: String, _ p: Double, _ value: @autoclosure () -> JSON) { if rng.chance(p) { members.append((key, value())) } }
    let scores: [JSON] = [0, 1, -1, 2.5, 42, 500000, 500001, 1e6, -0.5, "12", .null, true, 7]
    maybe("score", 0.85, rng.pick(scores))
    maybe("level", 0.7, rng.pick([1, 2, 3, 0, 10, 0.5, .null] as [JSON]))
    maybe("team", 0.8, rng.pick(["a", "b", "c", "A", "", "ab", 1, .null] as [JSON]))
    maybe("name", 0.8, rng.pick(["Ada", "ada lovelace", "Grace Hopper", "ALAN", "zoë", "é", "a,b", "line\nbreak", ""] as [JSON]))
    maybe("tags", 0.5, rng.pick([[], ["x"], ["x", "y"], ["y", 1], [["x"]], "x"] as [JSON]))
    maybe("metrics", 0.5, rng.pick([["views": 10, "likes": 2], ["views": 0], [:], ["views": "many"], 5, .null] as [JSON]))
    maybe("active", 0.5, rng.pick([true, false, .null] as [JSON]))
    maybe("odd key", 0.3, rng.pick(["v", 1, [:]] as [JSON]))
    return .object(JSONObject(members))
}

/// A random expression of the subset, as text, at most `depth` deep.
private struct ExpressionGenerator {
    var rng: SplitMix64
    /// The paths expressions read; `withOddPaths` adds the odd children's.
    var paths = Self.commonPaths

    static let commonPaths = [
        ".score", ".level", ".team", ".name", ".tags", ".metrics", ".metrics.views", ".metrics?.views", ".active",
        ".[\"odd key\"]", ".\"odd key\"", ".tags[0]", ".tags[-1]", ".tags[1]?", ".missing", ".", ".score?", ".name.first?",
        ".metrics[\"views\"]", ".tags[.level]?",
    ]
    static let literals = ["0", "1", "2", "-1", "0.5", "500000", "\"a\"", "\"c\"", "\"Ada\"", "\"\"", "null", "true", "false", "[]", "[\"x\"]", "[1, \"a\"]"]
    static let strings = ["\"a\"", "\"A\"", "\"ad\"", "\"x\"", "\"\"", "\"ov\"", "\"er\"", "\"é\""]

    mutating func path() -> String { rng.pick(paths) }
    mutating func literal() -> String { rng.pick(Self.literals) }

    mutating func value(_ depth: Int) -> String {
        if depth <= 0 { return rng.chance(0.7) ? path() : literal() }
        switch rng.int(0..<11) {
        case 0, 1, 2: return path()
        case 3: return literal()
        case 4:
            // Arithmetic with a path on one side (jq 1.6 folds two constants without its checks).
            let op = rng.pick(["+", "-", "*", "/", "%"])
            return rng.chance(0.5) ? "(\(path()) \(op) \(value(depth - 1)))" : "(\(value(depth - 1)) \(op) \(path()))"
        case 5: return "(\(value(depth - 1)) | \(rng.pick(["length", "type", "ascii_downcase", "ascii_upcase", "not"])))"
        case 6: return "(\(value(depth - 1)) // \(value(depth - 1)))"
        case 7: return "-\(path())"
        case 8: return "[\(value(depth - 1)), \(value(depth - 1))]"
        case 9: return "(\(path()) | \(rng.pick(["has(\"views\")", "has(0)", "startswith(\(rng.pick(Self.strings)))", "endswith(\(rng.pick(Self.strings)))", "contains(\(rng.pick(Self.strings + ["[\"x\"]", "[]"])))"])))"
        default: return "(\(condition(depth - 1)))"
        }
    }

    mutating func condition(_ depth: Int) -> String {
        if depth <= 0 { return "\(path()) \(rng.pick(["==", "!=", "<", "<=", ">", ">="])) \(literal())" }
        switch rng.int(0..<7) {
        case 0, 1: return "\(value(depth - 1)) \(rng.pick(["==", "!=", "<", "<=", ">", ">="])) \(value(depth - 1))"
        case 2: return "\(condition(depth - 1)) and \(condition(depth - 1))"
        case 3: return "(\(condition(depth - 1)) or \(condition(depth - 1)))"
        case 4: return "(\(condition(depth - 1)) | not)"
        case 5:
            let flags = rng.pick(["", "; \"i\"", "; null", "; \"x\""])
            return "(\(rng.pick([".name", ".team", ".score", ".tags"])) | test(\(rng.pick(["\"^a\"", "\"a$\"", "\"[0-9]\"", "\"o.e\"", "\"^$\"", "\"A\"", "\"e\\\\b\""]))\(flags)))"
        default: return "(\(path()) | select(\(condition(depth - 1))))"
        }
    }
}

/// A child with what text rarely has: odd and non-ASCII keys, numbers past a double's precision
/// or range, nulls, NUL and other escapes, nesting where a path expects a scalar, or nothing.
private func oddChild(_ rng: inout SplitMix64) -> JSON {
    if rng.chance(0.15) { return rng.pick([.null, false, 0, "", [], [:], "é", 1e300] as [JSON]) }
    var members: [(key: String, value: JSON)] = []
    let numbers: [JSON] = [.number(JSONNumber(text: "123456789012345678901234567890")!), .number(JSONNumber(text: "1e400")!),
                           .number(JSONNumber(text: "-1e400")!), .number(JSONNumber(text: "-0")!), .number(JSONNumber(text: "5e-324")!),
                           .number(JSONNumber(text: "9007199254740993")!), 1e300, -2.5, 0, 3]
    let strings: [JSON] = ["é", "日本語", "Zoë", "a\u{0}b", "\u{0}", "😀 emoji", "tab\there", "ÅNGSTRÖM", "", "a"]
    let anything = numbers + strings + [.null, true, false, [], [:], ["é": 1], [1, "é", .null], ["": ["": 2]]]
    for key in ["score", "name", "é", "", "日本", "a.b", "odd key", "tags", "metrics", "\u{0}k", "score"] where rng.chance(0.45) {
        members.append((key, rng.pick(anything)))
    }
    return .object(JSONObject(members))
}

@Suite struct JQAgreementTests {
    /// The two evaluators side by side: for generated expressions of the native subset and
    /// random children (odd keys, big numbers, nulls, missing paths, non-ASCII), the native one
    /// and libjq give the same value, no value, or both an error — and a filter keeps the same
    /// children. Errors are compared as errors only: both evaluators raise jq's messages, but
    /// the native one words a few differently (a long value's rendering in `describe`, the
    /// order jq 1.6 checks things in), which is not what this test is about.
    @Test func nativeEvaluatorAgreesWithLibjq() throws {
        var rng = SplitMix64(seed: 0x11B_3A)
        let children = (0..<60).map { _ in rng.chance(0.5) ? oddChild(&rng) : randomChild(&rng) }
        var generator = ExpressionGenerator(rng: SplitMix64(seed: 0xA9_3E))
        generator.paths += [".[\"é\"]", ".\"日本\"", ".[\"\"]", ".[\"\"][\"\"]?", ".[\"a.b\"]", ".[\"\\u0000k\"]", ".é?", ".name[0]?"]
        var texts = [String]()
        while texts.count < 300 { texts.append(generator.rng.chance(0.6) ? generator.condition(2) : generator.value(2)) }
        // Not every path above is in the subset (`.é`): only the expressions the native parser takes.
        let pairs = texts.compactMap { text in
            (try? Expression(text, evaluator: .native)).map { native in (text, native, try? Expression(text, evaluator: .jq)) }
        }
        try #require(pairs.count >= 250)
        let document = try JSONDocument(parsing: JSON.array(children).serializedString())
        let nodes = Array(document.root.elements)
        var disagreements = [String]()
        for (text, native, jq) in pairs {
            guard let jq else {
                disagreements.append("libjq rejects \(text)")
                continue
            }
            for (c, node) in nodes.enumerated() {
                let (a, b) = (native.value(of: node), jq.value(of: node))
                let same = switch (a, b) {
                case (.error, .error): true
                default: a == b
                }
                if !same { disagreements.append("\(text) on \(children[c].serializedString()): native \(a), libjq \(b)") }
                let (keptA, keptB) = document.withTapeReader { (native.keeps(node.index, in: $0), jq.keeps(node.index, in: $0)) }
                if keptA != keptB { disagreements.append("keeps(\(text)) on \(children[c].serializedString()): native \(keptA)") }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, first: \(disagreements.prefix(5))")
    }

    /// The evaluator agrees with jq (Debian's) on every value, every "no value" and every error,
    /// for random children and a generated corpus of expressions: one jq process for all.
    @Test func evaluatorAgreesWithJQ() throws {
        var rng = SplitMix64(seed: 0x5107_38)
        let children = (0..<50).map { _ in randomChild(&rng) }
        var generator = ExpressionGenerator(rng: SplitMix64(seed: 0xE4_9E))
        var texts = [String]()
        while texts.count < 160 { texts.append(generator.rng.chance(0.6) ? generator.condition(2) : generator.value(2)) }
        let expressions = try texts.map { try Expression($0) }

        let folder = ScratchFolder("jq-agreement")
        let input = folder.write("children.json", JSON.array(children).serializedString())
        // Per child, per expression: [] (no value), [v], or the string "ERROR".
        let program = ".[] | [" + texts.map { "(try [\($0)] catch \"ERROR\")" }.joined(separator: ", ") + "]"
        let programFile = folder.write("program.jq", program)
        let jq = try runProgram("/usr/bin/jq", ["-c", "-f", programFile, input])
        try #require(jq.status == 0, "jq failed: \(jq.errors)")
        let lines = jq.output.split(separator: "\n")
        try #require(lines.count == children.count)

        let document = try JSONDocument(parsing: JSON.array(children).serializedString())
        let nodes = Array(document.root.elements)
        var disagreements = [String]()
        for (c, line) in lines.enumerated() {
            let expected = try #require(try JSONDocument(parsing: String(line)).root.json.arrayValue)
            for (e, expression) in expressions.enumerated() {
                let got: JSON
                switch expression.value(of: nodes[c]) {
                case .value(let v): got = [v]
                case .empty: got = []
                case .error: got = "ERROR"
                }
                if got != expected[e] {
                    disagreements.append("\(texts[e]) on \(children[c].serializedString()): jq \(expected[e].serializedString()), here \(got.serializedString())")
                }
                let passes = document.withTapeReader { expression.keeps(nodes[c].index, in: $0) }
                let truthy = if case .array(let a) = expected[e], let v = a.first { v != .null && v != false } else { false }
                if passes != truthy { disagreements.append("keeps(\(texts[e])) on \(children[c].serializedString()) is \(passes)") }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, first: \(disagreements.prefix(5))")
    }
}
