// The statistics of every column, kept live: a revision costs what it changed.
import EngineMemory
import JSONTree
import LiveQuery

/// One column's statistics over the selected children (a row of the statistics sheet).
public struct ColumnStatistics: Sendable, Equatable {
    public let column: Path
    /// Children with nothing at the column's path.
    public var missing = 0
    public var nulls = 0, bools = 0, numbers = 0, strings = 0, objects = 0, arrays = 0
    /// Distinct values of the column's kind: the kind most of its values have, missing and null
    /// aside (ties: booleans, numbers, strings, objects, arrays in that order). Numbers by value,
    /// strings by code units; a column of 10,345 distinct numbers and a null has 10,345.
    public var distinct = 0
    /// Of the numbers; nil without numbers (standard deviation: the sample's, nil below two).
    public var min: Double?, max: Double?, sum: Double?, mean: Double?, median: Double?, standardDeviation: Double?
    /// Of the strings, in Unicode scalars; nil without strings.
    public var shortest: Int?, longest: Int?

    public init(column: Path) { self.column = column }

    /// Children counted (every kind, and missing).
    public var total: Int { missing + nulls + bools + numbers + strings + objects + arrays }
}

/// The statistics of some columns of the selected children (VisiData's Shift-I): one row per
/// column with its counts of each JSON kind, missing, distinct values, and for numbers min, max,
/// sum, mean, median and standard deviation, for strings the shortest and longest length.
///
/// Feed it every change of the selection's window (`apply(_:)`); the rows are the columns, so
/// each batch reloads the columns whose statistics changed. Counts, sums and the ordered numbers
/// (for min, max and median) change by the events alone, never by a recount. Sums are kept
/// with compensation (Neumaier), so after many edits they still equal a fresh sum to within a
/// few units in the last place.
///
/// ```swift
/// let stats = StatisticsView(columns: [try Path("score"), try Path("team")])
/// reference.observeChanges { change in table.performBatchUpdates(TableBatch(stats.apply(change))) }
/// stats[0].median
/// ```
public final class StatisticsView {
    /// A column of the sheet: a path below each child, or a computed column's value.
    public enum Column: Sendable {
        case path(Path)
        case computed(ChildValue)

        fileprivate var reader: ColumnReader {
            switch self {
            case .path(let path): ColumnReader(path)
            case .computed(let value): ColumnReader(value)
            }
        }
    }

    /// The columns' paths (the root for a computed column).
    public let columns: [Path]
    private let readers: [ColumnReader]
    private var accumulators: [ColumnAccumulator]
    /// The selection's window the statistics are of (nil before the first change).
    public private(set) var window: Window?

    public convenience init(columns: [Path]) {
        self.init(columns.map(Column.path))
    }

    public init(_ columns: [Column]) {
        readers = columns.map(\.reader)
        self.columns = readers.map(\.path)
        accumulators = readers.map { ColumnAccumulator(reader: $0) }
    }

    /// The number of rows: one per column.
    public var count: Int { columns.count }

    /// Row `i`: the statistics of `columns[i]`.
    public subscript(i: Int) -> ColumnStatistics { accumulators[i].statistics }

    /// Every row.
    public var rows: [ColumnStatistics] { accumulators.map(\.statistics) }

    /// Applies one change of the selection's window and returns this table's batch (reloads).
    /// - Complexity: O(e · c · log n) for e events over c columns; a first window, or a change
    ///   of more events than a sixteenth of the children, is counted afresh.
    @discardableResult
    public func apply(_ change: WindowChange) -> BatchDiff {
        defer { window = change.new }
        let total = window?.count ?? 0
        guard let old = change.old, window != nil, change.childEvents.count <= max(64, total / 16) else {
            accumulators = StatisticsView.accumulators(readers, change.new)
            return reloads(Array(columns.indices))
        }
        var changed = Set<Int>()
        for event in change.childEvents {
            switch event.kind {
            case .childAdded:
                for (c, reader) in readers.enumerated() {
                    accumulators[c].add(reader.value(of: event.value), +1)
                    changed.insert(c)
                }
            case .childRemoved:
                for (c, reader) in readers.enumerated() {
                    accumulators[c].add(reader.value(of: event.value), -1)
                    changed.insert(c)
                }
            case .childChanged:
                guard let from = event.fromIndex else { continue }
                let before = old.value(at: from)
                for (c, reader) in readers.enumerated() {
                    let a = reader.value(of: before), b = reader.value(of: event.value)
                    guard a != b else { continue }
                    accumulators[c].add(a, -1)
                    accumulators[c].add(b, +1)
                    changed.insert(c)
                }
            case .childMoved: continue
            }
        }
        return reloads(changed.sorted())
    }

