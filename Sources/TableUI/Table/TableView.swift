// The table widget: rows from a data source, drawn into a canvas, changed by batches.
#if canImport(Glibc)
import Glibc
#endif

/// A scrolling table with a header row, a selection, horizontal scrolling, and animated
/// batch updates drawn in place. It knows nothing of where rows come from.
///
/// One thread owns it (the one that owns the terminal). The program's run loop:
/// ```swift
/// let terminal = try Terminal()
/// defer { terminal.restore() }
/// let table = TableView(dataSource: rows, settings: TableSettings(theme: terminal.theme))
/// while running {
///     table.render(into: terminal.canvas)       // draws only what changed
///     terminal.canvas.flush()
///     let timeout = table.nextDeadline.map { max(0, $0 - TableClock.now()) }  // nil: wait for input
///     poll(...terminal.inputFD..., timeout)
///     while let key = terminal.readKey() { if !table.handle(key) { ... } }
///     if let batch = rows.takeBatch() {         // the data source changed first
///         do { try table.performBatchUpdates(batch) } catch { status = "\(error)" }  // reloaded instead
///     }
///     table.tick(now: TableClock.now())
/// }
/// ```
/// Tests draw into a `MemoryCanvas` with a fixed clock.
public final class TableView {
    /// Where rows come from; after replacing it, call `reloadData()`.
    public var dataSource: any TableDataSource
    public var settings: TableSettings
    public internal(set) var state = TableState()
    /// The row count as of the latest batch or reload (what the screen reflects).
    public internal(set) var rowCount: Int

    /// The canvas lines and width of the latest render.
    var viewport: (lines: Range<Int>, width: Int)?
    /// Which row (or closing line) each body line showed at the latest render, so lines that
    /// only moved are shifted. What the lines look like is the screen's to know (`ScreenCanvas`).
    var shownKeys: [LineKey?] = []
    /// The screen in front of a plain canvas (a program drawing the table alone); a canvas that
    /// is a `ScreenCanvas` already is drawn through as it is.
    private var ownScreen: ScreenCanvas?
    /// Sanitised cells of the rows drawn by the latest render (old values for reloads,
    /// and the text of a deleted row's closing line).
    var rowCells: [Int: [String]] = [:]
    /// The highlighted columns of the rows on screen (from the data source, per render).
    var rowHighlights: [Int: Set<Int>] = [:]
    /// The sanitised spanning texts of the rows on screen that have one (per render).
    var rowSpans: [Int: String] = [:]
    /// The widest sanitised text seen per column since the latest reload (widths only grow,
    /// so columns do not jump while scrolling).
    var contentWidths: [Int] = []
    var knownColumns: [TableColumn] = []
    var nextAnimationID = 1
    /// The latest render only said the canvas is too small (the viewport is the last usable one).
    var isTooSmall = false
    /// The width changed or columns came or went: the next render scrolls the columns afresh.
    var columnsNeedLayout = false

    /// A scalar cap per cell: more than any terminal line can show.
    static let cellScalarLimit = 2048

    public init(dataSource: any TableDataSource, settings: TableSettings = TableSettings()) {
        self.dataSource = dataSource
        self.settings = settings
        rowCount = dataSource.numberOfRows
        state.selection = rowCount > 0 ? 0 : nil
    }

    /// Number of body lines (rows shown at once) in the latest render.
    public var bodyHeight: Int { viewport.map { max(0, $0.lines.count - 1) } ?? 0 }

    /// Rereads everything from the data source: the row count, and every cell on the next
    /// render. Animations stop; the selection keeps its index (clamped).
    public func reloadData() {
        rowCount = dataSource.numberOfRows
        state.animations.removeAll()
        rowCells.removeAll()
        knownColumns = []
        for i in shownKeys.indices { shownKeys[i] = nil }
        if rowCount == 0 {
            state.selection = nil
        } else {
            state.selection = min(max(0, state.selection ?? 0), rowCount - 1)
        }
        clampOffset()
    }

    /// Forgets what the canvas shows, so the next render draws every line (after
    /// something else drew over the table, or the screen was cleared). A table drawn through a
    /// `ScreenCanvas` of its caller's has that screen forget instead.
    public func invalidate() {
        ownScreen?.forget()
        shownKeys = Array(repeating: nil, count: shownKeys.count)
    }

    /// The screen a render draws through: `canvas` when it is one, else the table's own.
    private func screen(over canvas: Canvas) -> ScreenCanvas {
        if let screen = canvas as? ScreenCanvas { return screen }
        if ownScreen?.base !== canvas { ownScreen = ScreenCanvas(canvas) }
        return ownScreen!
    }

