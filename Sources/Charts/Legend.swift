// A chart's top line: what each colour stands for, and how many values were left out.
import TableUI

/// The colours series and categories take, in order, as terminal palette indexes and as SVG
/// colours of the same hue (so a picture and its SVG read alike).
public enum ChartPalette {
    public static let terminal = [4, 1, 2, 3, 5, 6]
    public static let svg = ["#1f77b4", "#d62728", "#2ca02c", "#bcbd22", "#9467bd", "#17becf"]
    /// The index of "other" (the categories without a colour of their own): past the
    /// palette, so drawn in the terminal's default colour, and grey in SVG.
    public static let other = terminal.count
    static let otherSVG = "#7f7f7f"

    public static func style(_ index: Int) -> CellStyle {
        index < terminal.count ? CellStyle(foreground: terminal[index]) : .plain
    }
    public static func svgColour(_ index: Int) -> String { index < svg.count ? svg[index] : otherSVG }
}

/// One legend entry: a name in a colour (its palette index, or `ChartPalette.other`).
public struct LegendEntry: Hashable, Sendable {
    public var name: String
    public var colour: Int
    public init(name: String, colour: Int) {
        self.name = name
        self.colour = colour
    }
}

/// Values a chart could not place, so that a reader knows the picture is not all of the data.
public struct LeftOut: Hashable, Sendable {
    /// NaN or an infinity, or not a number at all.
    public var nonFinite = 0
    /// Outside the chart's range (or not positive on a logarithmic axis).
    public var outside = 0
    public init(nonFinite: Int = 0, outside: Int = 0) {
        self.nonFinite = nonFinite
        self.outside = outside
    }
    public var total: Int { nonFinite + outside }

    /// "3 left out (2 not finite, 1 outside)", or "" when none was.
    public var note: String {
        guard total > 0 else { return "" }
        let parts = [nonFinite > 0 ? "\(nonFinite) not finite" : nil, outside > 0 ? "\(outside) outside" : nil].compactMap { $0 }
        return "\(total) left out (\(parts.joined(separator: ", ")))"
    }
}

extension CellGrid {
    /// Writes the legend on `line`: `■ name` per entry in its colour, then the left-out note
    /// flush right.
    mutating func writeLegend(_ entries: [LegendEntry], leftOut: LeftOut, line: Int) {
        var column = 0
        for entry in entries {
            let name = fit(sanitize(entry.name), width: min(displayWidth(sanitize(entry.name)), 16))
            write("■", line: line, column: column, style: ChartPalette.style(entry.colour))
            write(name, line: line, column: column + 2)
            column += name.count + 4
        }
        // The note in full where it fits, else just how many ("3 left out").
        let room = size.columns - column
        let note = leftOut.note.count <= room ? leftOut.note : leftOut.total > 0 ? "\(leftOut.total) left out" : ""
        if !note.isEmpty, note.count <= room { write(note, line: line, column: size.columns - note.count) }
    }
}
