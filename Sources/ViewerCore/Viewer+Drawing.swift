// Drawing a frame: the table, the JSON pane, the status bar and the message line (or the help
// screen). Only lines whose content changed reach the terminal.
import StoreInterface
import JSONTree
import TableUI

extension Viewer {
    /// The screen's layout for a size: the table's lines, the pane's, the status bar, and the
    /// message lines at the bottom (one, or as many as a long message needs: never cut), in
    /// `width` columns.
    struct Layout: Equatable {
        var table: Range<Int>
        var pane: Range<Int>
        var status: Int
        var message: Range<Int>
        var width: Int
    }

    func layout(_ size: CanvasSize) -> Layout? {
        guard size.rows >= 4 else { return nil }
        // A message may take up to half of the screen above the status bar.
        let messageCount = min(max(1, messageLines(width: size.columns).count), max(1, (size.rows - 2) / 2))
        let status = size.rows - 1 - messageCount
        let tableEnd = paneOpen && status >= 8 ? max(3, status / 2) : status
        return Layout(table: 0..<tableEnd, pane: tableEnd..<status, status: status, message: status + 1..<size.rows,
                      width: size.columns)
    }

    /// Draws what changed and flushes.
    public func render() {
        children.notePromptChanges()
        let size = canvas.size
        guard let layout = layout(size) else {
            // Too small for the bars: the table alone (it says when it is too small).
            top.render(into: canvas, lines: 0..<size.rows)
            canvas.flush()
            return
        }
        if layout != lastLayout {
            // The pane opened or closed, or the size changed: the lines changed owners or widths.
            lastLayout = layout
            redrawAll()
        }
        if case .help(let top) = mode {
            drawHelp(size, top: top)
            canvas.flush()
            return
        }
        top.render(into: canvas, lines: layout.table)
        if !layout.pane.isEmpty { drawPane(layout.pane) }
        screen.draw(statusSegments(width: size.columns), line: layout.status, fill: statusStyle)
        let message = messageLines(width: size.columns)
        for (i, line) in layout.message.enumerated() {
            screen.draw(i < message.count ? message[i] : [], line: line)
        }
        canvas.flush()
    }

    private var colors: Bool { environment.colors != .none }
    private var statusStyle: CellStyle { CellStyle(.reverse) }
    private var badgeStyle: CellStyle { colors ? CellStyle(.bold, foreground: 15, background: 1) : CellStyle([.bold]) }
    private var errorStyle: CellStyle { colors ? CellStyle(.bold, foreground: 1) : CellStyle([.bold, .underline]) }
    private var labelStyle: CellStyle { CellStyle(.bold) }
    private var noteStyle: CellStyle { CellStyle(.dim) }

    // MARK: The status bar

