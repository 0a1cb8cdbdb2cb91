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
        let (newChildren, match) = Window.matchChildren(children, document, path)
        if match.isIdentity {
            let same = Window(query: query, path: path, children: newChildren, members: members, boundary: boundary)
            return WindowChange(unchanged: self, next: same)
        }
        switch advancedMembers(newChildren, match) {
        case let (window, .patch(patch))?:
            return WindowChange(old: self, new: window, patch: patch)
        case let (window, .members(previous, changed))?:
            return WindowChange(old: self, new: window, previousMember: previous, changedMember: changed)
        case nil:
            return WindowChange(old: self, new: Window.evaluate(query, path, newChildren), match: match)
        }
    }

    /// The children at `path` in `document`, paired with `old`'s: derived from `old` around what
    /// the edit changed when possible (`ChildList.derived`), else read in full.
    static func matchChildren(_ old: ChildList, _ document: JSONDocument, _ path: Path) -> (ChildList, ChildMatch) {
        // A document re-parsed from the old one knows the ends they share; else they are compared.
        let (cp, cs) = document.sharedEnds(with: old.document) ?? old.document.bytes.sharedEnds(with: document.bytes)
        if let d = ChildList.derived(from: old, document: document, path: path, commonPrefix: cp, commonSuffix: cs) {
            return (d.list, ChildMatch(old: old, new: d.list, prefix: d.prefix, suffix: d.suffix))
        }
        let list = ChildList(document: document, path: path)
        return (list, ChildMatch(old: old, new: list))
    }

    /// The next window from this one's members, with, for each new member, the index of the old
    /// member it was (-1 for none) and whether its value changed; nil when a limited window must
    /// be refilled by a full evaluation.
    private func advancedMembers(_ newChildren: ChildList, _ match: ChildMatch) -> (window: Window, changes: MemberChanges)? {
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

                // The old members are sorted by their old sort keys, and a member that keeps its
                // sort value keeps its key: so an old member's old key places it among the new ones.
                func oldPlace(_ k: SortKey) -> Int {
                    var lo = 0, hi = members.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if compareSortKeys(oldKey(Int(members[mid])), k) < 0 { lo = mid + 1 } else { hi = mid }
                    }
                    return lo
                }
                // Arrivals: added children, and changed children with a new sort value (or newly
                // kept by a filter), that are members now — each with its place among the old members and its old member index.
                var arriving = [(entry: Entry, place: Int, previous: Int32)]()
                for d in match.dirty {
                    let n = Int(d)
                    let k = newKey(n)
                    let o = match.oldOrdinal(ofNew: n)
                    var previous: Int32 = -1
                    if o >= 0 {
                        let ok = oldKey(o)
                        let same = sameSortValue(ok, k)
                        if same && plan.filters.isEmpty { continue }  // kept in place, or still not a member
                        let at = oldPlace(ok)
                        let wasMember = at < members.count && Int(members[at]) == o
                        // A member that keeps its sort value stays in place (or, no longer kept by
                        // a filter, is dropped) in the merge below.
                        if same && wasMember { continue }
                        if wasMember { previous = Int32(at) }
                    }
                    if isMember(k) && plan.keeps(n, newChildren, nt) { arriving.append((Entry(key: k, ordinal: d), oldPlace(k), previous)) }
                }
                arriving.sort { entryLess($0.entry, $1.entry) }
                // One pass over the old members: drop the removed and re-sorted, insert the arrivals.
                var merged = [Int32](repeating: 0, count: members.count + arriving.count)
                var patch = MemberPatch()
                var count = 0
                members.withUnsafeBufferPointer { old in
                    merged.withUnsafeMutableBufferPointer { out in
                        var a = 0
                        func arrive(upTo place: Int) {
                            while a < arriving.count && arriving[a].place <= place {
                                out[count] = arriving[a].entry.ordinal
                                patch.arrivals.append((Int32(count), arriving[a].previous))
                                count += 1
                                a += 1
                            }
                        }
                        // Piecewise ordinal map, unrolled: most members are in the common ends.
                        let prefix = match.prefix, suffixStart = match.old.count - match.suffix
                        let shift = match.new.count - match.old.count
                        for index in 0..<old.count {
                            if a < arriving.count { arrive(upTo: index) }
                            let m = Int(old[index])
                            if m < prefix || m >= suffixStart {
                                out[count] = Int32(truncatingIfNeeded: m >= suffixStart ? m + shift : m)
                                count += 1
                                continue
                            }
                            let n = match.newOrdinal(ofOld: m)
                            let isChanged = n >= 0 && match.isChanged(new: n)
                            if n < 0 || (isChanged && (!sameSortValue(oldKey(m), newKey(n)) || !plan.keeps(n, newChildren, nt))) {
                                patch.dropped.append(Int32(index))
                                continue
                            }
                            if isChanged { patch.changedKept.append((Int32(count), Int32(index))) }
                            out[count] = Int32(truncatingIfNeeded: n)
                            count += 1
                        }
                        arrive(upTo: Int.max)
                    }
                }
                if count < merged.count { merged.removeLast(merged.count - count) }

                guard let limit = query.limit else {
                    let window = Window(query: query, path: path, children: newChildren, members: MemberList(merged), boundary: nil)
                    return (window, .patch(patch))
                }
                var (previous, changed) = patch.expanded(newCount: merged.count)
                var nextBoundary = boundary
                let k = limit.count
                // Too few members to fill the window, and children past the boundary unknown.
                if boundary != nil && merged.count < k { return nil }
                // Too many: keep the rows and a reserve, and remember where they end.
                let keep = keptMembers(forLimit: k)
                if merged.count > keep + reserve(forLimit: k) {
                    let extra = merged.count - keep
                    if fromEnd {
                        merged.removeFirst(extra)
                        previous.removeFirst(extra)
                        changed.removeFirst(extra)
                        nextBoundary = StoredSortKey(newKey(Int(merged[0])))
                    } else {
                        merged.removeLast(extra)
                        previous.removeLast(extra)
                        changed.removeLast(extra)
                        nextBoundary = StoredSortKey(newKey(Int(merged[keep - 1])))
                    }
                }
                let window = Window(query: query, path: path, children: newChildren, members: MemberList(merged), boundary: nextBoundary)
                return (window, .members(previous: previous, changed: changed))
            }
        }
    }
}

/// How the members of an advanced window relate to the old ones.
enum MemberChanges {
    /// All members are rows (no limit): the compact patch.
    case patch(MemberPatch)
    /// For each new member, its old member index (-1 for none) and whether its value changed.
    case members(previous: [Int32], changed: [Bool])
}
