// Applying a batch: the selection follows its row, the screen keeps its rows on their
// lines, and the changed rows start their animations.

extension TableView {
    /// Applies a batch of row changes, after the data source has changed.
    ///
    /// Deletes and move sources are old indexes, inserts and move destinations new ones,
    /// all at once (see `TableBatch`). The selected row stays selected and on its screen
    /// line when rows appear or vanish above it; when it is deleted its neighbour takes
    /// its place. Closing lines of an earlier batch close now; its other animations follow
    /// their rows. A row reloaded again restarts its flash.
    ///
    /// - Parameter now: the clock animations start from (`TableClock.now()`).
    /// - Throws: `TableBatchError` when the batch does not fit the table's row count and
    ///   the data source's (counts that do not balance, indexes out of range, an index
    ///   named twice). The table has then reloaded everything and is consistent.
    public func performBatchUpdates(_ batch: TableBatch, now: Double = TableClock.now()) throws(TableBatchError) {
        let newCount = dataSource.numberOfRows
        do {
            try batch.validate(tableCount: rowCount, newCount: newCount)
        } catch {
            reloadData()
            throw error
        }
        let mapping = BatchMapping(batch)
        // A batch that changes more rows than the screen holds (a sort, a new page of a log) is
        // one redraw: animating it cost a frame per row for a second and more, and showed
        // tables half old, half new.
        let changed = batch.deletes.count + batch.inserts.count + batch.moves.count + batch.reloads.count
        let animate = settings.animationsEnabled && changed <= bodyHeight
        let before = anchor()
        let oldSelection = state.selection
        let selectionWasShown = oldSelection == nil || isShown(row: oldSelection!)

        // Earlier animations: closing lines are done; the rest follow their rows.
        var animations: [RowAnimation] = []
        for var a in state.animations where !a.isDelete && animate {
            guard let r = mapping.newIndex(ofOld: a.row) else { continue }
            a.row = r
            animations.append(a)
        }
        state.selection = oldSelection.flatMap { mapping.newIndex(ofOld: $0) ?? mapping.neighbour(ofDeleted: $0) }
        if state.selection == nil && newCount > 0 { state.selection = 0 }

        // What the canvas shows and the cells we hold move with their rows.
        for i in shownKeys.indices {
            if case .row(let r)? = shownKeys[i] {
                shownKeys[i] = mapping.newIndex(ofOld: r).map { .row($0) }
            } else {
                shownKeys[i] = nil
            }
        }
        let oldCells = rowCells
        let reloadedOld = Set(batch.reloads.map(\.old))
        rowCells = [:]
        for (r, cells) in oldCells where !reloadedOld.contains(r) {
            if let n = mapping.newIndex(ofOld: r) { rowCells[n] = cells }
        }
        rowCount = newCount
        state.clock = now

        // Closing lines for deleted rows that were on screen.
        var closingOfSelection: Int?
        if animate {
            for d in batch.deletes.sorted() {
                guard let cells = oldCells[d] else { continue }
                let id = newAnimationID()
                var closing = RowAnimation(id: id, kind: .delete(cells: cells), row: mapping.closingPosition(ofDeleted: d),
                                           start: now, duration: settings.deleteDuration, wasSelected: d == oldSelection)
                closing.departure = batch.departures[d]
                animations.append(closing)
                if d == oldSelection { closingOfSelection = id }
            }
        }
        state.animations = animations

        // Keep the anchored row on its line (its closing line, when it was the deleted selection).
        if let before, case .row(let r) = before.item {
            let item: DisplayItem?
            if let n = mapping.newIndex(ofOld: r) {
                item = .row(n)
            } else if r == oldSelection, let id = closingOfSelection {
                item = .closing(id: id)
            } else {
                item = mapping.neighbour(ofDeleted: r).map { .row($0) }
            }
            restore(item.map { Anchor(item: $0, line: before.line) })
        } else {
            clampOffset()
        }

        // A selection that was on screen stays there, even when no line kept its place (every
        // row replaced: the closing lines would otherwise push it off).
        // (A deleted selection's closing line may hold its place for now, with the new
        // selection right below it: the line closes and the selection moves up onto it.)
        if selectionWasShown, let s = state.selection, !isShown(row: s) {
            let closing = closingOfSelection.flatMap { displayIndex(of: .closing(id: $0)) }
            let waitsBelowItsClosingLine = closing.map { $0 == displayIndex(ofRow: s) - 1 && $0 >= state.offset } ?? false
            if !waitsBelowItsClosingLine { scrollToSelection() }
        }

        if animate { startAnimations(batch, mapping, oldCells: oldCells, now: now) }
    }

