// How many children a query selects in a revision, its limit aside: what a user could page to.
import JSONTree

extension Window {
    /// The children in the query's range in this revision, whatever its limit, that its filters
    /// keep and that also pass `predicate` (nil: all of them) — the rows the query would show
    /// without a limit.
    ///
    /// Without a predicate and with every child in range already among the members (an
    /// unlimited query, or a limit that took them all), this costs nothing; otherwise it reads
    /// one sort key per child.
    /// - Complexity: O(1) or O(n) in the children of the location.
    public func selectedCount(passing predicate: ((JSONNode) -> Bool)? = nil) -> Int {
        if boundary == nil && predicate == nil { return members.count }
        var n = 0
        children.document.withTapeReader { tape in
            let arena = ByteArena()
            let plan = QueryPlan(query, arena: arena)
            for o in 0..<children.count where plan.inRange(plan.sortKey(o, children, tape, arena)) && plan.keeps(o, children, tape) {
                if predicate?(children.value(o)) ?? true { n += 1 }
            }
        }
        return n
    }

    /// Of the children the query selects (its limit aside), those with no value for its order:
    /// missing, null, or for a computed order no value or an error. With `Query.valuesFirst()`
    /// they are the ones after every value, which a viewer counts in its status bar.
    /// - Complexity: O(n) in the children of the location (one sort key each).
    public func valuelessCount() -> Int {
        var n = 0
        children.document.withTapeReader { tape in
            let arena = ByteArena()
            let plan = QueryPlan(query, arena: arena)
            for o in 0..<children.count {
                let k = plan.sortKey(o, children, tape, arena)
                if k.rank == plan.nullRank, plan.inRange(k), plan.keeps(o, children, tape) { n += 1 }
            }
        }
        return n
    }

    /// The place of the child `key` among every child the query selects, its limit aside (0 is
    /// the first in the query's order); nil when that child does not exist or is out of range.
    /// It finds where a row went when it moved past the rows loaded.
    /// - Complexity: O(n) in the children of the location.
    public func selectedIndex(ofKey key: String) -> Int? {
        let target = Array(key.utf8)
        guard let found = (0..<children.count).first(where: { o in children.withKeyBytes(o) { $0.elementsEqual(target) } })
        else { return nil }
        var index: Int?
        children.document.withTapeReader { tape in
            let arena = ByteArena()
            let plan = QueryPlan(query, arena: arena)
            let place = plan.sortKey(found, children, tape, arena)
            guard plan.inRange(place), plan.keeps(found, children, tape) else { return }
            var before = 0
            for o in 0..<children.count where o != found {
                let k = plan.sortKey(o, children, tape, arena)
                if plan.inRange(k) && compareSortKeys(k, place) < 0 && plan.keeps(o, children, tape) { before += 1 }
            }
            index = before
        }
        return index
    }
}