    /// ` FILE /path · by score descending, last 20 · 20 rows of 45 · rev 12 at 21:03:04 `, with
    /// badges on the right (paused, invalid, missing). When it does not fit, the least important
    /// parts go first — the file's folder, how far back the history reaches (shortened to `↶40`,
    /// then left out), the revision's time, the file, the query's words, the badges'
    /// explanations, the location — and a number is never cut: the row count goes last.
    private func statusSegments(width: Int) -> [Segment] {
        let sheetStatus = top.status
        var revision = lastRevision.map { (long: "rev \($0.number) at \($0.time)", short: "rev \($0.number)") }
        if children.paused, let shown = children.shownRevision, let latest = lastRevision, shown != latest.number {
            revision = ("rev \(shown) shown, rev \(latest.number) waiting", "rev \(shown) shown of \(latest.number)")
        }
        if let run = storeStatus.lastRun {
            // A command source: when its last run was and how long it took, after the revision.
            let long = revision.map { $0.long + " · " } ?? ""
            revision = (long + run.description, revision?.short ?? "run \(run.number)")
        }
        var badges: [(long: String, short: String)] = []
        if children.array?.isShowingCache == true { badges.append((" CACHED: reading the file… ", " CACHED ")) }
        if children.array?.isAwaitingRows == true { badges.append((" UPDATING: the new query's rows follow… ", " UPDATING ")) }
        if store.hasWritesInProgress { badges.append((" WRITING… ", " WRITING… ")) }
        // Read-only by default goes unmarked (the key hint leaves out e); a file that cannot be
        // written is marked, as the user did not choose it.
        if case .unwritable? = readOnlyReason { badges.append((" READ-ONLY ", " READ-ONLY ")) }
        if let history = children.historyBadge { badges.append((history, history)) }
        if children.paused { badges.append((" PAUSED: \(children.waiting) waiting (p resumes) ", " PAUSED ")) }
        badges += children.streamBadges.map { (long: $0, short: $0) }
        switch storeStatus.problem {
        case .invalidJSON?: badges.append((" INVALID JSON ", " INVALID JSON "))
        case .missing?: badges.append((" FILE MISSING ", " FILE MISSING "))
        case .unreadable?: badges.append((" UNREADABLE ", " UNREADABLE "))
        case .runFailed?: badges.append((" RUN FAILED ", " RUN FAILED "))
        case .warning?: badges.append((" WARNING ", " WARNING "))
        case nil: break
        }
        if let badge = storeStatus.connection?.badge { badges.append((badge, badge)) }

        // On a derived sheet: where it comes from (`players › score frequency`).
        let place = sheets.map(\.title).joined(separator: " › ")
        let file = options.file
        let name = baseName(options.file)
        let (count, words, shortWords) = (sheetStatus.count, sheetStatus.words, sheetStatus.shortWords)
        // Each a little shorter than the one before; the first that fits is shown.
        let long = revision.map { [$0.long] } ?? [], short = revision.map { [$0.short] } ?? []
        // How far back the history reaches shortens, then goes, before the revision's time.
        let reach = sheetStatus.reach
        let reachLong = reach.map { [$0.long] } ?? [], reachShort = reach.map { [$0.short] } ?? []
        let lefts: [[String]] = [
            [file + " " + place, words, count] + long + reachLong, [name + " " + place, words, count] + long + reachLong,
            [name + " " + place, words, count] + long + reachShort, [name + " " + place, words, count] + long,
            [name + " " + place, words, count] + short, [place, words, count] + short,
            [place, shortWords, count] + short, [place, count] + short, [count] + short,
        ]
        let late: [[String]] = [[place, count], [count], []]
        func text(_ parts: [String]) -> String {
            let parts = parts.filter { !$0.isEmpty }
            return parts.isEmpty ? " " : sanitize(" " + parts.joined(separator: " · ") + " ")
        }
        for (useShort, candidates) in [(false, lefts), (true, lefts + late)] {
            let chosen = badges.map { Segment(useShort ? $0.short : $0.long, badgeStyle) }
            let room = width - chosen.reduce(0) { $0 + displayWidth(sanitize($1.text)) }
            if let left = candidates.lazy.map(text).first(where: { displayWidth($0) <= room }) {
                return [Segment(left + String(repeating: " ", count: room - displayWidth(left)), statusStyle)] + chosen
            }
        }
        // Not even the short badges fit: they are cut, the rest left out.
        return [Segment(fit(badges.map(\.short).joined(), width: width), badgeStyle)]
    }

    // MARK: The message line

    /// The message area's lines: a prompt, a question, a message or the file's problem, wrapped
    /// to the width rather than cut; else the reminder of the main keys.
    func messageLines(width: Int) -> [[Segment]] {
        func wrapped(_ text: String, _ style: CellStyle) -> [[Segment]] {
            wrapWords(sanitize(text), width: width).map { [Segment($0, style)] }
        }
        switch mode {
        case .prompt(let prompt):
            // A long label wraps at its words; the text typed follows its last line, or has a
            // line of its own when little room is left there.
            var labelLines = wrapWords(sanitize(prompt.label), width: width)
            var last = labelLines.removeLast()
            if labelLines.count > 0 || displayWidth(last) > width - 1, width - displayWidth(last) - 1 < min(20, width / 3) {
                labelLines.append(last)
                last = ""
            } else if !last.hasSuffix(" "), !labelLines.isEmpty {
                last += " "
            }
            let room = max(1, width - displayWidth(last) - 1)
            let line = [Segment(last, labelStyle), Segment(tail(sanitize(prompt.text), width: room)), Segment(" ", CellStyle(.reverse))]
            // A change under an edit prompt goes on a line above it: the text typed keeps its place.
            return (prompt.note.map { wrapped($0, errorStyle) } ?? []) + labelLines.map { [Segment($0, labelStyle)] } + [line]
        case .confirm(let question):
            return wrapped(question.question, labelStyle)
        case .table, .help:
            break
        }
        if let message { return wrapped(message.text, message.isError ? errorStyle : labelStyle) }
        if let hint = top.keyHint { return [[Segment(keyHint(hint), noteStyle)]] }
        if let text = fullProblemText {
            // A state, not an answer to a key: one line, the rest in the pane (`m`).
            let more = keyLabel(of: .showProblem).map { " … \($0) shows all" } ?? " …"
            return [[Segment(oneLine(sanitize(text), width: width, more: more), errorStyle)]]
        }
        return [[Segment(keyHint(width: width), noteStyle)]]
    }

