// The frequency table of one column, kept live: a revision costs what it changed.
import Sequences
import JSONTree
import LiveQuery

/// How many of the selected children hold each value of one column (VisiData's Shift-F), as
/// rows kept in order — most frequent first, ties in the database's value order
/// (`ColumnValue`'s `<`: missing, null, false, true, numbers, strings, containers) — and
/// changed by batches.
///
/// Feed it every change of the selection's window (`apply(_:)`, the first being the window as
/// a change from nothing); each returns this table's own batch: a value whose count changed is
/// a reload, a value first held is an insert, a value no child holds any more a delete, and a
/// row whose rank changed among the rows that kept their count a move. The counts change by
/// the events of the change alone (a child changed from "a" to "b": one less "a", one more
/// "b"), never by a recount.
///
/// ```swift
/// let teams = FrequencyView(column: try Path("team"))
/// reference.observeChanges { change in
///     let batch = teams.apply(change)        // BatchDiff of the frequency rows
///     table.performBatchUpdates(TableBatch(batch))
/// }
/// teams[0]                                   // Row(value: "red", count: 412)
/// ```
public final class FrequencyView {
    /// One row: a value (or a range of numbers) and how many children hold it.
    public struct Row: Sendable, Equatable, CustomStringConvertible {
        public let value: ColumnValue
        public let count: Int
        public var description: String { "\(value.identity)×\(count)" }
    }

    /// The column counted, a path below each child (root: the child's own value, or a computed column's).
    public let column: Path
    private let reader: ColumnReader
    /// Numbers are counted in ranges of this width; nil: each number is its own value.
    public private(set) var binWidth: Double?
    /// How many children were counted (the selection's size).
    public private(set) var total = 0
    /// The selection's window the counts are of (nil before the first change).
    public private(set) var window: Window?

    private var counts: [ColumnValue: Int] = [:]
    private var order = SortedChunks<Entry>()

    /// Rows in order: count descending, then value ascending.
    struct Entry: Comparable {
        let count: Int
        let value: ColumnValue
        static func < (a: Entry, b: Entry) -> Bool {
            a.count != b.count ? a.count > b.count : a.value < b.value
        }
        static func == (a: Entry, b: Entry) -> Bool { a.count == b.count && a.value == b.value }
    }

    public init(column: Path, binWidth: Double? = nil) {
        self.column = column
        self.binWidth = binWidth
        reader = ColumnReader(column)
    }

    /// The frequency table of a value computed from each child (a computed column); a child it
    /// gives no value for counts as missing.
    public init(computed: ChildValue, binWidth: Double? = nil) {
        column = .root
        self.binWidth = binWidth
        reader = ColumnReader(computed)
    }

    /// The number of rows (distinct values).
    public var count: Int { order.count }

    /// Row `i` in order.
    public subscript(i: Int) -> Row {
        let e = order.element(at: i)
        return Row(value: e.value, count: e.count)
    }

    /// Every row, in order.
    public var rows: [Row] { order.elements.map { Row(value: $0.value, count: $0.count) } }

    /// The largest count (the first row's), 0 when empty.
    public var maxCount: Int { order.first?.count ?? 0 }

    /// The row of `value` (binned like the rows), if a child holds it.
    public func index(of value: ColumnValue) -> Int? {
        let v = value.binned(width: binWidth)
        guard let n = counts[v] else { return nil }
        return order.rank(of: Entry(count: n, value: v))
    }

    /// The value counted for `child` (binned as the rows are now).
    public func value(of child: JSONNode) -> ColumnValue { reader.value(of: child).binned(width: binWidth) }

