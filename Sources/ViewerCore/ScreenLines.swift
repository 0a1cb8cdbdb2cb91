// The lines the viewer draws around the table (status bar, message line, JSON pane, help),
// drawn whole each frame through the screen, which writes only the cells that changed.
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

extension ScreenCanvas {
    /// Draws `segments` on `line` left to right, sanitised and cut to the canvas width, the
    /// rest of the line filled with spaces in `fill` (the screen writes only what changed).
    func draw(_ segments: [Segment], line: Int, fill: CellStyle = .plain) {
        let columns = size.columns
        var x = 0
        for segment in segments where x < columns {
            let text = sanitize(segment.text)
            let w = displayWidth(text)
            let room = columns - x
            draw(w <= room ? text : fit(text, width: room), line: line, column: x, style: segment.style)
            x += min(w, room)
        }
        if x < columns { draw(String(repeating: " ", count: columns - x), line: line, column: x, style: fill) }
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