    /// The file's or the connection's problem, in full, and the revision shown meanwhile; nil
    /// when there is none.
    var fullProblemText: String? {
        let shown = store.currentRevision.map { " — showing revision \($0.number)" } ?? ""
        if let problem = storeStatus.problem {
            if case .missing = problem { return "\(options.file): file not found; waiting for it to appear" + shown }
            return problem.description + shown
        }
        return storeStatus.connection?.problemText.map { $0 + shown }
    }

    /// The message line's reminder of a sheet's keys, as bound: `q back  Enter open  s sort  …`.
    private func keyHint(_ shown: [(ViewerAction, String)]) -> String {
        shown.compactMap { action, word in keyLabel(of: action).map { "\($0) \(word)" } }.joined(separator: "  ")
    }

    /// The message line's reminder of the main keys, as bound (a configuration may move them):
    /// `? help  q quit  Enter open  / search  n next  f filter  s sort  r reverse  v JSON  e edit`.
    /// Only keys that work here: a log takes new lines but no edits, a read-only file neither.
    /// As many as fit the width, each whole.
    private func keyHint(width: Int) -> String {
        var shown: [(ViewerAction, String)] = [(.help, "help"), (.quit, "quit"), (.open, "open"), (.search, "search"),
                                               (.searchNext, "next"), (.filter, "filter"), (.sortByColumn, "sort"),
                                               (.reverse, "reverse"), (.showJSON, "JSON")]
        if readOnlyReason == nil { shown.append(store.isAppendOnly ? (.add, "add") : (.edit, "edit")) }
        var hint = ""
        for entry in shown.compactMap({ action, word in keyLabel(of: action).map { "\($0) \(word)" } }) {
            let next = hint.isEmpty ? entry : hint + "  " + entry
            guard displayWidth(sanitize(next)) <= width else { break }
            hint = next
        }
        return hint
    }

    // MARK: The JSON pane

    /// The selected child as pretty JSON under a title line, long lines wrapped, scrolled to
    /// `paneTop` (which goes back to the top when another child is selected).
    private func drawPane(_ lines: Range<Int>) {
        let width = canvas.size.columns
        if paneShowsProblem { return drawProblemPane(lines) }
        guard let row = top.selectedRow else {
            screen.draw([Segment("── no row selected ", noteStyle)], line: lines.lowerBound)
            for line in lines.dropFirst() { screen.draw([], line: line) }
            return
        }
        // A sheet's row is named by its sheet and key; a child by its path.
        let path = row.path ?? Path(keys: [top.title, row.key])
        if paneChild != path {
            paneChild = path
            paneTop = 0
        }
        let body = lines.dropFirst()
        // Enough pretty lines for the scroll and the screen, and one more to know there is more.
        paneTop = min(paneTop, 100_000)
        let wanted = paneTop + body.count + 1
        let (pretty, truncated) = prettyLines(row.value, limit: wanted)
        var wrapped: [String] = []
        for line in pretty where wrapped.count < wanted { wrapped += wrap(sanitize(line), width: max(1, width - 1)) }
        let more = truncated || wrapped.count > paneTop + body.count
        paneTop = max(0, min(paneTop, wrapped.count - body.count + (more ? 1 : 0)))
        let keys = paneFocused ? "j k PgDn PgUp scroll · V back to the table" : "V scrolls · v closes"
        let position = more || paneTop > 0 ? " line \(paneTop + 1)" : ""
        let title = "── \(path)\(position) (\(keys)) "
        let rule = String(repeating: "─", count: max(0, width - displayWidth(sanitize(title))))
        screen.draw([Segment(title + rule, paneFocused ? CellStyle([.bold, .reverse]) : labelStyle)], line: lines.lowerBound)
        for (i, line) in body.enumerated() {
            let index = paneTop + i
            if i == body.count - 1 && more && index < wrapped.count {
                screen.draw([Segment("  … more below (V, then j or PgDn)", noteStyle)], line: line)
            } else {
                screen.draw([Segment(index < wrapped.count ? wrapped[index] : "")], line: line)
            }
        }
    }

    /// `m`: the problem the message line keeps to one line, whole, wrapped at its words.
    private func drawProblemPane(_ lines: Range<Int>) {
        let width = canvas.size.columns
        let close = keyLabel(of: .showProblem).map { " (\($0) closes) " } ?? " "
        let title = "── problem\(close)"
        screen.draw([Segment(title + String(repeating: "─", count: max(0, width - displayWidth(title))), labelStyle)],
                    line: lines.lowerBound)
        let text = wrapWords(sanitize(fullProblemText ?? "no problem now: the file and the connection are fine"), width: max(1, width - 1))
        for (i, line) in lines.dropFirst().enumerated() {
            screen.draw([Segment(i < text.count ? text[i] : "", i < text.count && fullProblemText != nil ? errorStyle : noteStyle)],
                        line: line)
        }
    }

