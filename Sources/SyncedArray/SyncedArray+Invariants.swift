// The synced array's invariants, written as code: run after every update in debug builds, and by tests.
import JSONTree

/// A broken invariant of a `SyncedArray` (a bug): what is wrong.
public struct SyncedArrayInvariantError: Error, Sendable, CustomStringConvertible {
    public let problems: [String]
    public var description: String { "SyncedArray invariants broken: " + problems.joined(separator: "; ") }
}

extension SyncedArray {
    /// Checks that keys are unique, the key index matches the rows, typed views have as many rows,
    /// and — when synced — the rows are exactly the observed window's rows shown.
    /// - Throws: `SyncedArrayInvariantError` listing what is wrong.
    /// - Complexity: O(rows + bytes of the rows).
    public func checkInvariants() throws(SyncedArrayInvariantError) {
        let problems = invariantViolations()
        if !problems.isEmpty { throw SyncedArrayInvariantError(problems: problems) }
    }

    func invariantViolations() -> [String] {
        var problems = [String]()
        if indexOfKey.count != rows.count {
            problems.append("key index has \(indexOfKey.count) keys for \(rows.count) rows (duplicate or stale keys)")
        }
        for (i, row) in rows.enumerated() where indexOfKey[row.jsonKey] != i {
            problems.append("key index sends row \(i)'s key to \(indexOfKey[row.jsonKey].map(String.init) ?? "nothing")")
            break
        }
        for m in mirrors where m.count != rows.count {
            problems.append("a typed view has \(m.count) rows for \(rows.count)")
        }
        if observation != nil, !awaitingFirstChange, !isShowingCache, let window {
            let shown = shownRange(ofCount: window.count)
            if shown.count != rows.count {
                problems.append("\(rows.count) rows for \(shown.count) rows of the window")
            } else {
                for (i, j) in shown.enumerated() {
                    let sameKey = window.withKeyBytes(at: j) { k in rows[i].key.utf8.elementsEqual(k) }
                    if !sameKey || !rows[i].value.hasSameBytes(as: window.value(at: j)) {
                        problems.append("row \(i) (\(rows[i].key)) is not the window's row \(j)")
                        break
                    }
                }
            }
            if hasMore != (shown.count < window.count) { problems.append("hasMore is \(hasMore)") }
        }
        return problems
    }
}
