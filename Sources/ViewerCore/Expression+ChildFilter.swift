// An expression as the query engine's child filter (the engine knows no expression language).
import Expressions
import LiveQuery

extension Expression {
    /// The expression as a filter of a query's children: a child is kept when the expression
    /// has a value for it that is neither `false` nor `null`.
    public var childFilter: ChildFilter {
        let e = self
        return ChildFilter(text: text) { value, tape in e.keeps(value, in: tape) }
    }
}
