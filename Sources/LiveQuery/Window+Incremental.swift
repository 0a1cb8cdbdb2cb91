// Moving a window to the next revision by looking only at what changed.
import JSONTree

extension Window {
    /// This window's query over a newer revision, with the events and batch between the two.
    ///
    /// Children are matched between the revisions by their bytes (`ChildMatch`): unchanged
    /// children keep their order, so the new window is the old one with removed and re-sorted
    /// rows taken out, and changed or added children in range inserted by binary search. A
    /// limited window keeps a reserve of members past its last row; only when leaving rows
    /// exhaust it is the new revision evaluated from scratch.
    /// - Complexity: O(n) integer work over the n children, plus O(d log n) comparisons for
    ///   the d children added or changed; O(n + k log k) when a limited window must be refilled.
    public func advanced(to document: JSONDocument) -> WindowChange {
        let newChildren = ChildList(document: document, path: path)
        let match = ChildMatch(old: children, new: newChildren)
        let next: Window
        if match.isIdentity {
            next = Window(query: query, path: path, children: newChildren, members: members, boundary: boundary)
        } else {
            next = advancedMembers(newChildren, match) ?? Window.evaluate(query, path, newChildren)
        }
        return WindowChange(old: self, new: next, match: match)
    }

    /// The next window from this one's members; nil when a limited window must be refilled by
    /// a full evaluation.
    private func advancedMembers(_ newChildren: ChildList, _ match: ChildMatch) -> Window? {
        children.document.withTapeReader { ot in
            newChildren.document.withTapeReader { nt in
                let arena = ByteArena()
                let plan = QueryPlan(query, arena: arena)
                let bound = boundary?.sortKey(in: arena)
                let fromEnd: Bool
                if case .last = query.limit { fromEnd = true } else { fromEnd = false }
                // The members' invariant: every child in range, up to (or from) the boundary.
                func isMember(_ k: SortKey) -> Bool {
                    guard plan.inRange(k) else { return false }
                    guard let bound else { return true }
                    let c = compareSortKeys(k, bound)
                    return fromEnd ? c >= 0 : c <= 0
                }
                func newKey(_ n: Int) -> SortKey { plan.sortKey(n, newChildren, nt, arena) }
                func oldKey(_ o: Int) -> SortKey { plan.sortKey(o, children, ot, arena) }

                // Members that keep their place: unchanged, or changed without a new sort value.
                var kept = [Int32]()
                kept.reserveCapacity(members.count + match.dirty.count)
                for m in members {
                    let n = match.newOrdinal(ofOld: Int(m))
                    guard n >= 0 else { continue }
                    if match.isChanged(new: n) && !sameSortValue(oldKey(Int(m)), newKey(n)) { continue }
                    kept.append(Int32(n))
                }
                // Added children, and changed children with a new sort value, that are members now.
                var arriving = [Entry]()
                for d in match.dirty {
                    let n = Int(d)
                    let k = newKey(n)
                    let o = match.oldOrdinal(ofNew: n)
                    if o >= 0 {
                        let ok = oldKey(o)
                        if sameSortValue(ok, k) { continue }  // kept in place, or still not a member
                    }
                    if isMember(k) { arriving.append(Entry(key: k, ordinal: d)) }
                }
                arriving.sort(by: entryLess)
                // Merge: binary-search each arriving child's place among the kept ones.
                var merged = [Int32]()
                merged.reserveCapacity(kept.count + arriving.count)
                var from = 0
                for a in arriving {
                    var lo = from, hi = kept.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if compareSortKeys(newKey(Int(kept[mid])), a.key) < 0 { lo = mid + 1 } else { hi = mid }
                    }
                    merged.append(contentsOf: kept[from..<lo])
                    merged.append(a.ordinal)
                    from = lo
                }
                merged.append(contentsOf: kept[from...])

                var nextBoundary = boundary
                if let limit = query.limit {
                    let k = limit.count
                    // Too few members to fill the window, and children past the boundary unknown.
                    if boundary != nil && merged.count < k { return nil }
                    // Too many: keep the rows and a reserve, and remember where they end.
                    let keep = keptMembers(forLimit: k)
                    if merged.count > keep + reserve(forLimit: k) {
                        if fromEnd {
                            merged.removeFirst(merged.count - keep)
                            nextBoundary = StoredSortKey(newKey(Int(merged[0])))
                        } else {
                            merged.removeLast(merged.count - keep)
                            nextBoundary = StoredSortKey(newKey(Int(merged[keep - 1])))
                        }
                    }
                }
                return Window(query: query, path: path, children: newChildren, members: merged, boundary: nextBoundary)
            }
        }
    }
}
