// The sheets derived from the location's rows: a column's frequency table, the columns'
// statistics, and the rows that hold one value.
import StoreInterface
import JSONTree
import LiveQuery
import LiveViews
import SyncedArray
import TableUI
import Charts

/// What a derived sheet reads: the store, the location, and the query whose range selects the
/// children counted (the table's query without its page limit).
struct Selection {
    let store: any LiveStore
    let location: Path
    let query: Query
    /// The location's table's columns, for a sheet of its rows.
    let columns: ColumnSet
    let unicode: Bool

    var reference: StoreReference { store.reference(location).withQuery(query) }
}

/// A column's frequency table (Shift-F): value, count, percentage, bar; Enter opens the rows
/// counted under the value, `b` counts numbers in ranges.
final class FrequencySheet: FeedSheet {
    let selection: Selection
    let spec: ColumnSpec
    let view: FrequencyView
    var onBatch: ((BatchDiff) -> Void)?
    private(set) lazy var feed = SheetFeed.changes(of: { [selection] in selection.reference }) { [weak self] change in
        guard let self else { return }
        onBatch?(view.apply(change))
    }

    init(selection: Selection, spec: ColumnSpec) {
        self.selection = selection
        self.spec = spec
        if case .computed(let column) = spec {
            view = FrequencyView(computed: column.childValue)
        } else {
            view = FrequencyView(column: spec.path ?? .root)
        }
    }

    var title: String { "\(spec.title) frequency" }
    var columns: [TableColumn] {
        [TableColumn(spec.title, maxWidth: 40), TableColumn("count", numeric: true), TableColumn("percent", numeric: true),
         TableColumn("histogram", minWidth: Self.barWidth, maxWidth: Self.barWidth)]
    }
    var rowCount: Int { view.count }
    var isLoading: Bool { view.window == nil }

    static let barWidth = 20

    func cells(ofRow i: Int) -> [String] {
        let row = view[i]
        return [row.value.description, String(row.count), percentText(row.count, of: view.total),
                bar(row.count, of: view.maxCount, width: Self.barWidth, unicode: selection.unicode)]
    }

    func value(ofRow i: Int) -> JSON {
        let row = view[i]
        return .object(JSONObject([("value", row.value.json), ("count", .number(JSONNumber(row.count))),
                                   ("percent", .number(JSONNumber(percent(row.count, of: view.total))))]))
    }

    func key(ofRow i: Int) -> String { view[i].value.identity }


    func open(row i: Int) -> SheetOpening {
        let value = view[i].value
        // The view's binning cannot change under the rows sheet: b goes to the sheet on top.
        return .sheet(MatchingRowsSheet(selection: selection, spec: spec, value: value) { [view] in view.value(of: $0) == value })
    }

    var ownKeys: [(ViewerAction, String)] { [(.toggleBinning, "ranges")] }

    func perform(_ action: ViewerAction) -> String? {
        guard action == .toggleBinning else { return nil }
        let batch = view.setBinning(view.binWidth == nil)
        onBatch?(batch)
        return view.binWidth.map { "numbers counted in ranges of \(numberWords($0)) (b: each number again)" }
            ?? "each number counted on its own (b: in ranges)"
    }
}

/// The statistics of the table's columns (Shift-I), one row per column.
final class StatisticsSheet: FeedSheet {
    let selection: Selection
    let specs: [ColumnSpec]
    let view: StatisticsView
    var onBatch: ((BatchDiff) -> Void)?
    private(set) lazy var feed = SheetFeed.changes(of: { [selection] in selection.reference }) { [weak self] change in
        guard let self else { return }
        onBatch?(view.apply(change))
    }

    init(selection: Selection, specs: [ColumnSpec]) {
        self.selection = selection
        self.specs = specs
        view = StatisticsView(specs.map { spec in
            if case .computed(let column) = spec { return .computed(column.childValue) }
            return .path(spec.path ?? .root)
        })
    }

    var title: String { "statistics" }
    var columns: [TableColumn] {
        [TableColumn("column", maxWidth: 30)]
            + ["missing", "null", "bool", "number", "string", "object", "array", "distinct", "min", "max", "sum", "mean",
               "median", "stdev", "shortest", "longest"].map { TableColumn($0, numeric: true) }
    }
    var rowCount: Int { view.count }
    var isLoading: Bool { view.window == nil }

    func cells(ofRow i: Int) -> [String] {
        let s = view[i]
        let counts = [s.missing, s.nulls, s.bools, s.numbers, s.strings, s.objects, s.arrays, s.distinct].map(String.init)
        let numbers = [s.min, s.max, s.sum, s.mean, s.median, s.standardDeviation].map { $0.map(shortNumber) ?? "" }
        return [specs[i].title] + counts + numbers + [s.shortest, s.longest].map { $0.map(String.init) ?? "" }
    }

