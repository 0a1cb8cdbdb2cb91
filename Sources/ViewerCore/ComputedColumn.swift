// A column whose cells an expression computes from each row: `ratio = .score / .level`.
import Expressions
import JSONTree
import LiveQuery

/// A column computed from each child by a jq expression (`=`, `--computed`): written
/// `name = expression`, or the expression alone, which is then the column's title.
public struct ComputedColumn: Hashable, Sendable {
    /// The name before ` = `, if one was given.
    public let name: String?
    public let expression: Expression
    /// The expression as written, without the name and the spaces around it.
    public let expressionText: String

    /// Parses `name = expression` or `expression`.
    /// - Throws: `ExpressionError` whose line and column count from the start of `definition`.
    public init(definition: String) throws(ExpressionError) {
        let scalars = Array(definition.unicodeScalars)
        let split = ComputedColumn.nameEnd(scalars)
        // The name's part is parsed as spaces, so that an error's column is the definition's.
        let padded = String(repeating: " ", count: split?.expressionStart ?? 0)
            + String(String.UnicodeScalarView(scalars[(split?.expressionStart ?? 0)...]))
        expression = try Expression(padded, context: "a computed column")
        name = split.map { String(String.UnicodeScalarView(scalars[$0.nameRange])) }
        expressionText = padded.trimmingSpaces
    }

    /// Where a leading `name =` ends: a name is a letter or `_`, then letters, digits and `_`,
    /// followed by one `=` (not `==`, which is the expression's).
    private static func nameEnd(_ s: [Unicode.Scalar]) -> (nameRange: Range<Int>, expressionStart: Int)? {
        func isWordStart(_ c: Unicode.Scalar) -> Bool { c == "_" || (c.isASCII && c.properties.isAlphabetic) }
        var i = 0
        while i < s.count, s[i] == " " { i += 1 }
        let start = i
        guard i < s.count, isWordStart(s[i]) else { return nil }
        while i < s.count, isWordStart(s[i]) || (s[i].isASCII && s[i].properties.numericType != nil) { i += 1 }
        let end = i
        while i < s.count, s[i] == " " { i += 1 }
        guard i < s.count, s[i] == "=", i + 1 >= s.count || s[i + 1] != "=" else { return nil }
        return (start..<end, i + 1)
    }

    /// What the column is called: its name, or the expression.
    public var title: String { name ?? expressionText }

    /// The definition as it can be typed again: `ratio = .score / .level`.
    public var definition: String { name.map { "\($0) = \(expressionText)" } ?? expressionText }

    public static func == (a: ComputedColumn, b: ComputedColumn) -> Bool { a.definition.utf8.elementsEqual(b.definition.utf8) }

    public func hash(into hasher: inout Hasher) { hasher.combine(definition) }

    /// The column's value for a child: a value, none, or jq's error.
    public func result(for child: JSONNode) -> ExpressionResult { expression.value(of: child) }

    /// The column as a query's order: the definition names it, so that a sort can name its column.
    public var childValue: ChildValue {
        let e = expression
        return ChildValue(text: definition) { value, tape in
            if case .value(let json) = e.value(of: value, in: tape) { return json }
            return nil
        }
    }

    /// The column a computed order sorts by.
    init?(_ value: ChildValue) {
        guard let column = try? ComputedColumn(definition: value.text) else { return nil }
        self = column
    }
}
