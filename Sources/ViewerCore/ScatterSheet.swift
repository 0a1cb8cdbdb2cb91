// `.`: the column under the cursor against one picked, optionally coloured by a third, as a
// braille scatter kept live; Enter on a cell opens its rows.
import Charts
import JSONTree
import LiveQuery
import TableUI

extension ViewerAction {
    public static let scatter = Self("scatter")
}

/// Each child a point: x the column under the cursor, y the column picked at the prompt, and
/// (optionally) a colour by a third column's values, the most frequent few in the legend.
/// Live: a changed row moves its point, and only the cells it left and entered are drawn again.
final class ScatterSheet: ChartSheet, SheetOpener {
    static let opening = ViewerAction.scatter
    static let bindings: [(after: ViewerAction, binding: KeyBinding)] = [
        (.histogram, KeyBinding(".", [.character(".")], .scatter,
                                "scatter: the column under the cursor against one picked (and a colour column), as a chart sheet (live; Enter on a cell opens its rows; E writes SVG)")),
    ]

    let x: ColumnSpec, y: ColumnSpec, colour: ColumnSpec?
    private let selection: Selection
    private let marker: Marker
    private(set) var scatter: Scatter
    /// Children without a number in both columns.
    private(set) var leftOutRows = 0
    private var window: Window

    /// Asks for the y column (and a colour column), then opens the chart.
    static func open(from children: ChildrenSheet) -> StackOpening {
        let x = children.cursorSpec
        guard x != .key else { return .message("a key is not a number: . charts the column under the cursor against another") }
        let others = children.rows.columnSet.specs.filter { $0 != .key && $0 != x }
        guard !others.isEmpty else { return .message("no other column to chart \(x.title) against") }
        let list = others.enumerated().map { "\($0.offset + 1) \($0.element.title)" }.joined(separator: "  ")
        children.mode = .prompt(Prompt(purpose: .answer({ [unowned children] text in ScatterSheet.answer(text, x: x, others: others, children) }),
                                       label: "scatter \(x.title) against: \(list) (a number or name; then one to colour by): ", text: ""))
        return .said
    }

    /// The prompt's answer: `2`, `level`, or `level team` (y, then a colour column).
    private static func answer(_ text: String, x: ColumnSpec, others: [ColumnSpec], _ children: ChildrenSheet) {
        let words = text.split(separator: " ").map(String.init)
        let picked = words.map { word in Int(word).flatMap { $0 >= 1 && $0 <= others.count ? others[$0 - 1] : nil }
            ?? others.first { $0.title == word } }
        guard let first = picked.first, let y = first, picked.count <= 2 else {
            let bad = words.first { word in !others.contains { $0.title == word } && Int(word) == nil } ?? text
            children.message = Viewer.Message(text: words.isEmpty ? "no chart: no column picked" : "no column \(JSON.string(bad).serializedString()) to chart against", isError: true)
            return
        }
        let colour = picked.count == 2 ? picked[1] : nil
        if picked.count == 2, colour == nil {
            children.message = Viewer.Message(text: "no column \(JSON.string(words[1]).serializedString()) to colour by", isError: true)
            return
        }
        guard let viewer = children.viewer, let selection = children.currentSelection else { return }
        guard let window = children.currentWindow() else {
            children.message = Viewer.Message(text: "no rows yet: nothing to chart", isError: false)
            return
        }
        let sheet = ScatterSheet(viewer: viewer, x: x, y: y, colour: colour, selection: selection, window: window, marker: children.chartMarker)
        if let refusal = sheet.refusal {
            children.message = Viewer.Message(text: refusal, isError: false)
            return
        }
        sheet.feed = .changes(of: { selection.reference }) { [weak sheet] change in sheet?.apply(change) }
        viewer.push(shown: sheet)
        if sheet.leftOutRows > 0 {
            viewer.message = Viewer.Message(text: "\(sheet.leftOutRows) \(sheet.leftOutRows == 1 ? "row" : "rows") without a number in both \(x.title) and \(y.title): left out", isError: false)
        }
    }