    /// Whether row `row` is on one of the body lines (as scrolled now).
    func isShown(row: Int) -> Bool {
        let line = displayIndex(ofRow: row) - state.offset
        return line >= 0 && line < max(1, bodyHeight)
    }

    /// Inserted, moved and reloaded rows start animating — only those on screen or within
    /// a screen of it, so a batch of a million rows costs no more than a screenful.
    private func startAnimations(_ batch: TableBatch, _ mapping: BatchMapping, oldCells: [Int: [String]], now: Double) {
        let h = bodyHeight
        guard h > 0 else { return }  // nothing has been drawn yet
        let near = max(0, state.offset - h)..<(state.offset + 2 * h)
        var fresh: [RowAnimation] = []
        for i in batch.inserts where near.contains(i) {
            fresh.append(RowAnimation(id: newAnimationID(), kind: .insert, row: i, start: now, duration: settings.insertDuration))
        }
        var moved = Set<Int>()
        for m in batch.moves where near.contains(m.to) {
            moved.insert(m.to)
            fresh.append(RowAnimation(id: newAnimationID(), kind: .move(up: mapping.movedUp(from: m.from, to: m.to)),
                                      row: m.to, start: now, duration: settings.moveDuration))
        }
        var reloaded = Set<Int>()
        for r in batch.reloads where near.contains(r.new) {
            reloaded.insert(r.new)
            fresh.append(RowAnimation(id: newAnimationID(), kind: .reload(changes: cellChanges(old: oldCells[r.old], new: r.new)),
                                      row: r.new, start: now, duration: settings.reloadDuration))
        }
        // A row moved or reloaded again restarts that animation.
        state.animations.removeAll { ($0.kind.isMove && moved.contains($0.row)) || ($0.kind.isReload && reloaded.contains($0.row)) }
        state.animations += fresh
    }

    /// How each cell of a reloaded row changed, comparing the cells shown before with the
    /// data source's new ones (numbers by value, for ↑ and ↓). Empty when the old cells
    /// are unknown (the row was not on screen).
    private func cellChanges(old: [String]?, new row: Int) -> [CellChange] {
        guard let old else { return [] }
        let columns = dataSource.columns
        let new = dataSource.cells(ofRow: row).map { sanitize($0, scalarLimit: TableView.cellScalarLimit) }
        return columns.indices.map { i in
            let a = i < old.count ? old[i] : ""
            let b = i < new.count ? new[i] : ""
            if a == b { return .same }
            if columns[i].isNumeric, let x = Double(a.trimmingSpaces), let y = Double(b.trimmingSpaces), x != y {
                return y > x ? .increased : .decreased
            }
            return .changed
        }
    }

    private func newAnimationID() -> Int {
        defer { nextAnimationID += 1 }
        return nextAnimationID
    }
}

extension RowAnimation.Kind {
    var isMove: Bool {
        if case .move = self { return true }
        return false
    }

    var isReload: Bool {
        if case .reload = self { return true }
        return false
    }
}

extension String {
    var trimmingSpaces: Substring {
        let s = drop { $0 == " " }
        return s.dropLast(s.reversed().prefix { $0 == " " }.count)
    }
}
