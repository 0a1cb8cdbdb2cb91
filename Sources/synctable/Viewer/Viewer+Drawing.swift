// Drawing a frame: the table, the JSON pane, the status bar and the message line (or the help
// screen). Only lines whose content changed reach the terminal.
import FileStore
import JSONTree
import TableUI

extension Viewer {
    /// The screen's layout for a size: the table's lines, the pane's, the two bottom lines.
    struct Layout: Equatable {
        var table: Range<Int>
        var pane: Range<Int>
        var status: Int
        var message: Int
    }

    func layout(_ size: CanvasSize) -> Layout? {
        guard size.rows >= 4 else { return nil }
        let status = size.rows - 2
        let tableEnd = paneOpen && status >= 8 ? max(3, status / 2) : status
        return Layout(table: 0..<tableEnd, pane: tableEnd..<status, status: status, message: status + 1)
    }

    /// Draws what changed and flushes.
    func render() {
        let canvas = terminal.canvas
        let size = canvas.size
        guard let layout = layout(size) else {
            // Too small for the bars: the table alone (it says when it is too small).
            table.render(into: canvas)
            canvas.flush()
            return
        }
        if layout != lastLayout {
            // The pane opened or closed, or the size changed: the lines changed owners.
            lastLayout = layout
            screen.invalidate()
        }
        if case .help = mode {
            drawHelp(size)
            canvas.flush()
            return
        }
        let empty = emptyText
        if table.settings.emptyText != empty { table.settings.emptyText = empty }
        table.render(into: canvas, lines: layout.table)
        if !layout.pane.isEmpty { drawPane(layout.pane) }
        screen.draw(statusSegments(width: size.columns), line: layout.status, fill: statusStyle, on: canvas)
        screen.draw(messageSegments(width: size.columns), line: layout.message, on: canvas)
        canvas.flush()
    }

    private var colors: Bool { terminal.colorSupport != .none }
    private var statusStyle: CellStyle { CellStyle(.reverse) }
    private var badgeStyle: CellStyle { colors ? CellStyle(.bold, foreground: 15, background: 1) : CellStyle([.bold]) }
    private var errorStyle: CellStyle { colors ? CellStyle(.bold, foreground: 1) : CellStyle([.bold, .underline]) }
    private var labelStyle: CellStyle { CellStyle(.bold) }
    private var noteStyle: CellStyle { CellStyle(.dim) }

    /// What the table says when it has no rows.
    private var emptyText: String {
        if store.currentRevision == nil {
            switch storeStatus.problem {
            case .missing?: return "\(options.file) does not exist yet: waiting for it"
            case .invalidJSON?: return "\(options.file) is not valid JSON yet: waiting for a valid save"
            case .unreadable?: return "\(options.file) cannot be read: waiting"
            case nil: return store.isStream ? "waiting for standard input…" : "reading \(options.file)…"
            }
        }
        if rows.rows == nil { return "reading…" }
        if query.filter != nil { return "no children match the filter (Esc clears it)" }
        return "no children at \(location)"
    }

    // MARK: The status bar

    /// ` FILE /path · by score descending, last 20 · 20 rows of 45 · rev 12 at 21:03:04 `, with
    /// badges on the right (paused, invalid, missing). The file is shortened to its name when
    /// the whole path does not fit.
    private func statusSegments(width: Int) -> [Segment] {
        let shown = rows.numberOfRows
        var count = "\(shown) \(shown == 1 ? "row" : "rows")"
        if query.limitCount != nil || query.filter != nil || query.start != nil || query.end != nil,
            let total = currentChildCount, total != shown
        {
            count += " of \(total)"
        }
        let revision = lastRevision.map { "rev \($0.number) at \($0.time)" }
        func compose(_ file: String) -> String {
            " " + ([file + " " + location.description, query.words, count] + (revision.map { [$0] } ?? []))
                .joined(separator: " · ") + " "
        }
        var badges: [Segment] = []
        if array?.isShowingCache == true { badges.append(Segment(" CACHED: reading the file… ", badgeStyle)) }
        if array?.isAwaitingRows == true { badges.append(Segment(" UPDATING: the new query's rows follow… ", badgeStyle)) }
        if paused { badges.append(Segment(" PAUSED: \(waiting) waiting (p resumes) ", badgeStyle)) }
        badges += streamBadges.map { Segment($0, badgeStyle) }
        switch storeStatus.problem {
        case .invalidJSON?: badges.append(Segment(" INVALID JSON ", badgeStyle))
        case .missing?: badges.append(Segment(" FILE MISSING ", badgeStyle))
        case .unreadable?: badges.append(Segment(" UNREADABLE ", badgeStyle))
        case nil: break
        }
        let room = max(0, width - badges.reduce(0) { $0 + displayWidth(sanitize($1.text)) })
        var left = sanitize(compose(options.file))
        if displayWidth(left) > room { left = sanitize(compose(baseName(options.file))) }
        let w = displayWidth(left)
        left = w <= room ? left + String(repeating: " ", count: room - w) : fit(left, width: room)
        return [Segment(left, statusStyle)] + badges
    }

