// `@`: the selected row's values of the column under the cursor over the kept revisions, as a
// time series (or the top rows as labelled lines), with the time machine's position marked.
import Charts
import JSONTree
import LiveQuery
import SyncedArray
import TableUI

extension ViewerAction {
    public static let timeSeries = Self("timeSeries")
}

/// A time series of one column over the time machine's records: the selected row's values
/// (or, after `b`, the `top` rows with the largest values now, one labelled line each).
/// Live: each new revision extends the lines; `[` and `]` move the time machine, and its mark.
final class SeriesSheet: ChartSheet, SheetOpener {
    static let opening = ViewerAction.timeSeries
    static let bindings: [(after: ViewerAction, binding: KeyBinding)] = [
        (.sparkColumn, KeyBinding("@", [.character("@")], .timeSeries,
                                  "history: the selected row's values of the column under the cursor over the kept revisions, as a time series (live; [ ] move the mark; b: the top rows; E writes SVG)")),
    ]
    /// How many lines the top form draws.
    static let top = 5

    let spec: ColumnSpec
    let key: String
    private unowned let children: ChildrenSheet
    private let history: RevisionHistory
    private let marker: Marker
    private(set) var showsTop = false
    private(set) var series = TimeSeries([])

    static func open(from children: ChildrenSheet) -> StackOpening {
        let spec = children.cursorSpec
        guard spec != .key, spec.path != nil else { return .message("a time series charts a stored column: move the column cursor (← →) to a number") }
        guard let viewer = children.viewer, let history = children.array?.history, let (key, _) = children.selectedChild else {
            return .message("no row selected: nothing to chart")
        }
        history.loadAllEarlier()
        let sheet = SeriesSheet(viewer: viewer, children: children, history: history, spec: spec, key: key)
        if let refusal = sheet.refusal { return .message(refusal) }
        sheet.feed = .revisions(of: history) { [weak sheet] in sheet?.rebuild() }
        return .drawn(sheet)
    }

    init(viewer: Viewer, children: ChildrenSheet, history: RevisionHistory, spec: ColumnSpec, key: String) {
        self.spec = spec
        self.key = key
        self.children = children
        self.history = history
        marker = children.chartMarker
        super.init(viewer: viewer, title: "\(spec.title) of \(key) over time")
        rebuild()
    }

    /// The line of one row: its value after each kept revision that changed it (and now).
    private func line(_ key: String, present: JSONNode?) -> TimeLine {
        var points = history.timeline(ofKey: key, value: present).compactMap { entry -> TimePoint? in
            // Read from the value itself (a document built for each would cost its bytes).
            guard let path = spec.path, let value = entry.value?[path: path]?.doubleValue else { return nil }
            return TimePoint(time: entry.record.time, value: value)
        }
        if points.isEmpty, let now = present.flatMap({ spec.node(in: $0)?.doubleValue }), let last = history.records.last {
            points.append(TimePoint(time: last.time, value: now))
        }
        return TimeLine(name: key, points: points)
    }

    /// The lines again from the history (a new revision, or the other form).
    func rebuild() {
        let present: (String) -> JSONNode? = { [children] key in
            children.array.flatMap { a in a.index(ofKey: key).map { a[$0].value } }
        }
        if showsTop {
            let keys = (children.rows.rows ?? []).map(\.key)
            series = TimeSeries(keys.map { line($0, present: present($0)) }, top: Self.top)
        } else {
            series = TimeSeries([line(key, present: present(key))])
        }
    }

    var pointCount: Int { series.lines.reduce(0) { $0 + $1.points.count } }

    var refusal: String? {
        let n = pointCount
        if n == 0 { return "\(key) has no number in \(spec.title) in the kept revisions: nothing to chart" }
        return n < 2 ? "\(key)'s \(spec.title) has one value in the kept revisions: a time series needs two (it grows as the file changes)" : nil
    }

    override func grid(size: CanvasSize) -> CellGrid {
        var chart = series
        // The time machine's position: the time of the record shown (none in the present).
        chart.position = children.travel?.record?.time
        return chart.draw(size: size, marker: marker)
    }

    override func svg() -> String {
        var chart = series
        chart.position = children.travel?.record?.time
        return chart.svg()
    }

    override var countText: String {
        let n = pointCount
        return "\(n) \(n == 1 ? "value" : "values")" + (showsTop ? " of the top \(series.lines.count) rows" : "")
    }

    override var chartKeys: [(ViewerAction, String)] {
        [(.historyBack, "back in time"), (.historyForward, "forward"), (.toggleBinning, showsTop ? "this row" : "top rows")]
    }

    override func performChart(_ action: ViewerAction) -> Bool {
        switch action {
        // The table may lay out its rows under the chart when it steps: it draws through the
        // same screen, so the chart's next frame writes back only the cells the table took.
        case .historyBack: children.stepHistory(back: true)
        case .historyForward: children.stepHistory(back: false)
        case .historyPresent: children.returnToPresent()
        case .toggleBinning:
            showsTop.toggle()
            rebuild()
        default: return false
        }
        return true
    }
}
