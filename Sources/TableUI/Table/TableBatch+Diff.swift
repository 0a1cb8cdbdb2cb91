// Building a batch from two lists of row identities, for callers that hold whole lists.
import Sequences

extension TableBatch {
    /// The batch that turns rows `old` into rows `new`, rows identified by unique ids:
    /// ids only in `old` are deleted, ids only in `new` inserted, and among the ids in
    /// both, those outside a longest run that kept its order are moved (as few moves as
    /// possible). Kept rows for which `changed` is true are reloaded.
    /// - Precondition: the ids of each list are unique.
    /// - Complexity: O(n log n).
    public init<ID: Hashable>(from old: [ID], to new: [ID], changed: (ID) -> Bool = { _ in false }) {
        var oldIndex = [ID: Int](minimumCapacity: old.count)
        for (i, id) in old.enumerated() { oldIndex[id] = i }
        let newIDs = Set(new)
        let deletes = old.indices.filter { !newIDs.contains(old[$0]) }
        var inserts: [Int] = []
        var kept: [(old: Int, new: Int)] = []
        for (j, id) in new.enumerated() {
            if let i = oldIndex[id] { kept.append((i, j)) } else { inserts.append(j) }
        }
        let stay = Set(longestIncreasingRun(kept.map(\.old)))
        var moves: [(from: Int, to: Int)] = []
        var reloads: [(old: Int, new: Int)] = []
        for (k, pair) in kept.enumerated() {
            if !stay.contains(k) { moves.append((pair.old, pair.new)) }
            if changed(new[pair.new]) { reloads.append((pair.old, pair.new)) }
        }
        self.init(oldCount: old.count, deletes: deletes, inserts: inserts, moves: moves, reloads: reloads)
    }
}