    // MARK: The message line

    private func messageSegments(width: Int) -> [Segment] {
        switch mode {
        case .prompt(let prompt):
            let label = sanitize(prompt.label)
            let room = max(1, width - displayWidth(label) - 1)
            return [Segment(label, labelStyle), Segment(tail(sanitize(prompt.text), width: room)), Segment(" ", CellStyle(.reverse))]
        case .confirm(let question):
            return [Segment(question.question, labelStyle)]
        case .table, .help:
            break
        }
        if let message { return [Segment(message.text, message.isError ? errorStyle : labelStyle)] }
        if let problem = storeStatus.problem {
            var text = problem.description
            if case .missing = problem { text = "\(options.file): file not found; waiting for it to appear" }
            if let revision = store.currentRevision { text += " — showing revision \(revision.number)" }
            return [Segment(text, errorStyle)]
        }
        return [Segment("? help  q quit  Enter open  s sort  r reverse  / filter  p pause  v JSON  e edit", noteStyle)]
    }

    // MARK: The JSON pane

    /// The selected child as pretty JSON, as much as fits, under a title line.
    private func drawPane(_ lines: Range<Int>) {
        let canvas = terminal.canvas
        let width = canvas.size.columns
        guard let (key, value) = selectedChild else {
            screen.draw([Segment("── no row selected ", noteStyle)], line: lines.lowerBound, on: canvas)
            for line in lines.dropFirst() { screen.draw([], line: line, on: canvas) }
            return
        }
        let title = "── \(location.child(key)) (v closes) "
        let rule = String(repeating: "─", count: max(0, width - displayWidth(sanitize(title))))
        screen.draw([Segment(title + rule, labelStyle)], line: lines.lowerBound, on: canvas)
        let body = lines.dropFirst()
        let (text, truncated) = prettyLines(value, limit: body.count)
        for (i, line) in body.enumerated() {
            if i == body.count - 1 && truncated {
                screen.draw([Segment("  … (more below)", noteStyle)], line: line, on: canvas)
            } else {
                screen.draw([Segment(i < text.count ? text[i] : "")], line: line, on: canvas)
            }
        }
    }

    // MARK: The help screen

    private func drawHelp(_ size: CanvasSize) {
        let canvas = terminal.canvas
        var lines: [[Segment]] = [
            [Segment(" synctable — keys", labelStyle), Segment("   (any key closes this)", noteStyle)],
            [],
        ]
        let labelWidth = keyBindings.map { displayWidth($0.label) }.max() ?? 0
        for binding in keyBindings {
            let pad = String(repeating: " ", count: labelWidth - displayWidth(binding.label))
            lines.append([Segment("  " + binding.label + pad, labelStyle), Segment("   " + binding.help)])
        }
        lines.append([])
        lines.append([Segment("  Mouse: the wheel scrolls, a click selects. Ctrl-C quits too.", noteStyle)])
        for line in 0..<size.rows {
            screen.draw(line < lines.count ? lines[line] : [], line: line, on: canvas)
        }
    }
}

/// The last component of a file path.
func baseName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}