    /// Applies one change of the selection's window and returns this table's batch.
    /// - Complexity: O(e log n) for a change of e events over n rows; a first window, or a
    ///   change of more events than a sixteenth of the children, is counted afresh in O(children).
    @discardableResult
    public func apply(_ change: WindowChange) -> BatchDiff {
        defer { window = change.new }
        guard let old = change.old, window != nil, change.childEvents.count <= max(64, total / 16) else {
            return recount(change.new)
        }
        var deltas: [ColumnValue: Int] = [:]
        for event in change.childEvents {
            switch event.kind {
            case .childAdded: deltas[value(of: event.value), default: 0] += 1
            case .childRemoved: deltas[value(of: event.value), default: 0] -= 1
            case .childChanged:
                guard let from = event.fromIndex else { continue }
                let before = value(of: old.value(at: from)), after = value(of: event.value)
                if before == after { continue }
                deltas[before, default: 0] -= 1
                deltas[after, default: 0] += 1
            case .childMoved: continue
            }
        }
        total = change.new.count
        return applyDeltas(deltas)
    }

    /// Counts every child of `window` afresh; the batch goes from the rows before to the new ones.
    private func recount(_ window: Window) -> BatchDiff {
        let before = rows
        counts = FrequencyView.counts(of: window, reader: reader, binWidth: binWidth)
        total = window.count
        order = SortedChunks(sorted: counts.map { Entry(count: $0.value, value: $0.key) }.sorted())
        return FrequencyView.batch(from: before, to: rows)
    }

    /// Counts numbers in ranges (or each number again): the width is a round number (1, 2 or 5
    /// times a power of ten) that cuts the numbers' spread into about ten ranges.
    /// - Returns: the batch from the rows before to the new ones.
    @discardableResult
    public func setBinning(_ on: Bool) -> BatchDiff {
        guard on != (binWidth != nil) else { return BatchDiff(from: [String](), to: [String]()) }
        guard on else {
            binWidth = nil
            return window.map(recount) ?? BatchDiff(from: [String](), to: [String]())
        }
        var low = Double.infinity, high = -Double.infinity
        for value in counts.keys {
            guard case .number(let x) = value else { continue }
            low = min(low, x)
            high = max(high, x)
        }
        binWidth = niceWidth(spread: high - low)
        return window.map(recount) ?? BatchDiff(from: [String](), to: [String]())
    }

    /// Changes the counts by `deltas` (net per value) and returns the batch of the rows.
    private func applyDeltas(_ deltas: [ColumnValue: Int]) -> BatchDiff {
        struct Touched {
            let value: ColumnValue
            let before: Int
            let after: Int
            var oldRank = -1
            var newRank = -1
        }
        var touched = deltas.compactMap { value, delta -> Touched? in
            guard delta != 0 else { return nil }
            let n = counts[value] ?? 0
            return Touched(value: value, before: n, after: n + delta)
        }
        let oldCount = order.count
        for k in touched.indices where touched[k].before > 0 {
            touched[k].oldRank = order.rank(of: Entry(count: touched[k].before, value: touched[k].value))
        }
        for t in touched {
            if t.before > 0 { order.remove(Entry(count: t.before, value: t.value)) }
            if t.after > 0 {
                order.insert(Entry(count: t.after, value: t.value))
                counts[t.value] = t.after
            } else {
                counts[t.value] = nil
            }
        }
        for k in touched.indices where touched[k].after > 0 {
            touched[k].newRank = order.rank(of: Entry(count: touched[k].after, value: touched[k].value))
        }
        let deletes = touched.filter { $0.after <= 0 }.map(\.oldRank).sorted()
        let inserts = touched.filter { $0.before <= 0 }.map(\.newRank).sorted()
        let kept = touched.filter { $0.before > 0 && $0.after > 0 }.sorted { $0.newRank < $1.newRank }
        let reloads = kept.map { BatchDiff.Reload(key: $0.value.identity, from: $0.oldRank, to: $0.newRank) }
        // Rows whose count did not change keep their order. A changed row stays put (no move)
        // when the same number of unchanged rows stands before it in both orders and it keeps
        // its order among the changed rows that stay: the most such rows, by a longest
        // increasing run of old ranks taken in new order.
        let oldTouched = touched.filter { $0.oldRank >= 0 }.map(\.oldRank).sorted()
        let newTouched = touched.filter { $0.newRank >= 0 }.map(\.newRank).sorted()
        var candidates = [Int](), moved = [BatchDiff.Move]()
        for (k, t) in kept.enumerated() {
            let staticBefore = t.oldRank - lowerBound(oldTouched, t.oldRank)
            let staticAfter = t.newRank - lowerBound(newTouched, t.newRank)
            if staticBefore == staticAfter { candidates.append(k) } else { moved.append(BatchDiff.Move(from: t.oldRank, to: t.newRank)) }
        }
        let stays = longestIncreasingSubsequence(candidates.map { kept[$0].oldRank })
        for (c, k) in candidates.enumerated() where !stays[c] {
            moved.append(BatchDiff.Move(from: kept[k].oldRank, to: kept[k].newRank))
        }
        moved.sort { $0.to < $1.to }
        return BatchDiff(oldCount: oldCount, newCount: order.count, deletes: deletes, inserts: inserts, moves: moved, reloads: reloads)
    }

