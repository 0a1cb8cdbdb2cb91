// How the table looks: a style for each role, and the symbols it draws.

/// The glyphs the table draws around the text; ASCII ones for terminals without UTF-8.
public struct TableSymbols: Hashable, Sendable {
    public var ellipsis: Character
    public var selected: Character
    public var inserted: Character
    public var deleted: Character
    public var changed: Character
    public var up: Character
    public var down: Character
    public var moreLeft: Character
    public var moreRight: Character

    public static let unicode = TableSymbols(
        ellipsis: "…", selected: "▶", inserted: "+", deleted: "-", changed: "*",
        up: "↑", down: "↓", moreLeft: "‹", moreRight: "›")
    public static let ascii = TableSymbols(
        ellipsis: "~", selected: ">", inserted: "+", deleted: "-", changed: "*",
        up: "^", down: "v", moreLeft: "<", moreRight: ">")
}

/// A style for each role. The selected row shows its style with reverse video toggled.
public struct TableTheme: Hashable, Sendable {
    public var header: CellStyle
    public var row: CellStyle
    /// An inserted row's frames, most highlighted first (one per fade step; the last is reused).
    public var inserted: [CellStyle]
    public var deleted: CellStyle
    /// A reloaded row during its flash.
    public var flash: CellStyle
    /// The changed cells of a reloaded row, and their ↑ ↓ markers.
    public var changedCell: CellStyle
    public var moved: CellStyle
    /// Markers in the gutter (+ - ↑ ↓ *).
    public var marker: CellStyle
    /// A cell a search matched (over the row's style).
    public var match = CellStyle([.bold, .underline])
    /// The empty-table and too-small messages.
    public var note: CellStyle
    public var symbols: TableSymbols

    /// The standard look for a terminal's colours: colours when it has them, otherwise
    /// attributes only (bold, reverse, underline, dim), as `NO_COLOR` asks.
    public static func standard(colors: ColorSupport, unicode: Bool = true) -> TableTheme {
        let symbols: TableSymbols = unicode ? .unicode : .ascii
        switch colors {
        case .none:
            return TableTheme(
                header: CellStyle([.bold, .underline]), row: .plain,
                inserted: [CellStyle([.reverse, .bold]), CellStyle([.bold, .underline]), CellStyle(.bold)],
                deleted: CellStyle(.dim), flash: CellStyle(.reverse), changedCell: CellStyle([.bold, .underline]),
                moved: CellStyle(.underline), marker: CellStyle(.bold), note: CellStyle(.dim), symbols: symbols)
        case .basic:
            return TableTheme(
                header: CellStyle([.bold, .underline]), row: .plain,
                inserted: [CellStyle(.bold, foreground: 7, background: 2), CellStyle(.bold, foreground: 2),
                           CellStyle([], foreground: 2)],
                deleted: CellStyle([], foreground: 7, background: 1), flash: CellStyle([], foreground: 0, background: 3),
                changedCell: CellStyle(.bold, foreground: 3), moved: CellStyle([], foreground: 7, background: 4),
                marker: CellStyle(.bold, foreground: 6), note: CellStyle(.dim), symbols: symbols)
        case .extended:
            return TableTheme(
                header: CellStyle([.bold, .underline]), row: .plain,
                inserted: [CellStyle(.bold, foreground: 231, background: 28), CellStyle([], foreground: 231, background: 22),
                           CellStyle([], foreground: 114, background: 235)],
                deleted: CellStyle([], foreground: 231, background: 88), flash: CellStyle([], foreground: 16, background: 221),
                changedCell: CellStyle(.bold, foreground: 214), moved: CellStyle([], foreground: 231, background: 25),
                marker: CellStyle(.bold, foreground: 45), note: CellStyle(.dim), symbols: symbols)
        }
    }
}