    private func reloads(_ rows: [Int]) -> BatchDiff {
        BatchDiff(oldCount: columns.count, newCount: columns.count, deletes: [], inserts: [], moves: [],
                  reloads: rows.map { BatchDiff.Reload(key: readers[$0].name, from: $0, to: $0) })
    }

    /// The statistics of `columns` over every row of `window`, computed from scratch (what the
    /// live view must equal after any sequence of changes).
    public static func statistics(of window: Window, columns: [Path]) -> [ColumnStatistics] {
        statistics(of: window, columns.map(Column.path))
    }

    /// The statistics of `columns` (paths or computed) over every row of `window`, from scratch.
    public static func statistics(of window: Window, _ columns: [Column]) -> [ColumnStatistics] {
        columns.map { ColumnAccumulator(reader: $0.reader, window: window).statistics }
    }

    /// The accumulators of `columns` over every row of `window`: half the columns on a second
    /// thread (each column is one pass over the children).
    private static func accumulators(_ columns: [ColumnReader], _ window: Window) -> [ColumnAccumulator] {
        guard columns.count > 1, window.count >= 1 << 16 else { return columns.map { ColumnAccumulator(reader: $0, window: window) } }
        let half = columns.count / 2
        // On this thread too under the plain tuning (a library starts no thread unless asked).
        let second = ThreadWork(onThread: EngineTuning.current.secondThread) {
            columns[half...].map { ColumnAccumulator(reader: $0, window: window) }
        }
        let first = columns[..<half].map { ColumnAccumulator(reader: $0, window: window) }
        return first + second.join()
    }
}

/// What one column's statistics are made of, changed one value at a time. Numbers are kept in
/// order (min, max, median, and their distinct count from the order); strings in a count map
/// (distinct) and their lengths in order; other values in a count map.
struct ColumnAccumulator {
    let column: Path
    private let reader: ColumnReader
    private var kinds = [Int](repeating: 0, count: 7)
    private var numbers = SortedChunks<Double>()
    private var distinctNumbers = 0
    private var strings: [JSONKey: Int] = [:]
    private var lengths = SortedChunks<Int>()
    /// Missing, null, booleans and containers, by value.
    private var others: [ColumnValue: Int] = [:]
    /// Of `others`, the distinct values of each kind (indexed as `kinds`).
    private var distinctOthers = [Int](repeating: 0, count: 7)
    /// Numbers are summed less `shift` (the first number seen), so that the variance of large
    /// numbers close together keeps its digits.
    private var shift: Double?
    private var sum = CompensatedSum(), squares = CompensatedSum()

    init(reader: ColumnReader) {
        column = reader.path
        self.reader = reader
    }

    /// The accumulator of the column `reader` reads over every row of `window`, in one pass and one sort.
    init(reader: ColumnReader, window: Window) {
        self.init(reader: reader)
        var numbers = [Double](), lengths = [Int]()
        window.document.withTapeReader { tape in
            for i in 0..<window.count {
                let value = reader.value(of: window.value(at: i), tape)
                kinds[Self.kindIndex(value)] += 1
                switch value {
                case .number(let x):
                    numbers.append(x)
                    addToSums(x, +1)
                case .string(let s):
                    strings[s, default: 0] += 1
                    lengths.append(s.string.unicodeScalars.count)
                default:
                    others[value, default: 0] += 1
                }
            }
        }
        for value in others.keys { distinctOthers[Self.kindIndex(value)] += 1 }
        numbers.sort()
        distinctNumbers = numbers.indices.reduce(0) { $0 + ($1 == 0 || numbers[$1] != numbers[$1 - 1] ? 1 : 0) }
        self.numbers = SortedChunks(sorted: numbers)
        self.lengths = SortedChunks(sorted: lengths.sorted())
    }

