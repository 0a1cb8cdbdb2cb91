// Animation frames as in-place redraws: the run loop asks when the next frame is due
// (`nextDeadline`), waits in poll(2) until then, calls `tick`, and renders.

/// How one row looks in the current frame.
struct RowFrame {
    var style: CellStyle
    var marker: Character?
    var changes: [CellChange]
    var selected = false
}

extension TableView {
    /// When the next animation frame is due (seconds, on `TableClock`), nil when nothing
    /// animates: use it as the run loop's poll timeout.
    public var nextDeadline: Double? {
        state.animations.map { $0.nextChange(after: state.clock, settings) }.min()
    }

    /// Advances the animations to `now`: finished ones end (a deleted row's line closes,
    /// keeping the selected row on its line). Returns whether the next render will differ.
    @discardableResult
    public func tick(now: Double) -> Bool {
        let before = state.animations.map { $0.step(at: state.clock, settings) }
        state.clock = now
        let finished = state.animations.filter { now >= $0.end }
        if finished.isEmpty {
            return state.animations.map { $0.step(at: now, settings) } != before
        }
        var keep = anchor()
        // The selection's own closing line sits right above it: the selection takes that line.
        if let a = keep, case .row(let s) = a.item, s == state.selection,
           let closing = finished.first(where: { $0.isDelete && $0.wasSelected }),
           let d = displayIndex(of: .closing(id: closing.id)), d == displayIndex(ofRow: s) - 1, a.line > 0 {
            keep?.line = a.line - 1
        }
        let ids = Set(finished.map(\.id))
        state.animations.removeAll { ids.contains($0.id) }
        restore(keep)
        return true
    }

    /// Ends every animation now (a batch or key that should show the final state).
    public func finishAnimations() {
        guard let last = state.animations.map(\.end).max() else { return }
        tick(now: max(state.clock, last))
    }

    /// The look of a row in the current frame: an insert fading, a move highlighted, a
    /// reload flashing (first half) with its changed cells marked; the selection toggles
    /// reverse video on top.
    func rowFrame(animations: [RowAnimation], selected: Bool) -> RowFrame {
        let theme = settings.theme
        var frame = RowFrame(style: theme.row, marker: nil, changes: [], selected: selected)
        var rank = 0  // insert > move > reload for the row's style and marker
        for a in animations {
            guard let step = a.step(at: state.clock, settings) else { continue }
            switch a.kind {
            case .insert where rank < 3:
                let fades = theme.inserted
                if !fades.isEmpty { frame.style = fades[min(step, fades.count - 1)] }
                frame.marker = theme.symbols.inserted
                rank = 3
            case .move(let up) where rank < 2:
                frame.style = theme.moved
                frame.marker = up ? theme.symbols.up : theme.symbols.down
                rank = 2
            case .reload(let changes):
                frame.changes = changes
                if rank < 1 {
                    frame.style = step == 0 ? theme.flash : theme.row
                    frame.marker = theme.symbols.changed
                    rank = 1
                }
            default:
                break
            }
        }
        if selected { frame.style = frame.style.toggling(.reverse) }
        return frame
    }
}