    func value(ofRow i: Int) -> JSON {
        let s = view[i]
        var members: [(key: String, value: JSON)] = [("column", .string(specs[i].title))]
        for (name, n) in [("missing", s.missing), ("null", s.nulls), ("bool", s.bools), ("number", s.numbers),
                          ("string", s.strings), ("object", s.objects), ("array", s.arrays), ("distinct", s.distinct)] {
            members.append((name, .number(JSONNumber(n))))
        }
        for (name, x) in [("min", s.min), ("max", s.max), ("sum", s.sum), ("mean", s.mean), ("median", s.median),
                          ("stdev", s.standardDeviation)] {
            if let x, x.isFinite { members.append((name, .number(JSONNumber(x)))) }
        }
        for (name, n) in [("shortest", s.shortest), ("longest", s.longest)] {
            if let n { members.append((name, .number(JSONNumber(n)))) }
        }
        return .object(JSONObject(members))
    }

    func key(ofRow i: Int) -> String { specs[i].title }

}

/// The rows of a frequency row (Enter on it): the children the frequency table counted under
/// that value, and no others — the sheet's selection (its filters, bounds and limit) kept whole,
/// then the rows holding the value. Shown with the table's columns, in the table's order, and
/// kept live by a synced array of the selection.
///
/// The value is matched here rather than as one more filter of the query: a query's filters
/// are applied before its limit, so with a limit the query would reach past the rows counted.
final class MatchingRowsSheet: Sheet, SyncedArrayBatchDelegate {
    let selection: Selection
    let title: String
    /// Whether a child holds the value, read as the frequency table counts it.
    private let holds: (JSONNode) -> Bool
    private let array: SyncedArray
    /// The array's rows that hold the value, in its order, and their keys.
    private var matching: [Int] = []
    private var matchingKeys: [String] = []
    var onBatch: ((BatchDiff) -> Void)?

    convenience init(selection: Selection, spec: ColumnSpec, value: ColumnValue, holds: @escaping (JSONNode) -> Bool) {
        self.init(selection: selection, title: "\(spec.title) = \(value)", holds: holds)
    }

    /// The rows `holds` is true for, titled `title` (a scatter's cell: `2 under the cursor of …`).
    init(selection: Selection, title: String, holds: @escaping (JSONNode) -> Bool) {
        self.selection = selection
        self.title = title
        self.holds = holds
        array = SyncedArray(selection.reference)
    }
    var columns: [TableColumn] {
        // Numbers right-aligned, as in the table the rows come from.
        zip(selection.columns.specs, selection.columns.numeric).map { spec, numeric in
            TableColumn(spec.title, numeric: numeric, minWidth: spec == .key ? 3 : 1, maxWidth: spec == .key ? 24 : 40)
        }
    }
    var rowCount: Int { matching.count }
    var isLoading: Bool { array.window == nil }

    func cells(ofRow i: Int) -> [String] {
        let row = array[matching[i]]
        return selection.columns.specs.map { $0.cell(key: row.key, child: row.value, format: selection.columns.formats[$0]) }
    }

    func value(ofRow i: Int) -> JSON { array[matching[i]].value.json }
    func key(ofRow i: Int) -> String { matchingKeys[i] }
    func path(ofRow i: Int) -> Path? { selection.location.child(matchingKeys[i]) }

    func start() {
        array.batchDelegate = self
        array.startSync()
    }

    func stop() { array.stopSync() }

    /// The selection's rows changed: the rows holding the value are found again (O(rows of the
    /// selection)), and the batch between the two lists of keys reported.
    func syncedArray(_ array: SyncedArray, didApply batch: BatchDiff) {
        let before = matchingKeys
        matching = (0..<array.count).filter { holds(array[$0].value) }
        matchingKeys = matching.map { array[$0].key }
        let changed = Set(batch.reloads.map { JSONKey($0.key) })
        let keys = matchingKeys
        onBatch?(BatchDiff(from: before, to: keys) { _, new in changed.contains(JSONKey(keys[new])) })
    }

    func open(row i: Int) -> SheetOpening {
        .message("\(selection.location.child(matchingKeys[i])): v shows its value, Backspace goes back")
    }
}

extension ViewerAction {
    public static let frequency = Self("frequency"), toggleBinning = Self("toggleBinning"), statistics = Self("statistics")
}

extension FrequencySheet: SheetOpener {
    static let opening = ViewerAction.frequency
    static let bindings: [(after: ViewerAction, binding: KeyBinding)] = [
        (.redo, KeyBinding("F", [.character("F")], .frequency,
                           "frequency table of the column under the cursor, as a sheet on top (live; Enter opens a value's rows)")),
        (.frequency, KeyBinding("b", [.character("b")], .toggleBinning,
                                "on a frequency sheet: count numbers in ranges, or each on its own again (on a histogram: logarithmic or linear bins; on a time series: the top rows)")),
    ]

