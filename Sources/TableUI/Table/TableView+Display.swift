// The display list (rows plus closing lines of deleted rows) and keeping a row on its
// screen line when lines appear or vanish above it.

/// A row (or closing line) and the body line it should stay on.
struct Anchor {
    var item: DisplayItem
    var line: Int
}

extension TableView {
    /// Closing lines, in display order (by the row they sit above, then by age).
    var closingLines: [RowAnimation] {
        state.animations.filter(\.isDelete).sorted { ($0.row, $0.id) < ($1.row, $1.id) }
    }

    /// Rows plus closing lines.
    var displayCount: Int { rowCount + state.animations.count(where: \.isDelete) }

    /// The display index of row `row`: the row count before it plus the closing lines at or above it.
    func displayIndex(ofRow row: Int) -> Int {
        row + state.animations.count { $0.isDelete && $0.row <= row }
    }

    func displayIndex(of item: DisplayItem) -> Int? {
        switch item {
        case .row(let r): return displayIndex(ofRow: r)
        case .closing(let id):
            guard let i = closingLines.firstIndex(where: { $0.id == id }) else { return nil }
            return closingLines[i].row + i
        }
    }

    /// What display index `index` shows, nil past the end.
    /// - Complexity: O(g log g) in the number of closing lines (zero or a few).
    func displayItem(at index: Int) -> DisplayItem? {
        guard index >= 0 else { return nil }
        var before = 0
        for (i, closing) in closingLines.enumerated() {
            let d = closing.row + i
            if d == index { return .closing(id: closing.id) }
            if d > index { break }
            before = i + 1
        }
        let row = index - before
        return row < rowCount ? .row(row) : nil
    }

    /// What to keep in place across a change: the selected row if it is on screen,
    /// otherwise the first row on screen. Nil before the first render.
    func anchor() -> Anchor? {
        let h = bodyHeight
        guard h > 0 else { return nil }
        if let s = state.selection, s < rowCount {
            let line = displayIndex(ofRow: s) - state.offset
            if line >= 0 && line < h { return Anchor(item: .row(s), line: line) }
        }
        for line in 0..<h {
            if case .row(let r)? = displayItem(at: state.offset + line) { return Anchor(item: .row(r), line: line) }
        }
        return nil
    }

    /// Scrolls so the anchor's item is on its line again (as far as the ends allow).
    func restore(_ anchor: Anchor?) {
        if let anchor, let index = displayIndex(of: anchor.item) {
            setOffset(index - anchor.line)
        } else {
            clampOffset()
        }
    }

    func clampOffset() { setOffset(state.offset) }

    /// Sets the scroll, kept between the top and the last full page.
    func setOffset(_ offset: Int) {
        let h = max(1, bodyHeight)
        state.offset = max(0, min(offset, displayCount - h))
    }

    /// Scrolls the least needed for the selected row to be on screen.
    func scrollToSelection() {
        guard let s = state.selection else { return clampOffset() }
        let h = max(1, bodyHeight)
        let d = displayIndex(ofRow: s)
        if d < state.offset {
            setOffset(d)
        } else if d >= state.offset + h {
            setOffset(d - h + 1)
        } else {
            clampOffset()
        }
    }
}
