// A window's invariants, written down as code and checked by the tests.

extension Window {
    /// What is wrong with this window's internal state; empty when its invariants hold:
    /// the members are exactly the children in range that the filters keep, up to (or from) the boundary — all of them
    /// without a boundary — in strict query order; a limited window keeps at most its rows and
    /// twice its reserve; the rows are the limit's end of the members.
    /// - Complexity: O(n log n): it re-reads every child.
    func invariantViolations() -> [String] {
        var problems = [String]()
        children.document.withTapeReader { tape in
            let arena = ByteArena()
            let plan = QueryPlan(query, arena: arena)
            let bound = boundary?.sortKey(in: arena)
            let fromEnd: Bool
            if case .last = query.limit { fromEnd = true } else { fromEnd = false }
            var expected = [Entry]()
            for o in 0..<children.count {
                let k = plan.sortKey(o, children, tape, arena)
                guard plan.inRange(k), plan.keeps(o, children, tape) else { continue }
                if let bound {
                    let c = compareSortKeys(k, bound)
                    if fromEnd ? c < 0 : c > 0 { continue }
                }
                expected.append(Entry(key: k, ordinal: Int32(o)))
            }
            expected.sort(by: entryLess)
            if expected.map(\.ordinal) != Array(members) {
                problems.append("members \(Array(members)) are not the children in range within the boundary \(expected.map(\.ordinal))")
            }
            if let limit = query.limit {
                if members.count > keptMembers(forLimit: limit.count) + reserve(forLimit: limit.count) {
                    problems.append("\(members.count) members for \(limit)")
                }
                if boundary != nil && members.count < limit.count { problems.append("too few members to fill the window") }
            } else if boundary != nil {
                problems.append("an unlimited window with a boundary")
            }
        }
        return problems
    }
}