    init(viewer: Viewer, x: ColumnSpec, y: ColumnSpec, colour: ColumnSpec?, selection: Selection, window: Window, marker: Marker) {
        self.x = x
        self.y = y
        self.colour = colour
        self.selection = selection
        self.window = window
        self.marker = marker
        scatter = Scatter(points: [:], size: ChartSheet.expectedSize(viewer), marker: marker)
        super.init(viewer: viewer, title: "\(y.title) against \(x.title)" + (colour.map { " by \($0.title)" } ?? ""))
        rebuild(size: ChartSheet.expectedSize(viewer))
    }

    /// The point of `child`, nil when it lacks a number in either column.
    private func point(_ child: JSONNode) -> ScatterPoint? {
        guard let px = x.node(in: child)?.doubleValue, let py = y.node(in: child)?.doubleValue else { return nil }
        return ScatterPoint(x: px, y: py, category: colour.map { $0.node(in: child).map(cellText) ?? "none" })
    }

    /// Places every child of the window afresh, on scales fitted to them.
    private func rebuild(size: CanvasSize) {
        var points: [String: ScatterPoint] = [:]
        points.reserveCapacity(window.count)
        leftOutRows = 0
        for i in 0..<window.count {
            if let p = point(window.value(at: i)) { points[window.key(at: i)] = p } else { leftOutRows += 1 }
        }
        scatter = Scatter(points: points, size: size, marker: marker)
    }

    var refusal: String? {
        let n = scatter.points.count
        if n == 0 { return "no row has a number in both \(x.title) and \(y.title): nothing to chart" }
        return n < 2 ? "only one row has a number in both \(x.title) and \(y.title): a scatter needs two" : nil
    }

    /// One change of the selection: each changed child's point moves (a first window, or a
    /// change of many children, is placed afresh).
    func apply(_ change: WindowChange) {
        defer { window = change.new }
        guard change.old != nil, change.childEvents.count <= max(64, window.count / 16) else {
            if change.old == nil, change.new.document === window.document { return }
            window = change.new
            return rebuild(size: scatter.frame.size)
        }
        for event in change.childEvents {
            switch event.kind {
            case .childAdded: place(event.key, event.value, isNew: true)
            case .childChanged: place(event.key, event.value, isNew: false)
            case .childRemoved: place(event.key, nil, isNew: false)
            case .childMoved: continue
            }
        }
    }

    /// Row `key` is now `child` (nil: gone): its point moves, or it is counted as left out.
    private func place(_ key: String, _ child: JSONNode?, isNew: Bool) {
        let had = scatter.points[key] != nil
        if !isNew, !had { leftOutRows -= 1 }  // it was left out
        let p = child.flatMap(point)
        if child != nil, p == nil { leftOutRows += 1 }
        if had || p != nil { scatter.move(key, to: p) }
    }

    override func grid(size: CanvasSize) -> CellGrid {
        if scatter.frame.size != size {
            let points = scatter.points
            scatter = Scatter(points: points, size: size, marker: marker)
        }
        return scatter.grid
    }

    override func svg() -> String { scatter.svg() }

    override var countText: String {
        let n = scatter.points.count
        return "\(n) \(n == 1 ? "point" : "points")" + (leftOutRows > 0 ? " · \(leftOutRows) rows left out" : "")
    }

    override var chartKeys: [(ViewerAction, String)] { [(.open, "rows under the cursor")] }

    /// Enter: the rows whose points are in the cell under the cursor, as a live table.
    override func performChart(_ action: ViewerAction) -> Bool {
        guard action == .open else { return false }
        guard let cursor else {
            viewer.message = Viewer.Message(text: "move the cursor (arrows, j k) to a cell of the chart first", isError: false)
            return true
        }
        let keys = scatter.rows(line: cursor.line, column: cursor.column)
        guard !keys.isEmpty else {
            viewer.message = Viewer.Message(text: "no point in this cell", isError: false)
            return true
        }
        let cell = PlotCell(column: cursor.column - scatter.frame.plotLeft, row: cursor.line - scatter.frame.plotTop)
        let chart = scatter
        viewer.push(MatchingRowsSheet(selection: selection, title: "\(keys.count) in the cell") { [x, y] child in
            guard let px = x.node(in: child)?.doubleValue, let py = y.node(in: child)?.doubleValue,
                  let (dot, _) = chart.placement(of: ScatterPoint(x: px, y: py)) else { return false }
            return chart.dots.cell(of: dot) == cell
        })
        return true
    }
}
