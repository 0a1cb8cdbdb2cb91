// `#`: the histogram of the column under the cursor, as a chart sheet kept live.
import Charts
import JSONTree
import LiveQuery
import LiveViews
import TableUI

extension ViewerAction {
    public static let histogram = Self("histogram")
}

/// Counts of a column's numbers in bins (logarithmic when they span more than three orders of
/// magnitude; `b` switches), over every child the table's query selects. Live: a changed value
/// moves one count from its bin to another, and only the cells that changed are drawn again.
final class HistogramSheet: ChartSheet, SheetOpener {
    static let opening = ViewerAction.histogram
    static let bindings: [(after: ViewerAction, binding: KeyBinding)] = [
        (.statistics, KeyBinding("#", [.character("#")], .histogram,
                                 "histogram of the column under the cursor, as a chart sheet (live; b: linear or logarithmic bins; E writes SVG)")),
    ]

    let spec: ColumnSpec
    /// The column's numbers, read straight from the revision's tape (nil: a column of none).
    private let numbers: NumberColumn?
    private(set) var histogram: Histogram
    /// Children whose value in the column is not a number.
    private(set) var notNumbers = 0
    private var window: Window
    private let binCount: Int

    static func open(from children: ChildrenSheet) -> StackOpening {
        let spec = children.cursorSpec
        guard spec != .key else { return .message("a key is not a number: # charts another column") }
        guard let viewer = children.viewer, let selection = children.currentSelection else { return .said }
        guard let window = children.currentWindow() else { return .message("no rows yet: nothing to chart") }
        let sheet = HistogramSheet(viewer: viewer, spec: spec, window: window)
        if let refusal = sheet.refusal { return .message(refusal) }
        sheet.feed = .changes(of: { selection.reference }, startingFrom: window) { [weak sheet] change in sheet?.apply(change) }
        if let note = sheet.leftOutNote { viewer.message = Viewer.Message(text: note, isError: false) }
        return .drawn(sheet)
    }

    init(viewer: Viewer, spec: ColumnSpec, window: Window, logarithmic: Bool? = nil) {
        self.spec = spec
        numbers = spec.numberColumn
        self.window = window
        binCount = max(2, min(20, ChartSheet.expectedSize(viewer).rows - 3))
        histogram = Histogram(scale: Scale(lower: 0, upper: 1), binCount: binCount)
        super.init(viewer: viewer, title: "\(spec.title) histogram")
        rebuild(logarithmic: logarithmic)
    }

    /// Counts every child of the window afresh: the column read in one pass into one array.
    private func rebuild(logarithmic: Bool?) {
        var values = numbers?.numbers(of: window) ?? []
        values.removeAll { $0.isNaN }
        notNumbers = window.count - values.count
        histogram = Histogram(values, binCount: binCount, logarithmic: logarithmic)
    }

    /// Why there is no chart (no numbers, or one), or nil.
    var refusal: String? {
        let n = histogram.total + histogram.leftOut.total
        if n == 0 { return "\(spec.title) holds no numbers: nothing to chart" }
        return n < 2 ? "\(spec.title) holds only one number: a histogram needs two" : nil
    }

    /// `3 rows of score are not numbers: left out`, or nil.
    var leftOutNote: String? {
        notNumbers == 0 ? nil : "\(notNumbers) \(notNumbers == 1 ? "row" : "rows") of \(spec.title) not a number: left out"
    }

    /// One change of the selection: each changed child moves one count (a first window, or a
    /// change of many children, is counted afresh).
    func apply(_ change: WindowChange) {
        defer { window = change.new }
        guard let old = change.old, change.childEvents.count <= max(64, window.count / 16) else {
            // The store's first answer is the window the chart opened on.
            if change.old == nil, change.new.document === window.document { return }
            window = change.new
            return rebuild(logarithmic: histogram.scale.isLogarithmic)
        }
        for event in change.childEvents {
            switch event.kind {
            case .childAdded: count(event.value, by: 1)
            case .childRemoved: count(event.value, by: -1)
            case .childChanged:
                guard let from = event.fromIndex else { continue }
                count(old.value(at: from), by: -1)
                count(event.value, by: 1)
            case .childMoved: continue
            }
        }
    }

    private func count(_ child: JSONNode, by delta: Int) {
        guard let x = numbers?.number(of: child) else { return notNumbers += delta }
        if delta > 0 { histogram.insert(x) } else { histogram.remove(x) }
    }

    override func grid(size: CanvasSize) -> CellGrid { histogram.draw(size: size) }
    override func svg() -> String { histogram.svg() }

    override var countText: String {
        let n = histogram.total
        return "\(n) \(n == 1 ? "value" : "values") in \(binCount) \(histogram.scale.isLogarithmic ? "logarithmic" : "linear") bins"
            + (notNumbers > 0 ? " · \(notNumbers) not numbers" : "")
    }

    override var chartKeys: [(ViewerAction, String)] { [(.toggleBinning, "log/linear")] }

    override func performChart(_ action: ViewerAction) -> Bool {
        guard action == .toggleBinning else { return false }
        rebuild(logarithmic: !histogram.scale.isLogarithmic)
        if histogram.scale.isLogarithmic, histogram.leftOut.outside > 0 {
            viewer.message = Viewer.Message(text: "logarithmic bins: \(histogram.leftOut.outside) values ≤ 0 left out", isError: false)
        }
        return true
    }
}
