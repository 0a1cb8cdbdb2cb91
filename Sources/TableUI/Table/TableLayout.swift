// Which columns are shown where, for one width: the gutter, then each column's text,
// its change-marker cell and a space, from the first column of the horizontal scroll.

/// One shown column: its index, where its text starts and how many cells it gets
/// (less than its width when the last shown column is cut at the right edge).
struct ColumnPlacement: Hashable {
    var index: Int
    var x: Int
    var width: Int
}

/// The columns of one render.
struct TableLayout: Hashable {
    /// Cells before the first column: the selection glyph, the row's marker, a space.
    static let gutter = 3
    /// The narrowest a canvas may be for the table to draw (otherwise it says it is too small).
    static let minimumWidth = 12

    var width: Int
    var placements: [ColumnPlacement]
    /// Columns are hidden to the left (scrolled past) or to the right (no room).
    var moreLeft: Bool
    var moreRight: Bool

    /// - Parameters:
    ///   - widths: each column's width in cells (its content, within min and max).
    ///   - firstColumn: the horizontal scroll.
    ///   - width: the canvas width.
    ///   - frozen: the first columns stay on screen while the others scroll (the key column).
    init(widths: [Int], firstColumn: Int, width: Int, frozen: Int = 0) {
        self.width = width
        var placements: [ColumnPlacement] = []
        var x = TableLayout.gutter
        let frozen = min(frozen, widths.count)
        var i = 0
        while i < widths.count {
            if i == frozen { i = max(i, firstColumn) }
            guard i < widths.count else { break }
            let room = width - x - 1  // keep the marker cell
            if widths[i] <= room {
                placements.append(ColumnPlacement(index: i, x: x, width: widths[i]))
                x += widths[i] + 2
                i += 1
                continue
            }
            // The next column does not fit: show it cut if a useful part fits.
            if room >= min(widths[i], 4) || (placements.isEmpty && room > 0) {
                placements.append(ColumnPlacement(index: i, x: x, width: room))
            }
            break
        }
        self.placements = placements
        moreLeft = firstColumn > frozen
        let lastFull = placements.last.map { $0.width == widths[$0.index] } ?? false
        moreRight = !widths.isEmpty && ((placements.last?.index ?? (firstColumn - 1)) < widths.count - 1 || !lastFull)
    }

    /// The indexes shown from `firstColumn` with `frozen` columns kept (before any is cut).
    static func scrolledIndexes(count: Int, firstColumn: Int, frozen: Int) -> [Int] {
        let f = min(frozen, count)
        return Array(0..<f) + Array(min(count, max(firstColumn, f))..<count)
    }

    /// The largest first column worth scrolling to: the one from which every remaining
    /// column fits (scrolling further would only hide columns).
    static func lastFirstColumn(widths: [Int], width: Int, frozen: Int = 0) -> Int {
        let f = min(frozen, widths.count)
        var used = widths[0..<f].reduce(gutter) { $0 + $1 + 2 }
        var first = widths.count
        while first > f {
            let need = widths[first - 1] + (first == widths.count ? 1 : 2)
            if used + need > width { break }
            used += need
            first -= 1
        }
        return min(first, max(0, widths.count - 1))
    }
}
