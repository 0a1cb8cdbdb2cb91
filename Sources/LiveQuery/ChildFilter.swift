// A condition on each child besides a query's range: how an expression filter reaches the engine.
import JSONTree

/// A condition a child's value must meet to be in a query's window, besides the query's range:
/// an expression filter such as `.score > 100 and .team == "a"`. The query orders and ranges the
/// children, its filters keep some of them, and a limit counts the children kept.
///
/// The engine knows only this closure, so that it needs no expression language of its own; the
/// `Expressions` module (or any other) supplies it:
///
/// ```swift
/// let e = try Expression(".score > 100")
/// let query = try Query().orderByChild("score").limitToLast(10)
///     .filtered(by: ChildFilter(text: e.text) { value, tape in e.keeps(value, in: tape) })
/// ```
public struct ChildFilter: Sendable {
    /// The filter as written: two filters with the same text are the same filter.
    public let text: String
    /// Whether the child whose value is tape node `value` is kept. It must depend on that value
    /// alone (the engine re-evaluates only children whose bytes changed) and may be called from
    /// several threads at once.
    public let keeps: @Sendable (_ value: Int, _ tape: TapeReader) -> Bool

    public init(text: String, keeps: @escaping @Sendable (_ value: Int, _ tape: TapeReader) -> Bool) {
        self.text = text
        self.keeps = keeps
    }
}

extension Query {
    /// How many children at `path` in `document` the query selects: those in its range that
    /// every filter keeps, at most its limit. Nothing is sorted and no window is built.
    /// - Complexity: O(n) over the n children, each read once.
    public func count(at path: Path = .root, in document: JSONDocument) -> Int {
        let children = ChildList(document: document, path: path)
        var n = 0
        document.withTapeReader { tape in
            let arena = ByteArena()
            let plan = QueryPlan(self, arena: arena)
            let ranged = start != nil || end != nil
            for o in 0..<children.count {
                if ranged {
                    let k = plan.sortKey(o, children, tape, arena)
                    guard plan.inRange(k) else { continue }
                }
                if plan.keeps(o, children, tape) { n += 1 }
            }
        }
        return limit.map { Swift.min($0.count, n) } ?? n
    }
}
