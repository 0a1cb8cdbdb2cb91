// What the viewer's keys do (the bindings are in KeyBindings.swift).
import JSONTree
import LiveQuery
import TableUI

extension Viewer {
    /// Handles one key: the help screen, prompt or question first, then the bindings.
    public func handle(_ key: Key) {
        if key == .resize {
            redrawAll()
            return
        }
        switch mode {
        case .help(let top):
            scrollHelp(from: top, key)
            return
        case .prompt(var prompt):
            switch prompt.handle(key) {
            case .editing: mode = .prompt(prompt)
            case .reload: mode = .prompt(children.reloaded(prompt))
            case .cancelled: mode = .table
            case .accepted:
                mode = .table
                if case .answer(let take) = prompt.purpose { take(prompt.text) } else { top.accept(prompt) }
            }
            return
        case .confirm(let question):
            mode = .table
            let yes = key == .character("y") || key == .character("Y")
            switch question.action {
            case .delete(let path):
                if yes { children.remove(path) } else { message = Message(text: "nothing deleted", isError: false) }
            case .overwrite(let file, let format):
                if yes { children.export(to: file, format: format) } else { message = Message(text: "nothing written", isError: false) }
            }
            return
        case .table:
            break
        }
        message = nil
        if key == .escape, children.interrupt() { return }
        if paneOpen && paneFocused, scrollPane(key) { return }
        if case .mouse = key {
            _ = top.tableView?.handle(key)
            return
        }
        guard let action = viewerAction(for: key, in: options.keyBindings) else { return }
        let onChildren = top === children
        dispatch(action)
        if onChildren { children.loadMoreIfNeeded() }
    }

    /// The one dispatcher: the keys every sheet shares act on the top sheet (its table, the
    /// pane, help, going back); the rest go to the sheet's `perform`.
    private func dispatch(_ action: ViewerAction) {
        if let table = top.tableView, move(table, action) { return }
        switch action {
        case .back where sheets.count > 1, .quit where sheets.count > 1: popSheet()
        case .quit: isRunning = false
        case .showJSON:
            if paneOpen && !paneShowsProblem { closePane() } else { (paneOpen, paneShowsProblem) = (true, false) }
        case .focusJSON:
            paneOpen = true
            paneFocused = true
            paneShowsProblem = false
        case .help: mode = .help(top: 0)
        case .repaint:
            environment.perform(.repaintFully)
            redrawAll()
        default:
            guard !top.perform(action) else { return }
            let below = sheets.count > 1 ? sheets[sheets.count - 2] : nil
            let back = below.map { $0 === children ? "the table" : $0.title } ?? "the table"
            message = Message(text: "not on the \(top.title): q or Backspace goes back to \(back)", isError: false)
        }
    }

    /// The moving keys of a table; false for the others.
    private func move(_ table: TableView, _ action: ViewerAction) -> Bool {
        switch action {
        case .down: table.moveSelection(by: 1)
        case .up: table.moveSelection(by: -1)
        case .pageDown: table.page(1)
        case .pageUp: table.page(-1)
        case .first: table.selectFirst()
        case .columnLeft: table.moveColumnSelection(by: -1)
        case .columnRight: table.moveColumnSelection(by: 1)
        default: return false
        }
        return true
    }

    /// The help screen's keys: they scroll it; q, Esc and ? close it.
    private func scrollHelp(from top: Int, _ key: Key) {
        let page = max(1, canvas.size.rows - 3)
        switch key {
        case .escape, .character("q"), .character("?"):
            mode = .table
            redrawAll()
        case .down, .character("j"): mode = .help(top: top + 1)
        case .up, .character("k"): mode = .help(top: max(0, top - 1))
        case .pageDown, .character(" "): mode = .help(top: top + page)
        case .pageUp: mode = .help(top: max(0, top - page))
        case .home, .character("g"): mode = .help(top: 0)
        case .end, .character("G"): mode = .help(top: Int.max / 2)
        default: break
        }
    }

    /// The focused JSON pane's keys; false for keys it leaves to the table (q, ?, …).
    private func scrollPane(_ key: Key) -> Bool {
        let page = max(1, (lastLayout?.pane.count ?? 2) - 2)
        switch key {
        case .down, .character("j"): paneTop += 1
        case .up, .character("k"): paneTop = max(0, paneTop - 1)
        case .pageDown, .character(" "): paneTop += page
        case .pageUp: paneTop = max(0, paneTop - page)
        case .home, .character("g"): paneTop = 0
        case .end, .character("G"): paneTop = Int.max / 2
        case .escape, .character("V"), .tab: paneFocused = false
        default: return false
        }
        return true
    }

    func closePane() {
        paneOpen = false
        paneFocused = false
        paneShowsProblem = false
        paneTop = 0
    }

    /// Puts `text` on the terminal's clipboard and says `saying`, unless the clipboard cannot take it.
    func copyText(_ text: String, saying: String) {
        if let refusal = clipboardRefusal(text) {
            message = Message(text: refusal, isError: true)
            return
        }
        environment.perform(.copyToClipboard(text))
        message = Message(text: saying, isError: false)
    }
}
