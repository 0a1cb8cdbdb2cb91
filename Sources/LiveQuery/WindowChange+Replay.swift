// The events' indexes in the list as a consumer replays them, one event after another.

/// Where one child event applies in the list as replayed so far.
public struct ReplayIndex: Sendable, Equatable {
    /// removed: the row removed; added: where the child is inserted; moved: where it is
    /// inserted after being taken out; changed: the row replaced.
    public let index: Int
    /// moved: the row the child is taken out of (before it is inserted at `index`).
    public let fromIndex: Int?
}

extension WindowChange {
    /// The index (and for `childMoved` the `fromIndex`) of each child event in the list as
    /// replayed so far: starting from the old window's rows and applying the events in order, a
    /// consumer that removes at `index`, inserts at `index`, moves from `fromIndex` to `index`
    /// and replaces at `index` — by index alone, without looking up keys — ends with the new
    /// window's rows. A child moved in the revision that added it has a `fromIndex` too.
    ///
    /// Aligned with `childEvents`. For a new listener (no old window) every child is added at
    /// its row.
    /// - Complexity: O(rows × events) key comparisons.
    public var replayIndexes: [ReplayIndex] {
        var rows: [[UInt8]] = old.map { window in (0..<window.count).map { i in window.withKeyBytes(at: i) { Array($0) } } } ?? []
        func position(of key: [UInt8]) -> Int { rows.firstIndex(of: key) ?? rows.count }
        func placement(_ event: ChildEvent) -> Int {
            guard let previous = event.prevKey else { return 0 }
            return position(of: Array(previous.utf8)) + 1
        }
        var out = [ReplayIndex]()
        out.reserveCapacity(childEvents.count)
        for event in childEvents {
            let key = event.withKeyBytes { Array($0) }
            switch event.kind {
            case .childRemoved:
                let at = position(of: key)
                if at < rows.count { rows.remove(at: at) }
                out.append(ReplayIndex(index: at, fromIndex: nil))
            case .childAdded:
                let at = min(placement(event), rows.count)
                rows.insert(key, at: at)
                out.append(ReplayIndex(index: at, fromIndex: nil))
            case .childMoved:
                let from = position(of: key)
                if from < rows.count { rows.remove(at: from) }
                let to = min(placement(event), rows.count)
                rows.insert(key, at: to)
                out.append(ReplayIndex(index: to, fromIndex: from))
            case .childChanged:
                out.append(ReplayIndex(index: position(of: key), fromIndex: nil))
            }
        }
        return out
    }
}