    // MARK: From scratch

    /// The counts of a column's values over every row of `window`.
    static func counts(of window: Window, reader: ColumnReader, binWidth: Double?) -> [ColumnValue: Int] {
        var counts: [ColumnValue: Int] = [:]
        window.document.withTapeReader { tape in
            for i in 0..<window.count {
                counts[reader.value(of: window.value(at: i), tape).binned(width: binWidth), default: 0] += 1
            }
        }
        return counts
    }

    /// The frequency rows of `column` over `window`, computed from scratch (what the live view
    /// must equal after any sequence of changes).
    public static func rows(of window: Window, column: Path, binWidth: Double? = nil) -> [Row] {
        rows(of: window, reader: ColumnReader(column), binWidth: binWidth)
    }

    /// The frequency rows of a computed column over `window`, computed from scratch.
    public static func rows(of window: Window, computed: ChildValue, binWidth: Double? = nil) -> [Row] {
        rows(of: window, reader: ColumnReader(computed), binWidth: binWidth)
    }

    private static func rows(of window: Window, reader: ColumnReader, binWidth: Double?) -> [Row] {
        counts(of: window, reader: reader, binWidth: binWidth)
            .map { Entry(count: $0.value, value: $0.key) }.sorted().map { Row(value: $0.value, count: $0.count) }
    }

    /// The batch between two lists of rows, matched by value; a row whose count changed is a reload.
    static func batch(from old: [Row], to new: [Row]) -> BatchDiff {
        BatchDiff(from: old.map(\.value.identity), to: new.map(\.value.identity)) { o, n in old[o].count != new[n].count }
    }
}

/// A round width (1, 2 or 5 times a power of ten) that cuts `spread` into about ten ranges.
func niceWidth(spread: Double) -> Double {
    guard spread.isFinite, spread > 0 else { return 1 }
    let raw = spread / 10
    let power = pow10(raw.log10Floor)
    for step in [1.0, 2, 5, 10] where step * power >= raw { return step * power }
    return 10 * power
}

extension Double {
    /// ⌊log₁₀ x⌋ for a positive finite x.
    fileprivate var log10Floor: Int {
        var e = 0, x = self
        while x >= 10 {
            x /= 10
            e += 1
        }
        while x < 1 {
            x *= 10
            e -= 1
        }
        return e
    }
}

private func pow10(_ e: Int) -> Double {
    var r = 1.0
    if e >= 0 { for _ in 0..<e { r *= 10 } } else { for _ in 0..<(-e) { r /= 10 } }
    return r
}

/// How many elements of `sorted` (ascending) are less than `x`.
func lowerBound(_ sorted: [Int], _ x: Int) -> Int {
    var lo = 0, hi = sorted.count
    while lo < hi {
        let mid = (lo + hi) / 2
        if sorted[mid] < x { lo = mid + 1 } else { hi = mid }
    }
    return lo
}