    private static func kindIndex(_ value: ColumnValue) -> Int {
        switch value {
        case .missing: 0
        case .null: 1
        case .bool: 2
        case .number, .range: 3
        case .string: 4
        case .container(let kind, _): kind == .object ? 5 : 6
        }
    }

    private mutating func addToSums(_ x: Double, _ sign: Double) {
        if shift == nil { shift = x }
        let d = x - shift!
        sum.add(sign * d)
        squares.add(sign * d * d)
    }

    /// Counts `value` once more (`sign` +1) or once less (-1).
    mutating func add(_ value: ColumnValue, _ sign: Int) {
        kinds[Self.kindIndex(value)] += sign
        switch value {
        case .number(let x):
            let held = numbers.count(of: x)
            if sign > 0 {
                numbers.insert(x)
                if held == 0 { distinctNumbers += 1 }
            } else if numbers.remove(x), held == 1 {
                distinctNumbers -= 1
            }
            addToSums(x, Double(sign))
            if numbers.isEmpty {
                // Start the sums afresh: nothing is left of what they added up.
                shift = nil
                sum = CompensatedSum()
                squares = CompensatedSum()
            }
        case .string(let s):
            let n = (strings[s] ?? 0) + sign
            strings[s] = n > 0 ? n : nil
            let length = s.string.unicodeScalars.count
            if sign > 0 { lengths.insert(length) } else { lengths.remove(length) }
        default:
            let held = others[value] ?? 0
            let n = held + sign
            others[value] = n > 0 ? n : nil
            if held == 0 && n > 0 { distinctOthers[Self.kindIndex(value)] += 1 }
            if held > 0 && n <= 0 { distinctOthers[Self.kindIndex(value)] -= 1 }
        }
    }

    /// The distinct values of the column's kind (see `ColumnStatistics.distinct`).
    private var distinctOfKind: Int {
        // `max(by:)` keeps the first of equals: ties go to the kind listed first.
        guard let kind = (2...6).max(by: { kinds[$0] < kinds[$1] }), kinds[kind] > 0 else { return 0 }
        switch kind {
        case 3: return distinctNumbers
        case 4: return strings.count
        default: return distinctOthers[kind]
        }
    }

    var statistics: ColumnStatistics {
        var s = ColumnStatistics(column: column)
        s.missing = kinds[0]
        s.nulls = kinds[1]
        s.bools = kinds[2]
        s.numbers = kinds[3]
        s.strings = kinds[4]
        s.objects = kinds[5]
        s.arrays = kinds[6]
        s.distinct = distinctOfKind
        let n = numbers.count
        if n > 0, let shift {
            s.min = numbers.first
            s.max = numbers.last
            let shifted = sum.value
            s.sum = shifted + Double(n) * shift
            s.mean = shifted / Double(n) + shift
            s.median = n % 2 == 1 ? numbers.element(at: n / 2) : (numbers.element(at: n / 2 - 1) + numbers.element(at: n / 2)) / 2
            if n > 1 {
                let variance = (squares.value - shifted * shifted / Double(n)) / Double(n - 1)
                s.standardDeviation = variance > 0 ? variance.squareRoot() : 0
            }
        }
        if !lengths.isEmpty {
            s.shortest = lengths.first
            s.longest = lengths.last
        }
        return s
    }
}

/// A running sum with Neumaier's compensation: adding and taking away many terms keeps the
/// total within a few units in the last place of the exact sum.
struct CompensatedSum {
    private var total = 0.0, compensation = 0.0

    mutating func add(_ x: Double) {
        let t = total + x
        if abs(total) >= abs(x) { compensation += (total - t) + x } else { compensation += (x - t) + total }
        total = t
    }

    var value: Double { total + compensation }
}