    // MARK: - Rendering

    /// Draws the table into `lines` of `canvas` (all of it by default): the header on the
    /// first line, rows below. Only lines whose content changed are drawn; lines that
    /// only moved are shifted with `insertLines`/`deleteLines`. Does not flush.
    /// - Complexity: O(lines × columns) plus the data source's `cells` for visible rows.
    public func render(into canvas: Canvas, lines: Range<Int>? = nil) {
        let canvas = screen(over: canvas)
        let size = canvas.size
        let lines = (lines ?? 0..<size.rows).clamped(to: 0..<max(0, size.rows))
        // Too small: say so, and leave the state for when the canvas is usable again.
        guard lines.count >= 2, size.columns >= TableLayout.minimumWidth else {
            renderTooSmall(canvas, lines: lines, width: size.columns)
            return
        }
        isTooSmall = false
        if viewport == nil || viewport!.lines != lines || viewport!.width != size.columns {
            if viewport?.width != size.columns { columnsNeedLayout = true }
            let selectionLine = anchor()
            viewport = (lines, size.columns)
            shownKeys = Array(repeating: nil, count: lines.count - 1)
            if var selectionLine {
                selectionLine.line = min(selectionLine.line, max(0, bodyHeight - 1))
                restore(selectionLine)
            } else {
                clampOffset()
            }
        }

        let items = (0..<bodyHeight).map { displayItem(at: state.offset + $0) }
        var cells: [Int: [String]] = [:]
        let columns = dataSource.columns
        for case .row(let r)? in items { cells[r] = fetchCells(r, columnCount: columns.count) }
        rowCells = cells
        rowHighlights = [:]
        rowSpans = [:]
        for r in cells.keys {
            let marked = dataSource.highlightedColumns(ofRow: r)
            if !marked.isEmpty { rowHighlights[r] = marked }
            if let span = dataSource.spanningText(ofRow: r) { rowSpans[r] = sanitize(span, scalarLimit: TableView.cellScalarLimit) }
        }
        let layout = layoutColumns(columns, rows: cells.values, width: size.columns)

        let header = renderHeader(columns, layout)
        var body: [RenderedLine] = []
        body.reserveCapacity(items.count)
        let animationsByRow = Dictionary(grouping: state.animations.filter { !$0.isDelete }, by: \.row)
        for (line, item) in items.enumerated() {
            body.append(renderBodyLine(item, line: line, columns: columns, layout, animationsByRow))
        }

        // Shift lines whose content is unchanged to their new places, then draw the rest.
        var oldLine: [LineKey: Int] = [:]
        for (q, key) in shownKeys.enumerated() {
            if let key { oldLine[key] = q }
        }
        let top = lines.lowerBound + 1
        var pairs: [(old: Int, new: Int)] = []
        for (p, item) in items.enumerated() {
            // A line that moved is shifted only when it still looks the same (else it is drawn).
            guard let key = item?.key, let q = oldLine[key], q == p || body[p].isShown(on: canvas, line: top + q) else { continue }
            pairs.append((q, p))
        }
        for shift in planLineShifts(pairs: pairs) {
            switch shift {
            case .insert(let n, let at, let regionEnd): canvas.insertLines(n, at: top + at, regionEnd: top + regionEnd)
            case .delete(let n, let at, let regionEnd): canvas.deleteLines(n, at: top + at, regionEnd: top + regionEnd)
            }
        }
        // Every line is drawn: the screen passes on only the cells that changed.
        header.draw(on: canvas, line: lines.lowerBound)
        for p in body.indices { body[p].draw(on: canvas, line: top + p) }
        shownKeys = items.map { $0?.key }
    }

    /// The row drawn on canvas line `line` by the latest render (nil for the header, a
    /// closing line, or past the end).
    public func row(atCanvasLine line: Int) -> Int? {
        guard let viewport, !isTooSmall, line > viewport.lines.lowerBound, line < viewport.lines.upperBound else { return nil }
        if case .row(let r)? = displayItem(at: state.offset + line - viewport.lines.lowerBound - 1) { return r }
        return nil
    }

    private func fetchCells(_ row: Int, columnCount: Int) -> [String] {
        var raw = dataSource.cells(ofRow: row)
        if raw.count > columnCount { raw.removeLast(raw.count - columnCount) }
        while raw.count < columnCount { raw.append("") }
        return raw.map { sanitize($0, scalarLimit: TableView.cellScalarLimit) }
    }

