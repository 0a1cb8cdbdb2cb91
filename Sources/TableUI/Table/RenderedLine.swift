// A line of the table as it is (or will be) on the canvas: styled runs covering the width.
// Comparing two of them says whether a line must be drawn again.

/// Styled text runs at fixed columns, covering a whole line.
struct RenderedLine: Hashable {
    struct Run: Hashable {
        var column: Int
        var text: String
        var style: CellStyle
    }
    var runs: [Run] = []

    func draw(on canvas: Canvas, line: Int) {
        for run in runs { canvas.draw(run.text, line: line, column: run.column, style: run.style) }
    }

    /// Whether `screen` shows this line on `line`.
    func isShown(on screen: ScreenCanvas, line: Int) -> Bool {
        runs.allSatisfy { screen.shows($0.text, line: line, column: $0.column, style: $0.style) }
    }
}

/// Builds a `RenderedLine` left to right, never past `width`, merging runs of one style.
struct LineBuilder {
    let width: Int
    private(set) var column = 0
    private var runs: [RenderedLine.Run] = []
    private var lastWidth = 0

    init(width: Int) { self.width = width }

    /// Appends `text` (sanitised; cut to the room left if it is too wide). `cells` is its
    /// display width when the caller knows it.
    mutating func append(_ text: String, _ style: CellStyle, ellipsis: Character = "…", cells: Int? = nil) {
        let room = width - column
        guard room > 0, !text.isEmpty else { return }
        var text = text
        var w = cells ?? displayWidth(text)
        if w > room {
            text = fit(text, width: room, ellipsis: ellipsis)
            w = room
        }
        if var last = runs.last, last.style == style {
            last.text += text
            runs[runs.count - 1] = last
        } else {
            runs.append(RenderedLine.Run(column: column, text: text, style: style))
        }
        column += w
    }

    mutating func append(_ character: Character, _ style: CellStyle) { append(String(character), style) }

    /// Spaces up to `target` (or the edge).
    mutating func pad(to target: Int, _ style: CellStyle) {
        let n = min(target, width) - column
        if n > 0 { append(String(repeating: " ", count: n), style) }
    }

    /// The line, padded with spaces in `style` to the full width.
    mutating func finish(_ style: CellStyle) -> RenderedLine {
        pad(to: width, style)
        return RenderedLine(runs: runs)
    }
}
