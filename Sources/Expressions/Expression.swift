// A filter in jq's syntax, parsed once and evaluated on the children of a parsed document.
import JSONTree

/// An expression in a subset of jq: what filters and computes one value from a child.
///
/// The subset: paths (`.score`, `.metrics.views`, `.["odd key"]`, `."odd key"`, `.[0]`, `.[-1]`),
/// `?`, literals (numbers, strings, `true`, `false`, `null`, `[a, b]`), comparisons in jq's order
/// (null < false < true < numbers < strings < arrays < objects), `and`, `or`, `not`, `+ - * / %`,
/// `//`, `|`, parentheses, and `length`, `has(k)`, `test(re; flags)`, `startswith(s)`,
/// `endswith(s)`, `contains(x)`, `ascii_downcase`, `ascii_upcase`, `type`, `select(f)`. Every
/// form yields at most one value. Anything else is an error naming what is not supported.
///
/// Evaluation reads the child where it lies in the document (its tape): a child the filter
/// rejects is never turned into a `JSON` value.
///
/// ```swift
/// let e = try Expression(".score > 100 and .team == \"a\"")
/// doc.withTapeReader { tape in e.keeps(valueIndex, in: tape) }   // true or false
/// e.value(of: node)                                               // .value(JSON), .empty or .error
/// ```
public struct Expression: Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    let syntax: Syntax

    /// Parses `text`.
    /// - Parameter context: where the expression comes from, for the errors about forms outside
    ///   the subset (`'reduce' is not supported in --where`).
    /// - Throws: `ExpressionError` with the line and column of the problem.
    public init(_ text: String, context: String = "a filter") throws(ExpressionError) {
        var parser = try Parser(text, context: context)
        syntax = try parser.parse()
        self.text = text
    }

    /// Two expressions with the same text are the same expression.
    public static func == (a: Expression, b: Expression) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

    public var description: String { text }

    /// Whether the value at tape node `node` passes: the expression has a value for it that is
    /// neither `false` nor `null` (no value, or an error, does not pass — as `select` drops it).
    public func keeps(_ node: Int, in tape: TapeReader) -> Bool {
        let reader = Reader(tape: tape)
        guard let v = try? reader.eval(syntax, .node(node)) else { return false }
        return reader.isTruthy(v)
    }

    /// The expression's result for the value at tape node `node`.
    public func value(of node: Int, in tape: TapeReader) -> ExpressionResult {
        let reader = Reader(tape: tape)
        do {
            guard let v = try reader.eval(syntax, .node(node)) else { return .empty }
            return .value(reader.json(v))
        } catch {
            return .error(error.message)
        }
    }

    /// The expression's result for `node`.
    public func value(of node: JSONNode) -> ExpressionResult {
        node.document.withTapeReader { value(of: node.index, in: $0) }
    }

    /// The expression in words, for a status bar: `score > 100 and team = "a"`.
    public var words: String { Words.render(syntax) }
}

/// What an expression gives for one input.
public enum ExpressionResult: Sendable, Equatable {
    case value(JSON)
    /// No value (`.a?` on a number, a `select` that fails).
    case empty
    /// jq's error, e.g. `Cannot index number with "a"`.
    case error(String)
}
