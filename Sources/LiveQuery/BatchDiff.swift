// One revision's change to a window, as a list view's batch update.
import Sequences

/// The change from one window to the next as one batch of index operations, read the way a list
/// view reads a batch update: `deletes` and move sources are indexes in the old rows, `inserts`
/// and move destinations indexes in the new rows, all applied at once.
///
/// Taking the old rows, dropping deleted and moved-away rows, then placing moved and inserted
/// rows at their new indexes (ascending) gives the new rows; `reloads` name kept rows whose
/// value changed. Counts balance: `oldCount - deletes.count + inserts.count == newCount`.
/// A row moves only when its order relative to the other kept rows changed: the kept rows
/// outside a longest increasing subsequence of their old indexes, so moves are as few as possible.
///
/// ```swift
/// let change = window.advanced(to: nextDoc)
/// tableView.performBatch(deleting: change.batch.deletes, inserting: change.batch.inserts,
///                        moving: change.batch.moves.map { ($0.from, $0.to) })
/// rows = change.batch.apply(to: rows) { newIndex in Row(change.new[newIndex]) }
/// ```
public struct BatchDiff: Sendable, Equatable, CustomStringConvertible {
    /// A kept row whose place among the kept rows changed.
    public struct Move: Sendable, Hashable {
        /// Index in the old rows.
        public let from: Int
        /// Index in the new rows.
        public let to: Int
        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    /// A kept row whose value changed (it may also have moved).
    public struct Reload: Sendable, Equatable {
        public let key: String
        /// Index in the old rows.
        public let from: Int
        /// Index in the new rows.
        public let to: Int
        public init(key: String, from: Int, to: Int) {
            self.key = key
            self.from = from
            self.to = to
        }
        public static func == (a: Reload, b: Reload) -> Bool {
            codeUnitsEqualBytes(a.key, b.key) && a.from == b.from && a.to == b.to
        }
    }

    public let oldCount: Int
    public let newCount: Int
    /// Old indexes of rows that left, ascending.
    public let deletes: [Int]
    /// New indexes of rows that arrived, ascending.
    public let inserts: [Int]
    /// Kept rows that moved, ascending by destination.
    public let moves: [Move]
    /// Kept rows whose value changed, ascending by new index.
    public let reloads: [Reload]

    public init(oldCount: Int, newCount: Int, deletes: [Int], inserts: [Int], moves: [Move], reloads: [Reload]) {
        self.oldCount = oldCount
        self.newCount = newCount
        self.deletes = deletes
        self.inserts = inserts
        self.moves = moves
        self.reloads = reloads
    }

    /// Whether the rows are unchanged.
    public var isEmpty: Bool { deletes.isEmpty && inserts.isEmpty && moves.isEmpty && reloads.isEmpty }

    public var description: String {
        "BatchDiff(\(oldCount)→\(newCount): deletes \(deletes), inserts \(inserts), moves \(moves.map { "\($0.from)→\($0.to)" }), reloads \(reloads.map { "\($0.key) \($0.from)→\($0.to)" }))"
    }

    /// The batch for rows matched old ↔ new.
    /// - Parameters:
    ///   - oldIndexOfNew: for each new row, its old index, or -1 when it arrived.
    ///   - changed: for each new row, whether it was kept with a changed value.
    ///   - key: the key of a new row (read only for reloads).
    /// - Complexity: O(n) when the kept rows kept their order; O(n log n) at worst.
    init(oldCount: Int, oldIndexOfNew: [Int32], changed: [Bool], key: (Int) -> String) {
        let newCount = oldIndexOfNew.count
        var kept = [Bool](repeating: false, count: oldCount)
        var inserts = [Int](), deletes = [Int](), moves = [Move](), reloads = [Reload]()
        oldIndexOfNew.withUnsafeBufferPointer { map in
            kept.withUnsafeMutableBufferPointer { kept in
                for j in 0..<newCount {
                    let i = Int(map[j])
                    if i < 0 {
                        inserts.append(j)
                    } else {
                        kept[i] = true
                        if changed[j] { reloads.append(Reload(key: key(j), from: i, to: j)) }
                    }
                }
                for i in 0..<oldCount where !kept[i] { deletes.append(i) }
            }
            if let (stays, length) = longestIncreasingSubsequence(map) {
                moves.reserveCapacity(newCount - inserts.count - length)
                for j in 0..<newCount where map[j] >= 0 && !stays[j] { moves.append(Move(from: Int(map[j]), to: j)) }
            }
        }
        self.init(oldCount: oldCount, newCount: newCount, deletes: deletes, inserts: inserts, moves: moves, reloads: reloads)
    }
}

/// Whether two strings have the same UTF-8 code units.
func codeUnitsEqualBytes(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
}
