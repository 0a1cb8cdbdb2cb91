// The parsed form of an expression: what the evaluator walks.

/// One node of a parsed expression. Every form yields at most one value (or none, or an error),
/// which is what keeps the subset's evaluation a plain recursion.
indirect enum Syntax: Sendable {
    /// `.`
    case identity
    /// A constant: `1`, `"a"`, `true`, `null`.
    case literal(Value)
    /// `base.name`, `base."name"`, `base["name"]` with a constant name; `optional` (`base.name?`):
    /// an error of this last step becomes no value (one of `base` stays an error, as in jq).
    case field(Syntax, name: [UInt8], optional: Bool)
    /// `base[index]`; `index` is evaluated against the same input as `base`, as in jq.
    case index(Syntax, Syntax, optional: Bool)
    /// `body?` for other terms (`(…)?`): an error becomes no value.
    case optional(Syntax)
    /// `a | b`
    case pipe(Syntax, Syntax)
    case binary(BinaryOperator, Syntax, Syntax)
    case and(Syntax, Syntax)
    case or(Syntax, Syntax)
    /// `a // b`
    case alternative(Syntax, Syntax)
    /// `-a`
    case negate(Syntax)
    /// `[a, b]`
    case array([Syntax])
    case call(Builtin, [Syntax])
    /// `test(re; flags)` with a constant pattern, compiled once.
    case test(Pattern)
}

enum BinaryOperator: String, Sendable {
    case plus = "+", minus = "-", times = "*", divide = "/", modulo = "%"
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="

    var isComparison: Bool {
        switch self {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: true
        default: false
        }
    }
}

/// The functions of the subset, by their jq names and argument counts.
enum Builtin: String, Sendable, CaseIterable {
    case length, type, not, ascii_downcase, ascii_upcase
    case has, startswith, endswith, contains, select

    var arity: Int {
        switch self {
        case .length, .type, .not, .ascii_downcase, .ascii_upcase: 0
        case .has, .startswith, .endswith, .contains, .select: 1
        }
    }
}
