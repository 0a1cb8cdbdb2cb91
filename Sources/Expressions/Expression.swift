// A filter in jq's syntax, parsed once and evaluated on the children of a parsed document.
import CJQ
import JSONTree

/// An expression in jq's language: what filters and computes values from a child.
///
/// Two evaluators run one language, and the user never chooses: an expression of the native
/// subset runs natively (the fast path), any other that jq 1.6 accepts is compiled once by libjq.
/// An expression jq rejects is an error with jq's own message.
///
/// The native subset: paths (`.score`, `.metrics.views`, `.["odd key"]`, `."odd key"`, `.[0]`,
/// `.[-1]`), `?`, literals (numbers, strings, `true`, `false`, `null`, `[a, b]`), comparisons in
/// jq's order (null < false < true < numbers < strings < arrays < objects), `and`, `or`, `not`,
/// `+ - * / %`, `//`, `|`, parentheses, and `length`, `has(k)`, `test(re; flags)` with constant
/// strings, `startswith(s)`, `endswith(s)`, `contains(x)`, `ascii_downcase`, `ascii_upcase`,
/// `type`, `select(f)`. Every form yields at most one value. It reads the child where it lies in
/// the document (its tape): a child the filter rejects is never turned into a `JSON` value.
///
/// libjq runs the rest on each child the query reaches, built from the tape into jq's values
/// once per evaluation. A filter keeps a child when any of the values the expression
/// gives for it is neither `false` nor `null` (as `.[] | select(f)` prints it); a computed column
/// takes the first value.
///
/// ```swift
/// let e = try Expression(".score > 100 and .team == \"a\"")
/// doc.withTapeReader { tape in e.keeps(valueIndex, in: tape) }   // true or false
/// e.value(of: node)                                               // .value(JSON), .empty or .error
/// e.evaluator                                                     // .native
/// ```
public struct Expression: Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    let engine: Engine

    enum Engine: Sendable {
        case native(Syntax)
        case jq(JQProgram)
    }

    /// Parses `text`: natively when it is in the subset, else with libjq.
    /// - Parameter context: where the expression comes from (kept for the native parser's words).
    /// - Throws: `ExpressionError`: jq's message for an expression jq does not accept; the
    ///   native one, with its line and column, for nothing but spaces and for nesting deeper
    ///   than `Parser.maximumDepth` (jq's compiler recurses over the nesting as well, on
    ///   whichever thread parses, so the limit is kept for both).
    public init(_ text: String, context: String = "a filter") throws(ExpressionError) {
        self.text = text
        do {
            var parser = try Parser(text, context: context)
            engine = .native(try parser.parse())
        } catch {
            // jq reads an empty program as `.`, a quirk of its command line, not a filter typed;
            // a refusal that is final (too deep, a regex outside linear time) stays the answer.
            if error.isFinal || text.allSatisfy(\.isWhitespace) { throw error }
            try Parser.checkBracketDepth(text)
            do { engine = .jq(try JQProgram(text)) } catch { throw ExpressionError(jq: error.message) }
        }
    }

    /// `text` run by `evaluator` alone (to compare the two on the native subset).
    /// - Throws: the evaluator's own error (the native parser's for text outside its subset).
    init(_ text: String, evaluator: Evaluator) throws(ExpressionError) {
        self.text = text
        switch evaluator {
        case .native:
            var parser = try Parser(text, context: "a filter")
            engine = .native(try parser.parse())
        case .jq:
            do { engine = .jq(try JQProgram(text)) } catch { throw ExpressionError(jq: error.message) }
        }
    }

    /// Two expressions with the same text are the same expression.
    public static func == (a: Expression, b: Expression) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

    public var description: String { text }

    /// Which evaluator runs the expression: a filter's cost depends on it.
    public var evaluator: Evaluator {
        switch engine {
        case .native: .native
        case .jq: .jq
        }
    }

    /// Whether the value at tape node `node` passes: the expression has a value for it that is
    /// neither `false` nor `null` (no value, or an error, does not pass — as `select` drops it).
    /// With libjq, any of its values passing passes (it stops at the first that does).
    public func keeps(_ node: Int, in tape: TapeReader) -> Bool {
        switch engine {
        case .native(let syntax):
            let reader = Reader(tape: tape)
            guard let v = try? reader.eval(syntax, .node(node)) else { return false }
            return reader.isTruthy(v)
        case .jq(let program):
            var kept = false
            try? program.run(tape.jqValue(node)) { v in
                let kind = jv_get_kind(v)
                kept = kind != JV_KIND_NULL && kind != JV_KIND_FALSE
                return !kept
            }
            return kept
        }
    }

    /// The expression's result for the value at tape node `node`: with libjq, its first value.
    public func value(of node: Int, in tape: TapeReader) -> ExpressionResult {
        switch engine {
        case .native(let syntax):
            let reader = Reader(tape: tape)
            do {
                guard let v = try reader.eval(syntax, .node(node)) else { return .empty }
                return .value(reader.json(v))
            } catch {
                return .error(error.message)
            }
        case .jq(let program):
            var first: JSON?
            do {
                try program.run(tape.jqValue(node)) { v in
                    first = JQState.json(jv_copy(v))
                    return false
                }
            } catch {
                return .error(error.message)
            }
            return first.map(ExpressionResult.value) ?? .empty
        }
    }

    /// The expression's result for `node`.
    public func value(of node: JSONNode) -> ExpressionResult {
        node.document.withTapeReader { value(of: node.index, in: $0) }
    }

    /// The member names of a plain path of members (`.metadata.name`, `.["a b"]`, with or
    /// without `?`), first to last; nil for any other expression. Where each step reaches an
    /// object and the last a string, that string is the expression's value: a reader that needs
    /// only such values (a fold's keys) can follow the names on the tape without evaluating.
    public var memberPath: [[UInt8]]? {
        guard case .native(var syntax) = engine else { return nil }
        var names: [[UInt8]] = []
        while case .field(let base, let name, _) = syntax {
            names.append(name)
            syntax = base
        }
        guard case .identity = syntax, !names.isEmpty else { return nil }
        return names.reversed()
    }

    /// The expression in words, for a status bar: `score > 100 and team = "a"`; one libjq runs
    /// is shown as written.
    public var words: String {
        switch engine {
        case .native(let syntax): Words.render(syntax)
        case .jq: String(text.unicodeScalars.split { $0 == "\n" || $0 == "\r" }.map(String.init).joined(separator: " "))
        }
    }

    /// The words and the evaluator that runs the expression, for the cost to be visible:
    /// `score > 100 (native)`, `.tags | map(.a) (jq)`.
    public var wordsAndEvaluator: String { "\(words) (\(evaluator.rawValue))" }
}

/// Which of the two evaluators runs an expression.
public enum Evaluator: String, Sendable {
    /// The native subset, evaluated on the document's tape.
    case native
    /// libjq (jq 1.6), run on each child's value.
    case jq
}

/// What an expression gives for one input.
public enum ExpressionResult: Sendable, Equatable {
    case value(JSON)
    /// No value (`.a?` on a number, a `select` that fails).
    case empty
    /// jq's error, e.g. `Cannot index number with "a"`.
    case error(String)
}
