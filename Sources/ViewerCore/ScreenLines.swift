// The lines the viewer draws around the table (status bar, message line, JSON pane, help),
// each drawn only when its content changed.
import TableUI

/// A piece of a line: untrusted text (sanitised when drawn) in a style.
struct Segment: Hashable {
    var text: String
    var style: CellStyle
    init(_ text: String, _ style: CellStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// What the viewer last drew on each of its lines, so unchanged lines are not written again.
struct ScreenLines {
    private var drawn: [Int: [Segment]] = [:]

    /// Forgets everything (only from `Viewer.redrawAll`, which a new layout or width calls).
    mutating func invalidate() { drawn.removeAll() }

    /// Draws `segments` on `line` left to right, sanitised and cut to the canvas width, the
    /// rest of the line filled with spaces in `fill`; nothing when the line already shows it.
    mutating func draw(_ segments: [Segment], line: Int, fill: CellStyle = .plain, on canvas: Canvas) {
        let columns = canvas.size.columns
        var laid: [Segment] = []
        var used = 0
        for segment in segments where used < columns {
            let text = sanitize(segment.text)
            let w = displayWidth(text)
            let room = columns - used
            let shown = w <= room ? text : fit(text, width: room)
            laid.append(Segment(shown, segment.style))
            used += min(w, room)
        }
        if used < columns { laid.append(Segment(String(repeating: " ", count: columns - used), fill)) }
        guard drawn[line] != laid else { return }
        var x = 0
        for segment in laid {
            canvas.draw(segment.text, line: line, column: x, style: segment.style)
            x += displayWidth(segment.text)
        }
        drawn[line] = laid
    }
}

/// `text` cut from the left to its last `width` cells (the end of a long prompt stays in view).
func tail(_ text: String, width: Int) -> String {
    guard width > 0 else { return "" }
    guard displayWidth(text) > width else { return text }
    var out: [Character] = []
    var used = 1  // the ellipsis
    for c in text.reversed() {
        let w = displayWidth(c)
        if used + w > width { break }
        out.append(c)
        used += w
    }
    return "…" + String(out.reversed())
}
