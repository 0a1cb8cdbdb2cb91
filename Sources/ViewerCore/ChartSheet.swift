// A chart as a sheet on the viewer's stack: drawn in the table's lines, and only the cells
// that changed since the last frame reach the terminal.
import Charts
import JSONTree
import LiveQuery
import TableUI

/// What every chart sheet shares: its place on the screen (a `ChartView` over the lines the
/// viewer gives it), a cell cursor, `E` to write the chart as SVG, and a feed. A chart says
/// what it draws (`grid(size:)`), its SVG and its keys; it calls `changed()` when its data did.
class ChartSheet: StackSheet {
    unowned let viewer: Viewer
    let title: String
    /// What it follows (set by the chart; started and stopped with the sheet).
    var feed: SheetFeed?
    /// Where the chart is drawn (through the viewer's screen, which knows what it shows).
    private var view: ChartView?
    private var area: (line: Int, size: CanvasSize)?
    /// The cell under the cursor, in the chart's own lines and columns (Enter reads it).
    var cursor: (line: Int, column: Int)?

    init(viewer: Viewer, title: String) {
        self.viewer = viewer
        self.title = title
    }

    // MARK: What a chart gives

    /// The chart in `size`, as it should look now.
    func grid(size: CanvasSize) -> CellGrid { CellGrid(size: size) }
    /// The chart as SVG.
    func svg() -> String { "" }
    /// A key of the chart's own; false when it means nothing here.
    func performChart(_ action: ViewerAction) -> Bool { false }
    /// How many points (or values) it shows, for the status bar.
    var countText: String { "" }
    /// Its own keys for the message line, after `q back`.
    var chartKeys: [(ViewerAction, String)] { [] }

    // MARK: As a sheet

    func start() { feed?.start() }
    func stop() { feed?.stop() }

    /// The size the chart was last drawn at (nil before the first frame).
    var shownSize: CanvasSize? { area?.size }

    func render(into canvas: Canvas, lines: Range<Int>) {
        let size = CanvasSize(rows: lines.count, columns: canvas.size.columns)
        if view == nil || view!.canvas !== canvas || area?.line != lines.lowerBound || area?.size != size {
            view = ChartView(canvas: canvas, line: lines.lowerBound)
            area = (lines.lowerBound, size)
        }
        var picture = grid(size: size)
        if let cursor, cursor.line < size.rows, cursor.column < size.columns {
            var cell = picture[cursor.line, cursor.column]
            cell.style.attributes.insert(.reverse)
            picture[cursor.line, cursor.column] = cell
        }
        view?.draw(picture, flush: false)
    }

    var selectedRow: SelectedRow? { nil }
    var status: SheetStatus { SheetStatus(count: countText) }
    var emptyText: String { "" }
    var keyHint: [(ViewerAction, String)]? { [(.quit, "back")] + chartKeys + [(.export, "SVG")] }

    func perform(_ action: ViewerAction) -> Bool {
        switch action {
        case .export:
            viewer.mode = .prompt(Prompt(purpose: .export, label: "write the chart as SVG to (.svg): ", text: ""))
        case .down: moveCursor(lines: 1, columns: 0)
        case .up: moveCursor(lines: -1, columns: 0)
        case .columnLeft: moveCursor(lines: 0, columns: -1)
        case .columnRight: moveCursor(lines: 0, columns: 1)
        default: return performChart(action)
        }
        return true
    }

    /// Moves the cell cursor (it appears at the chart's middle on the first move).
    func moveCursor(lines: Int, columns: Int) {
        guard let size = area?.size, size.rows > 0, size.columns > 0 else { return }
        let at = cursor ?? (size.rows / 2, size.columns / 2)
        cursor = (min(max(0, at.line + lines), size.rows - 1), min(max(0, at.column + columns), size.columns - 1))
    }

    /// `E`'s answer: the SVG written to the file named.
    func accept(_ prompt: Prompt) {
        guard case .export = prompt.purpose else { return }
        let file = prompt.text.trimmingSpaces
        guard file.hasSuffix(".svg") else {
            viewer.message = Viewer.Message(text: file.isEmpty ? "nothing written" : "\(file): the name must end in .svg", isError: !file.isEmpty)
            return
        }
        let text = svg()
        do {
            try writeAtomically(to: file) { out, _ in out.append(contentsOf: text.utf8) }
            viewer.message = Viewer.Message(text: "wrote the \(title) to \(file) (SVG, \(text.utf8.count) bytes)", isError: false)
        } catch {
            viewer.message = Viewer.Message(text: "not written: \(file): \(error)", isError: true)
        }
    }

    /// The size a chart opened now will have: the table's lines, the whole width.
    static func expectedSize(_ viewer: Viewer) -> CanvasSize {
        let size = viewer.canvas.size
        let lines = viewer.layout(size)?.table.count ?? size.rows
        return CanvasSize(rows: max(4, lines), columns: max(10, size.columns))
    }
}

extension ChildrenSheet {
    /// The marker charts draw dots with: braille, or ASCII where the terminal asks.
    var chartMarker: Marker { environment.unicode ? .braille : .ascii }
}

extension ChildrenSheet {
    /// The children of the current selection, read now (a chart opens on them or says why not).
    func currentWindow() -> Window? {
        guard let revision = store.currentRevision, let selection = currentSelection else { return nil }
        return Window(query: selection.query, path: location, document: revision.document)
    }
}