    /// Column widths from the header and the widest content seen (grow-only), within
    /// each column's min and max and the canvas width.
    private func layoutColumns(_ columns: [TableColumn], rows: Dictionary<Int, [String]>.Values, width: Int) -> TableLayout {
        if columns != knownColumns {
            if columns.count != knownColumns.count { columnsNeedLayout = true }
            knownColumns = columns
            contentWidths = columns.map { displayWidth(sanitize($0.title)) }
            state.firstColumn = min(state.firstColumn, max(0, columns.count - 1))
        }
        for cells in rows {
            for (i, text) in cells.enumerated() where i < contentWidths.count {
                let w = displayWidth(text)
                if w > contentWidths[i] { contentWidths[i] = w }
            }
        }
        for animation in state.animations {
            if case .delete(let cells) = animation.kind {
                for (i, text) in cells.enumerated() where i < contentWidths.count {
                    contentWidths[i] = max(contentWidths[i], displayWidth(text))
                }
            }
        }
        if let c = state.selectedColumn { state.selectedColumn = min(c, max(0, columns.count - 1)) }
        if columnsNeedLayout {
            // Scrolled for another width or other columns: from the left again, as many columns
            // as fit, then (below) as far right as the column cursor needs.
            columnsNeedLayout = false
            state.firstColumn = state.selectedColumn == nil
                ? min(state.firstColumn, TableLayout.lastFirstColumn(widths: columnWidths(width: width), width: width, frozen: settings.frozenColumns))
                : 0
        }
        var widths = columnWidths(width: width)
        let first = state.firstColumn
        scrollToSelectedColumn(widths: widths, width: width)
        // The spare cells go to the columns now shown.
        if state.firstColumn != first { widths = columnWidths(width: width) }
        return TableLayout(widths: widths, firstColumn: state.firstColumn, width: width, frozen: settings.frozenColumns)
    }

    /// Scrolls the columns as little as needed for the column cursor's column to be shown whole.
    private func scrollToSelectedColumn(widths: [Int], width: Int) {
        guard let c = state.selectedColumn, c < widths.count else { return }
        let frozen = min(settings.frozenColumns, widths.count)
        // A frozen column is always on screen: the scroll stays as it is.
        if c < frozen { return }
        if c < state.firstColumn {
            state.firstColumn = c
            return
        }
        state.firstColumn = max(state.firstColumn, frozen)
        func fits() -> Bool {
            let x = widths[state.firstColumn..<c].reduce(widths[0..<frozen].reduce(TableLayout.gutter) { $0 + $1 + 2 }) { $0 + $1 + 2 }
            return x + widths[c] + 1 <= width
        }
        while state.firstColumn < c, !fits() { state.firstColumn += 1 }
    }

    /// Each known column's width for a canvas `width` cells wide: its content within its
    /// minimum and maximum; then, when every column from the first shown fits with room to
    /// spare, the spare cells go to the columns whose content was cut, left to right (the key
    /// column first), so no text is cut while the screen has room for it.
    func columnWidths(width: Int) -> [Int] {
        let cap = max(1, width - TableLayout.gutter - 1)
        var widths = knownColumns.indices.map { i in
            let column = knownColumns[i]
            return min(cap, min(column.maxWidth, max(column.minWidth, contentWidths[i])))
        }
        let shown = TableLayout.scrolledIndexes(count: widths.count, firstColumn: state.firstColumn, frozen: settings.frozenColumns)
        var spare = width - shown.reduce(TableLayout.gutter - 1) { $0 + widths[$1] + 2 }
        for i in shown where spare > 0 && contentWidths[i] > widths[i] && !knownColumns[i].isFixedWidth {
            let grow = min(spare, min(cap, contentWidths[i]) - widths[i])
            guard grow > 0 else { continue }
            widths[i] += grow
            spare -= grow
        }
        return widths
    }

    private func renderHeader(_ columns: [TableColumn], _ layout: TableLayout) -> RenderedLine {
        let style = settings.theme.header
        let symbols = settings.theme.symbols
        var b = LineBuilder(width: layout.width)
        b.append(layout.moreLeft ? symbols.moreLeft : " ", style)
        for placement in layout.placements {
            b.pad(to: placement.x, style)
            let column = columns[placement.index]
            // The column cursor is its header cell in reverse video.
            let titleStyle = placement.index == state.selectedColumn ? style.toggling(.reverse) : style
            let title = fit(sanitize(column.title), width: placement.width, alignRight: column.isNumeric,
                            ellipsis: symbols.ellipsis)
            b.append(title, titleStyle)
        }
        b.pad(to: layout.width - 1, style)
        b.append(layout.moreRight ? symbols.moreRight : " ", style)
        return b.finish(style)
    }

