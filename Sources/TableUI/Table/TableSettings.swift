// What a program may tune about the table.

/// Durations (seconds), switches and the theme of a `TableView`.
public struct TableSettings: Sendable {
    /// Animate batches; when false every batch shows its final state at once.
    public var animationsEnabled = true
    /// An inserted row: highlighted, then fading in `fadeSteps` steps over this time.
    public var insertDuration = 0.9
    public var fadeSteps = 3
    /// A deleted row stays marked this long before its line closes.
    public var deleteDuration = 0.4
    /// A reloaded row flashes for the first half of this, its changed cells stay marked to the end.
    public var reloadDuration = 1.2
    /// A moved row is highlighted at its new place this long.
    public var moveDuration = 0.9
    /// Lines one wheel step scrolls.
    public var wheelLines = 3
    /// Shown on the first body line when there are no rows.
    public var emptyText = "no rows"
    /// The first columns stay on screen while the others scroll left and right (a key column).
    public var frozenColumns = 0
    public var theme: TableTheme

    public init(theme: TableTheme = .standard(colors: .none)) {
        self.theme = theme
    }
}
