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
        if let next = advancedMembers(newChildren, match) {
            return WindowChange(old: self, new: next.window, previousMember: next.previous, changedMember: next.changed)
        }
        return WindowChange(old: self, new: Window.evaluate(query, path, newChildren), match: match)
    }

    /// The children at `path` in `document`, paired with `old`'s: derived from `old` around what
    /// the edit changed when possible (`ChildList.derived`), else read in full.
    static func matchChildren(_ old: ChildList, _ document: JSONDocument, _ path: Path) -> (ChildList, ChildMatch) {
        let (cp, cs) = old.document.withTapeReader { ot in
            document.withTapeReader { nt in
                let cp = commonPrefixLength(ot.bytes, nt.bytes)
                return (cp, commonSuffixLength(ot.bytes, nt.bytes, limit: Swift.min(ot.bytes.count, nt.bytes.count) - cp))
            }
        }
        if let d = ChildList.derived(from: old, document: document, path: path, commonPrefix: cp, commonSuffix: cs) {
            return (d.list, ChildMatch(old: old, new: d.list, prefix: d.prefix, suffix: d.suffix))
        }
        let list = ChildList(document: document, path: path)
        return (list, ChildMatch(old: old, new: list))
    }

    /// The next window from this one's members, with, for each new member, the index of the old
    /// member it was (-1 for none) and whether its value changed; nil when a limited window must
    /// be refilled by a full evaluation.
    private func advancedMembers(_ newChildren: ChildList, _ match: ChildMatch) -> (window: Window, previous: [Int32], changed: [Bool])? {
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
                let capacity = members.count + match.dirty.count
                var kept = [Int32](), keptPrevious = [Int32](), keptChanged = [Bool]()
                kept.reserveCapacity(capacity)
                keptPrevious.reserveCapacity(capacity)
                keptChanged.reserveCapacity(capacity)
                var resorted = [Int32: Int32]()  // new ordinal → old member index
                members.withUnsafeBufferPointer { old in
                    for (index, m) in old.enumerated() {
                        let n = match.newOrdinal(ofOld: Int(m))
                        guard n >= 0 else { continue }
                        let changed = match.isChanged(new: n)
                        if changed && !sameSortValue(oldKey(Int(m)), newKey(n)) {
                            resorted[Int32(n)] = Int32(index)
                            continue
                        }
                        kept.append(Int32(n))
                        keptPrevious.append(Int32(index))
                        keptChanged.append(changed)
                    }
                }
                // Added children, and changed children with a new sort value, that are members now.
                var arriving = [Entry]()
                for d in match.dirty {
                    let n = Int(d)
                    let k = newKey(n)
                    let o = match.oldOrdinal(ofNew: n)
                    if o >= 0 && sameSortValue(oldKey(o), k) { continue }  // kept in place, or still not a member
                    if isMember(k) { arriving.append(Entry(key: k, ordinal: d)) }
                }
                arriving.sort(by: entryLess)
                // Merge: binary-search each arriving child's place among the kept ones.
                var merged = [Int32](), previous = [Int32](), changed = [Bool]()
                merged.reserveCapacity(kept.count + arriving.count)
                previous.reserveCapacity(kept.count + arriving.count)
                changed.reserveCapacity(kept.count + arriving.count)
                var from = 0
                for a in arriving {
                    var lo = from, hi = kept.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if compareSortKeys(newKey(Int(kept[mid])), a.key) < 0 { lo = mid + 1 } else { hi = mid }
                    }
                    merged.append(contentsOf: kept[from..<lo])
                    previous.append(contentsOf: keptPrevious[from..<lo])
                    changed.append(contentsOf: keptChanged[from..<lo])
                    merged.append(a.ordinal)
                    previous.append(resorted[a.ordinal] ?? -1)
                    changed.append(true)
                    from = lo
                }
                if arriving.isEmpty {
                    swap(&merged, &kept)
                    swap(&previous, &keptPrevious)
                    swap(&changed, &keptChanged)
                } else {
                    merged.append(contentsOf: kept[from...])
                    previous.append(contentsOf: keptPrevious[from...])
                    changed.append(contentsOf: keptChanged[from...])
                }

                var nextBoundary = boundary
                if let limit = query.limit {
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
                }
                let window = Window(query: query, path: path, children: newChildren, members: merged, boundary: nextBoundary)
                return (window, previous, changed)
            }
        }
    }
}