    // MARK: The help screen

    /// Every key, scrolled to line `top` under a title line that says how to scroll and close.
    /// A long description wraps at its words onto lines indented under it: none is cut.
    private func drawHelp(_ size: CanvasSize, top: Int) {
        var lines: [[Segment]] = []
        let labelWidth = options.keyBindings.map { displayWidth($0.label) }.max() ?? 0
        let indent = String(repeating: " ", count: 2 + labelWidth + 3)
        // Too narrow for a readable column of words, the description is cut instead.
        let room = size.columns - indent.count >= 20 ? size.columns - indent.count : Int.max
        for binding in options.keyBindings {
            let pad = String(repeating: " ", count: labelWidth - displayWidth(binding.label))
            let pieces = wrapWords(sanitize(binding.help), width: room)
            lines.append([Segment("  " + binding.label + pad, labelStyle), Segment("   " + pieces[0])])
            lines += pieces.dropFirst().map { [Segment(indent + $0)] }
        }
        lines.append([])
        for piece in wrapWords("Mouse: the wheel scrolls, a click selects. Ctrl-C quits too.", width: max(20, size.columns - 2)) {
            lines.append([Segment("  " + piece, noteStyle)])
        }
        let body = max(1, size.rows - 2)
        let top = max(0, min(top, lines.count - body))
        mode = .help(top: top)
        let more = top + body < lines.count
        let where_ = more || top > 0 ? " · lines \(top + 1)–\(min(lines.count, top + body)) of \(lines.count)" : ""
        // The title's least needed part goes first on a narrow screen, rather than be cut.
        var keys = "   q, Esc or ? closes · j k PgDn PgUp scroll\(where_)"
        if 17 + displayWidth(keys) > size.columns { keys = "   q, Esc or ? closes\(where_)" }
        screen.draw([Segment(" synctable — keys", labelStyle), Segment(keys, noteStyle)], line: 0)
        for line in 1..<size.rows {
            let index = top + line - 1
            if line == size.rows - 1 && more {
                screen.draw([Segment("  … more below (j or PgDn)", noteStyle)], line: line)
            } else {
                screen.draw(line - 1 < body && index < lines.count ? lines[index] : [], line: line)
            }
        }
    }
}

/// `text` in pieces of at most `width` display cells (a line of the JSON pane, wrapped);
/// continuation pieces are indented by one space, so a wrapped line reads as one.
func wrap(_ text: String, width: Int) -> [String] {
    guard displayWidth(text) > width, width > 2 else { return [text] }
    var pieces: [String] = []
    var current = ""
    var used = 0
    for c in text {
        let w = displayWidth(c)
        if used + w > width {
            pieces.append(current)
            current = " "
            used = 1
        }
        current.append(c)
        used += w
    }
    if !current.isEmpty { pieces.append(current) }
    return pieces
}

/// `text` in lines of at most `width` display cells, broken after a space where a line has
/// one (a message reads word by word); a word longer than a line is cut where it must be.
func wrapWords(_ text: String, width: Int) -> [String] {
    guard displayWidth(text) > width, width > 2 else { return [text] }
    var lines: [String] = []
    var line = ""
    var used = 0
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
        let w = displayWidth(String(word))
        if used > 0 && used + 1 + w > width {
            lines.append(line)
            line = ""
            used = 0
        }
        if used > 0 {
            line += " "
            used += 1
        }
        if w <= width - used {
            line += word
            used += w
            continue
        }
        // A word wider than the line: as much as fits, the rest on the lines after.
        for piece in wrap(String(word), width: width) {
            let p = piece.hasPrefix(" ") ? String(piece.dropFirst()) : piece
            if used + displayWidth(p) > width {
                lines.append(line)
                line = ""
                used = 0
            }
            line += p
            used += displayWidth(p)
        }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}

/// `text` on one line of `width` cells: whole when it fits, else its first words and `more`
/// (never a word cut, unless the first is wider than the line).
func oneLine(_ text: String, width: Int, more: String) -> String {
    guard displayWidth(text) > width else { return text }
    let room = max(1, width - displayWidth(more))
    return (wrapWords(text, width: room).first ?? "") + more
}

/// The last component of a file path.
func baseName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

extension ConnectionStatus {
    /// The status bar's badge while the connection is not online.
    var badge: String? {
        switch self {
        case .online: nil
        case .connecting: " CONNECTING… "
        case .reconnecting: " OFFLINE: RECONNECTING… "
        case .offline: " OFFLINE "
        case .unauthorized: " UNAUTHORIZED "
        }
    }

    /// The message line's account of a connection that is not online.
    var problemText: String? { isOnline || self == .connecting ? nil : description }
}
