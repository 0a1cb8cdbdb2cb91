// The Canvas of a real terminal, drawing through ncurses (wide-character API). ncurses
// keeps the screen as it is and the screen as we want it; `flush` writes the difference,
// and with `idlok` a band of shifted lines goes out as a terminal scroll.
import CNcursesw

/// A `Canvas` on an ncurses window (the whole screen). Made by `Terminal`.
public final class NcursesCanvas: Canvas {
    private let window: UnsafeMutablePointer<WINDOW>
    private let colorsEnabled: Bool
    private let defaultColors: Bool
    private let unicode: Bool
    private var pairs: [Int: Int16] = [:]  // (foreground + 1) << 16 | (background + 1) → pair
    private var nextPair: Int32 = 1

    init(window: UnsafeMutablePointer<WINDOW>, colorsEnabled: Bool, defaultColors: Bool, unicode: Bool) {
        self.window = window
        self.colorsEnabled = colorsEnabled
        self.defaultColors = defaultColors
        self.unicode = unicode
    }

    public var size: CanvasSize {
        CanvasSize(rows: Int(getmaxy(window)), columns: Int(getmaxx(window)))
    }

    /// Draws cluster by cluster at the columns `displayWidth` gives. Where the C library's
    /// `wcwidth` (which ncurses uses) disagrees — a ZWJ emoji family, an unassigned
    /// scalar — only the first glyph is written and the rest of the cell padded, so the
    /// columns after it stay where the layout put them.
    public func draw(_ text: String, line: Int, column: Int, style: CellStyle) {
        setStyle(style)
        let limit = size.columns
        let y = Int32(line)
        var x = column
        var run: [wchar_t] = []
        var runStart = column
        func writeRun() {
            if !run.isEmpty { _ = mvwaddnwstr(window, y, Int32(runStart), run, Int32(run.count)) }
            run.removeAll(keepingCapacity: true)
        }
        for character in text {
            let mine = displayWidth(character)
            if mine == 0 { continue }
            if x + mine > limit { break }
            let scalars = character.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
            var theirs = 0
            for s in scalars { theirs += max(0, Int(cn_wcwidth(s))) }
            if theirs == mine {
                if run.isEmpty { runStart = x }
                run.append(contentsOf: scalars)
            } else {
                writeRun()
                var glyph = [scalars[0]]
                for s in scalars.dropFirst() {
                    guard cn_wcwidth(s) == 0 else { break }
                    glyph.append(s)
                }
                var glyphWidth = Int(cn_wcwidth(scalars[0]))
                if glyphWidth <= 0 || glyphWidth > mine {
                    glyph = [unicode ? 0xFFFD : wchar_t(UInt8(ascii: "?"))]
                    glyphWidth = 1
                }
                _ = mvwaddnwstr(window, y, Int32(x), glyph, Int32(glyph.count))
                if glyphWidth < mine {
                    let pad = [wchar_t](repeating: 0x20, count: mine - glyphWidth)
                    _ = mvwaddnwstr(window, y, Int32(x + glyphWidth), pad, Int32(pad.count))
                }
            }
            x += mine
        }
        writeRun()
    }

    public func clearToEndOfLine(line: Int, column: Int) {
        setStyle(.plain)
        _ = wmove(window, Int32(line), Int32(column))
        _ = wclrtoeol(window)
    }

    public func insertLines(_ count: Int, at line: Int, regionEnd: Int) {
        shift(lines: line..<regionEnd, by: -count)
    }

    public func deleteLines(_ count: Int, at line: Int, regionEnd: Int) {
        shift(lines: line..<regionEnd, by: count)
    }

    public func flush() {
        _ = wnoutrefresh(window)
        _ = doupdate()
    }

    /// Scrolls the band `lines` up by `amount` (down when negative) inside a scrolling
    /// region, leaving the lines outside it alone.
    private func shift(lines: Range<Int>, by amount: Int) {
        guard !lines.isEmpty, amount != 0 else { return }
        if lines.count <= abs(amount) {
            for l in lines { clearToEndOfLine(line: l, column: 0) }
            return
        }
        setStyle(.plain)
        _ = wsetscrreg(window, Int32(lines.lowerBound), Int32(lines.upperBound - 1))
        _ = scrollok(window, true)
        _ = wscrl(window, Int32(amount))
        _ = scrollok(window, false)
        _ = wsetscrreg(window, 0, Int32(size.rows - 1))
    }

    private func setStyle(_ style: CellStyle) {
        var attributes: attr_t = cn_a_normal()
        if style.attributes.contains(.bold) { attributes |= cn_a_bold() }
        if style.attributes.contains(.dim) { attributes |= cn_a_dim() }
        if style.attributes.contains(.reverse) { attributes |= cn_a_reverse() }
        if style.attributes.contains(.underline) { attributes |= cn_a_underline() }
        _ = wattr_set(window, attributes, colorsEnabled ? pair(style.foreground, style.background) : 0, nil)
    }

    /// The colour pair for a foreground/background, made on first use (pairs are never
    /// redefined, which would repaint every cell already using them).
    private func pair(_ foreground: Int, _ background: Int) -> Int16 {
        let colors = Int(cn_colors())
        var fg = foreground < colors ? foreground : -1
        var bg = background < colors ? background : -1
        if fg == -1 && bg == -1 { return 0 }
        let key = (fg + 1) << 16 | (bg + 1)
        if let p = pairs[key] { return p }
        guard nextPair < min(cn_color_pairs(), Int32(Int16.max)) else { return 0 }
        if !defaultColors {
            if fg == -1 { fg = 7 }
            if bg == -1 { bg = 0 }
        }
        let p = Int16(nextPair)
        guard init_pair(p, Int16(fg), Int16(bg)) == cn_ok() else { return 0 }
        nextPair += 1
        pairs[key] = p
        return p
    }
}
