// The column keys: hide and show columns, widen and narrow, move left and right. The key
// column stays first and on screen (a frozen column).
import JSONTree
import TableUI

extension ChildrenSheet {
    /// How many cells `>` and `<` add or take.
    static let widthStep = 4

    /// `x`: hides the column under the cursor (the key column stays).
    func hideColumn() {
        let index = table.state.selectedColumn ?? 0
        guard index > 0 else {
            message = Message(text: "the key column cannot be hidden", isError: true)
            return
        }
        let spec = cursorSpec
        var set = rows.columnSet
        set.hide(at: index)
        setColumns(set, cursorOn: nil)
        message = Message(text: "hid \(spec.title) (X shows hidden columns)", isError: false)
    }

    /// `X`: a prompt listing the hidden columns, numbered, to show one again (or all).
    func startShowColumn() {
        let hidden = rows.columnSet.hidden
        guard !hidden.isEmpty else {
            message = Message(text: "no hidden columns (x hides the one under the cursor)", isError: false)
            return
        }
        let list = hidden.enumerated().map { "\($0.offset + 1) \($0.element.title)" }.joined(separator: "  ")
        mode = .prompt(Prompt(purpose: .showColumn(hidden), label: "show column: \(list) (a number or a name; empty: all): ", text: ""))
    }

    /// The answer to `X`: a number from the list, a name, or empty for every hidden column.
    func acceptShowColumn(_ text: String, hidden: [ColumnSpec]) {
        let typed = text.trimmingSpaces
        let chosen: [ColumnSpec]
        if typed.isEmpty {
            chosen = hidden
        } else if let n = Int(typed), n >= 1, n <= hidden.count {
            chosen = [hidden[n - 1]]
        } else if let spec = hidden.first(where: { $0.title == typed }) {
            chosen = [spec]
        } else {
            message = Message(text: "no hidden column \(JSON.string(typed).serializedString())", isError: true)
            return
        }
        var set = rows.columnSet
        for spec in chosen { set.show(spec) }
        set.recomputeNumeric(rows.rows ?? [])
        setColumns(set, cursorOn: chosen.first)
        message = Message(text: "showing \(chosen.map(\.title).joined(separator: ", "))", isError: false)
    }

    /// `>` / `<`: the column under the cursor `delta` cells wider (narrower), from the width shown.
    func resizeColumn(by delta: Int) {
        let index = table.state.selectedColumn ?? 0
        let spec = cursorSpec
        // A width set before (maybe not drawn yet) counts first; else the width on screen.
        let current = rows.columnSet.widths[spec] ?? table.shownWidth(ofColumn: index) ?? rows.columns[index].minWidth
        let width = max(1, min(current + delta, max(1, canvas.size.columns - 6)))
        var set = rows.columnSet
        set.setWidth(width, of: spec)
        setColumns(set, cursorOn: spec)
        message = Message(text: "\(spec.title): \(width) \(width == 1 ? "cell" : "cells") wide", isError: false)
    }

    /// `H` / `L`: moves the column under the cursor one place left (right); the cursor follows.
    func moveColumn(by delta: Int) {
        let index = table.state.selectedColumn ?? 0
        guard index > 0 else {
            message = Message(text: "the key column stays first", isError: true)
            return
        }
        var set = rows.columnSet
        let moved = set.move(at: index, by: delta)
        guard moved != index else { return }
        setColumns(set, cursorOn: cursorSpec)
    }
}
