// The table's state as a value: where it is scrolled, what is selected, what is animating.

/// Everything that changes while a `TableView` is used, as one value: tests compare it,
/// a program can save it. The table keeps it consistent; read it through `TableView.state`.
///
/// Lines of the table body show the *display list*: the rows in order, plus one closing
/// line for each row still animating its deletion (placed just above the row that
/// followed it). With no deletion in flight, display index == row index.
///
/// ```swift
/// if let row = table.state.selection { open(row) }
/// let topRow = table.state.offset            // when no deletion is animating
/// ```
public struct TableState: Hashable, Sendable {
    /// The display index shown on the first body line (vertical scroll).
    public var offset: Int = 0
    /// The selected row (a data-source index), nil only when the table is empty. It
    /// follows its row through batches; when the row is deleted it goes to its neighbour.
    public var selection: Int?
    /// The leftmost column shown (horizontal scroll), an index into the columns.
    public var firstColumn: Int = 0
    /// The column cursor (an index into the columns), kept in view; nil when the table has
    /// none (←/→ then scroll the columns).
    public var selectedColumn: Int?
    /// Row animations in flight, oldest first.
    public var animations: [RowAnimation] = []
    /// The time (seconds, monotonic) of the latest `tick` or batch: animation frames are
    /// drawn as of this moment.
    public var clock: Double = 0

    public init() {}
}

/// One row's animation.
public struct RowAnimation: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// The row was inserted: highlighted, then fading in steps.
        case insert
        /// The row was deleted: its last cells are shown marked, then the line closes.
        case delete(cells: [String])
        /// The row's content changed: it flashes, with the changed cells marked.
        case reload(changes: [CellChange])
        /// The row changed place: highlighted at its new place, with its direction.
        case move(up: Bool)
    }

    /// Unique among the table's animations (identifies a closing line).
    public var id: Int
    public var kind: Kind
    /// The row it animates; for `.delete`, the index of the row its closing line sits
    /// above (the row count when it is at the end).
    public var row: Int
    /// When it started and how long it lasts, in seconds.
    public var start: Double
    public var duration: Double
    /// For `.delete`: the deleted row was the selected one.
    public var wasSelected: Bool = false
    /// For `.delete`: the row moved past the rows shown, to this place (`moved to row 212`).
    public var departure: String?

    public var end: Double { start + duration }

    public var isDelete: Bool {
        if case .delete = kind { return true }
        return false
    }

    /// How many frames it has, each `duration / steps` long.
    func steps(_ settings: TableSettings) -> Int {
        switch kind {
        case .insert: return max(1, settings.fadeSteps)
        case .reload: return 2
        case .delete, .move: return 1
        }
    }

    /// The frame shown at time `t` (0 ..< steps), or nil when it is over.
    func step(at t: Double, _ settings: TableSettings) -> Int? {
        guard t < end else { return nil }
        let n = steps(settings)
        guard duration > 0 else { return n - 1 }
        // The epsilon puts a frame boundary computed by `nextChange` in the frame it starts.
        return min(n - 1, max(0, Int((t - start) / duration * Double(n) + 1e-9)))
    }

    /// When the frame after the one shown at `t` begins (or the animation ends).
    func nextChange(after t: Double, _ settings: TableSettings) -> Double {
        let n = steps(settings)
        for k in 1...n {
            let boundary = start + duration * Double(k) / Double(n)
            if boundary > t { return boundary }
        }
        return end
    }
}

/// How one cell of a reloaded row changed.
public enum CellChange: Hashable, Sendable {
    case same
    /// Changed (text, or a number that cannot be compared).
    case changed
    /// A number that went up.
    case increased
    /// A number that went down.
    case decreased
}
