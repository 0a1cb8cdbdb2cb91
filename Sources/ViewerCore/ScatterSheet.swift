// `.`: the column under the cursor against one picked, optionally coloured by a third, as a
// braille scatter kept live; Enter on a cell opens its rows.
import Charts
import JSONTree
import LiveQuery
import LiveViews
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
    /// The two columns' numbers, read straight from the revision's tape.
    private let xNumbers: NumberColumn, yNumbers: NumberColumn
    private(set) var scatter: Scatter
    /// Each row's slot in the scatter, by row of `window`: a changed row moves the point in its
    /// slot, found by the change's row index without a key.
    private var slotOfRow: [Int32] = []
    /// Slots of removed rows, for rows added later.
    private var freeSlots: [Int32] = []
    private var window: Window
    /// Children without a number in both columns.
    var leftOutRows: Int { window.count - scatter.pointCount }

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
        guard let sheet, sheet.refusal == nil else {
            let refusal = sheet?.refusal ?? "no row has a number in both \(x.title) and \(y.title): nothing to chart"
            children.message = Viewer.Message(text: refusal, isError: false)
            return
        }
        sheet.feed = .changes(of: { selection.reference }, startingFrom: window) { [weak sheet] change in sheet?.apply(change) }
        viewer.push(shown: sheet)
        if sheet.leftOutRows > 0 {
            viewer.message = Viewer.Message(text: "\(sheet.leftOutRows) \(sheet.leftOutRows == 1 ? "row" : "rows") without a number in both \(x.title) and \(y.title): left out", isError: false)
        }
    }

    init?(viewer: Viewer, x: ColumnSpec, y: ColumnSpec, colour: ColumnSpec?, selection: Selection, window: Window, marker: Marker) {
        guard let xNumbers = x.numberColumn, let yNumbers = y.numberColumn else { return nil }
        self.x = x
        self.y = y
        self.colour = colour
        self.selection = selection
        self.window = window
        self.marker = marker
        self.xNumbers = xNumbers
        self.yNumbers = yNumbers
        scatter = Scatter(xs: [], ys: [], size: ChartSheet.expectedSize(viewer), marker: marker)
        super.init(viewer: viewer, title: "\(y.title) against \(x.title)" + (colour.map { " by \($0.title)" } ?? ""))
        rebuild(size: ChartSheet.expectedSize(viewer))
    }

    /// The point of `child`, nil when it lacks a number in either column.
    private func point(_ child: JSONNode) -> ScatterPoint? {
        guard let px = xNumbers.number(of: child), let py = yNumbers.number(of: child) else { return nil }
        return ScatterPoint(x: px, y: py, category: colour.map { $0.node(in: child).map(cellText) ?? "none" })
    }

    /// Places every row of the window afresh, slot i for row i, on scales fitted to them: the two
    /// columns read in one pass into two arrays, then binned in one pass.
    private func rebuild(size: CanvasSize) {
        let columns = NumberColumn.numbers([xNumbers, yNumbers], of: window)
        let categories = colour.map { spec in (0..<window.count).map { Optional(spec.node(in: window.value(at: $0)).map(cellText) ?? "none") } }
        scatter = Scatter(xs: columns[0], ys: columns[1], categories: categories, size: size, marker: marker)
        slotOfRow = (0..<Int32(window.count)).map { $0 }
        freeSlots = []
    }

    var refusal: String? {
        let n = scatter.pointCount
        if n == 0 { return "no row has a number in both \(x.title) and \(y.title): nothing to chart" }
        return n < 2 ? "only one row has a number in both \(x.title) and \(y.title): a scatter needs two" : nil
    }

    /// One change of the selection: each removed, added or changed row moves its slot's point,
    /// and the rows' slots follow the batch (a first window, or a change of many children, is
    /// placed afresh).
    func apply(_ change: WindowChange) {
        defer { window = change.new }
        guard change.old != nil, change.childEvents.count <= max(64, window.count / 16) else {
            if change.old == nil, change.new.document === window.document { return }
            window = change.new
            return rebuild(size: scatter.frame.size)
        }
        // New rows' slots: added rows take a free slot, changed rows keep theirs.
        var arrived: [Int: Int32] = [:]
        for event in change.childEvents {
            switch event.kind {
            case .childRemoved:
                let slot = slotOfRow[event.index]
                scatter.move(Int(slot), to: nil)
                freeSlots.append(slot)
            case .childAdded:
                let slot = freeSlots.popLast() ?? Int32(scatter.slotCount)
                scatter.move(Int(slot), to: point(event.value))
                arrived[event.index] = slot
            case .childChanged:
                guard let from = event.fromIndex else { continue }
                let slot = slotOfRow[from]
                scatter.move(Int(slot), to: point(event.value))
                arrived[event.index] = slot
            case .childMoved: continue
            }
        }
        let batch = change.batch
        guard !(batch.deletes.isEmpty && batch.inserts.isEmpty && batch.moves.isEmpty) else { return }
        var unknown = false
        let next = batch.apply(to: slotOfRow) { row -> Int32 in
            if let slot = arrived[row] { return slot }
            unknown = true
            return -1
        }
        guard !unknown else {
            // A batch that disagrees with its events would misplace points: placed afresh.
            window = change.new
            return rebuild(size: scatter.frame.size)
        }
        slotOfRow = next
    }

    override func grid(size: CanvasSize) -> CellGrid {
        if scatter.frame.size != size { scatter = scatter.resized(to: size) }
        return scatter.grid
    }

    override func svg() -> String {
        var names = [String](repeating: "", count: scatter.slotCount)
        for (row, slot) in slotOfRow.enumerated() { names[Int(slot)] = window.key(at: row) }
        return scatter.svg { names[$0] }
    }

    override var countText: String {
        let n = scatter.pointCount
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
        let slots = scatter.slots(line: cursor.line, column: cursor.column)
        guard !slots.isEmpty else {
            viewer.message = Viewer.Message(text: "no point in this cell", isError: false)
            return true
        }
        let cell = PlotCell(column: cursor.column - scatter.frame.plotLeft, row: cursor.line - scatter.frame.plotTop)
        let chart = scatter
        viewer.push(MatchingRowsSheet(selection: selection, title: "\(slots.count) in the cell") { [xNumbers, yNumbers] child in
            guard let px = xNumbers.number(of: child), let py = yNumbers.number(of: child),
                  let (dot, _) = chart.placement(of: ScatterPoint(x: px, y: py)) else { return false }
            return chart.dots.cell(of: dot) == cell
        })
        return true
    }
}