    /// Shift-F: the frequency table of the column under the cursor.
    static func open(from children: ChildrenSheet) -> StackOpening {
        let spec = children.cursorSpec
        guard spec != .key else { return .message("every key is distinct: F counts the values of another column") }
        guard let selection = children.currentSelection else { return .said }
        return .table(FrequencySheet(selection: selection, spec: spec))
    }

    static func hint(onTable action: ViewerAction) -> String? {
        action == .toggleBinning ? "b counts numbers in ranges on a frequency sheet (F opens one)" : nil
    }
}

extension StatisticsSheet: SheetOpener {
    static let opening = ViewerAction.statistics
    static let bindings: [(after: ViewerAction, binding: KeyBinding)] = [
        (.frequency, KeyBinding("I", [.character("I")], .statistics,
                                "statistics of every column (kinds, missing, distinct, min, max, mean, median, …), as a sheet")),
    ]

    /// Shift-I: the statistics of the table's visible columns.
    static func open(from children: ChildrenSheet) -> StackOpening {
        let specs = children.rows.columnSet.specs.filter { $0 != .key }
        guard !specs.isEmpty else { return .message("no columns besides the key yet") }
        guard let selection = children.currentSelection else { return .said }
        return .table(StatisticsSheet(selection: selection, specs: specs))
    }
}

extension ChildrenSheet {
    /// The children the derived sheets count: the table's query over its whole range (the
    /// pages not loaded too; a limit given by the user still applies).
    var currentSelection: Selection? {
        do {
            return Selection(store: store, location: location, query: try query.makeQuery(), columns: rows.columnSet,
                             unicode: environment.unicode)
        } catch {
            message = Message(text: "bad query: \(error)", isError: true)
            return nil
        }
    }
}

extension ColumnSpec {
    /// The column's numbers as a chart reads them (nil for the key and a trend, which hold none).
    var numberColumn: NumberColumn? {
        switch self {
        case .key, .spark: nil
        case .value: NumberColumn(path: .root)
        case .member(let path): NumberColumn(path: path)
        case .computed(let column): NumberColumn(computed: column.childValue)
        }
    }

    /// The path below a child this column reads (nil for the key and a computed column).
    var path: Path? {
        switch self {
        case .key, .computed: nil
        case .value: .root
        case .member(let path), .spark(let path): path
        }
    }
}

/// `count` of `total` as a percentage.
func percent(_ count: Int, of total: Int) -> Double {
    total > 0 ? Double(count) * 100 / Double(total) : 0
}

/// `12.5%`: one decimal.
func percentText(_ count: Int, of total: Int) -> String {
    let tenths = Int((percent(count, of: total) * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)%"
}

/// A bar whose length is in proportion to `count`, `maximum` filling `width` cells (in eighths of
/// a cell, or whole `#` cells in ASCII): no filler after it, and a count that rounds to nothing
/// (a 0.0% row) draws nothing rather than a block as large as a 0.2% row's.
func bar(_ count: Int, of maximum: Int, width: Int, unicode: Bool) -> String {
    guard maximum > 0, count > 0 else { return "" }
    let steps = unicode ? 8 : 1
    let length = Int((Double(count) * Double(width * steps) / Double(maximum)).rounded())
    return unicode ? Histogram.bar(eighths: length) : String(repeating: "#", count: length)
}

/// A number for a statistics cell: integers whole, others to six significant digits.
func shortNumber(_ x: Double) -> String {
    guard x.isFinite else { return "\(x)" }
    if abs(x) < 1e15, x == x.rounded() { return String(Int64(x)) }
    let magnitude = x == 0 ? 0 : Int((abs(x)).log10Estimate)
    let decimals = max(0, min(12, 5 - magnitude))
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (x * scale).rounded() / scale
    guard abs(rounded) < 1e15, decimals > 0 else { return JSONNumber(rounded).text }
    let whole = Int64(abs(rounded) * scale)
    var digits = String(whole)
    if digits.count <= decimals { digits = String(repeating: "0", count: decimals - digits.count + 1) + digits }
    var text = String(digits.dropLast(decimals)) + "." + String(digits.suffix(decimals))
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return (rounded < 0 ? "-" : "") + text
}

/// A bin width in words (`20`, `0.5`).
func numberWords(_ x: Double) -> String { shortNumber(x) }

extension Double {
    /// ⌊log₁₀ |x|⌋ for a finite non-zero x (by division: no libm needed).
    fileprivate var log10Estimate: Double {
        var e = 0.0, v = abs(self)
        while v >= 10 {
            v /= 10
            e += 1
        }
        while v < 1 {
            v *= 10
            e -= 1
        }
        return e
    }
}