    private func renderBodyLine(_ item: DisplayItem?, line: Int, columns: [TableColumn], _ layout: TableLayout,
                                _ animationsByRow: [Int: [RowAnimation]]) -> RenderedLine {
        let theme = settings.theme
        var b = LineBuilder(width: layout.width)
        guard let item else {
            if rowCount == 0 && line == 0 {
                b.pad(to: TableLayout.gutter, .plain)
                b.append(sanitize(settings.emptyText), theme.note, ellipsis: theme.symbols.ellipsis)
            }
            return b.finish(.plain)
        }
        let frame: RowFrame
        let cells: [String]
        switch item {
        case .row(let r):
            frame = rowFrame(animations: animationsByRow[r] ?? [], selected: r == state.selection)
            cells = rowCells[r] ?? []
        case .closing(let id):
            let ghost = state.animations.first { $0.id == id }
            // A row that moved past the rows shown closes as a move down, saying where it went.
            frame = ghost?.departure == nil ? RowFrame(style: theme.deleted, marker: theme.symbols.deleted, changes: [])
                : RowFrame(style: theme.moved, marker: theme.symbols.down, changes: [])
            if case .delete(let c)? = ghost?.kind { cells = c } else { cells = [] }
        }
        let base = frame.style
        let markerStyle = overlay(base, theme.marker)
        b.append(frame.selected ? theme.symbols.selected : " ", frame.selected ? markerStyle : base)
        b.append(frame.marker ?? " ", frame.marker == nil ? base : markerStyle)
        var span: String?
        switch item {
        case .row(let r): span = rowSpans[r]
        case .closing(let id): span = state.animations.first { $0.id == id }?.departure.map { sanitize($0) }
        }
        for placement in layout.placements {
            b.pad(to: placement.x, base)
            if let text = span, placement.index >= settings.frozenColumns {
                // The rest of the line is the row's one text, from the first scrolled column on.
                b.append(text, base, ellipsis: theme.symbols.ellipsis)
                break
            }
            let i = placement.index
            let change = i < frame.changes.count ? frame.changes[i] : .same
            let text = i < cells.count ? cells[i] : ""
            var cellStyle = change == .same ? base : overlay(base, theme.changedCell)
            if case .row(let r) = item, rowHighlights[r]?.contains(i) == true { cellStyle = overlay(cellStyle, theme.match) }
            let shown = columns[i].isNumeric
                ? fitNumber(text, width: placement.width, ellipsis: theme.symbols.ellipsis)
                : fit(text, width: placement.width, ellipsis: theme.symbols.ellipsis)
            b.append(shown, cellStyle, cells: placement.width)
            switch change {
            case .same: b.append(" ", base)
            // A changed text gets no mark after it (it would read as part of the value): its
            // style and the row's gutter mark say it changed. Numbers show their direction.
            case .changed: b.append(" ", base)
            case .increased: b.append(theme.symbols.up, cellStyle)
            case .decreased: b.append(theme.symbols.down, cellStyle)
            }
        }
        return b.finish(base)
    }

    private func renderTooSmall(_ canvas: Canvas, lines: Range<Int>, width: Int) {
        guard width > 0 else { return }
        let message = "terminal too small (\(width)×\(lines.count)); need \(TableLayout.minimumWidth)×2"
        for (i, line) in lines.enumerated() {
            var b = LineBuilder(width: width)
            if i == 0 { b.append(message, settings.theme.note, ellipsis: settings.theme.symbols.ellipsis) }
            b.finish(.plain).draw(on: canvas, line: line)
        }
        shownKeys = Array(repeating: nil, count: shownKeys.count)
        isTooSmall = true
    }
}

/// Identifies what a body line shows, to find it again after rows shift.
enum LineKey: Hashable {
    case row(Int)
    case closing(Int)
}

/// What a body line shows: a row, or the closing line of a deleted row (by animation id).
enum DisplayItem: Hashable {
    case row(Int)
    case closing(id: Int)

    var key: LineKey {
        switch self {
        case .row(let r): return .row(r)
        case .closing(let id): return .closing(id)
        }
    }
}

/// Combines a role's style over a base: its attributes added, its colours where it has them.
func overlay(_ base: CellStyle, _ top: CellStyle) -> CellStyle {
    CellStyle(base.attributes.union(top.attributes),
              foreground: top.foreground >= 0 ? top.foreground : base.foreground,
              background: top.background >= 0 ? top.background : base.background)
}

/// Monotonic time in seconds, the clock of the table's animations.
public enum TableClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
