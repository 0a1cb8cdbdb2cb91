// The columns `synctable plot` draws, each child's value at a path as a number, a time or a
// name, and the charts made of them.
import Charts
import JSONTree
import LiveQuery
import TableUI

/// The rows of a query result and the columns named on the command line, checked once.
public struct PlotColumns {
    public let rows: [Window.Row]

    public init(rows: [Window.Row]) { self.rows = rows }

    /// A column's path inside each child.
    /// - Throws: `CommandError` (status 2) naming the flag and the column when the path is
    ///   malformed or no child has it: a misspelt column should not draw an empty chart.
    public func path(_ name: String, flag: String) throws(CommandError) -> Path {
        let path: Path
        do { path = try Path(name) } catch { throw CommandError("--\(flag): \(error)") }
        guard rows.contains(where: { $0.value.node(at: path) != nil }) else {
            throw CommandError("--\(flag): no column '\(name)' in the \(rows.count) children")
        }
        return path
    }

    /// Each row's number at `path` (nil where it is not a number).
    public func numbers(_ path: Path) -> [Double?] { rows.map { $0.value.node(at: path)?.doubleValue } }

    /// Each row's time at `path` in seconds since 1970: a number of seconds, or of
    /// milliseconds when it is past 1e11 (the year 5138 in seconds; the database's
    /// `ServerValue.TIMESTAMP` is milliseconds).
    public func times(_ path: Path) -> [Double?] {
        numbers(path).map { $0.map { abs($0) > 1e11 ? $0 / 1000 : $0 } }
    }

    /// Each row's value at `path` as a name: a string, or a scalar as written.
    public func names(_ path: Path) -> [String?] {
        rows.map { row in
            guard let node = row.value.node(at: path) else { return nil }
            return node.stringValue ?? node.numberText ?? node.boolValue.map(String.init)
        }
    }

    /// - Parameters:
    ///   - subject: whose points were counted (`column 'score'`, `columns 'a' and 'b'`).
    ///   - what: what a point is, for the message when there are none.
    /// - Throws: `CommandError` (status 1), one line, when there are fewer than two points.
    public func requireTwo(_ count: Int, of subject: String, what: String) throws(CommandError) {
        if count == 0 { throw CommandError("\(subject): no \(what) to plot", exitCode: 1) }
        if count < 2 { throw CommandError("\(subject): only one point; a chart needs two", exitCode: 1) }
    }
}

extension PlotColumns {
    /// The histogram of column `x`: as text cells and as SVG.
    public func histogram(x: String, bins: Int?, size: CanvasSize) throws(CommandError) -> (CellGrid, String) {
        let values = numbers(try path(x, flag: "x")).compactMap { $0 }
        try requireTwo(values.count, of: "column '\(x)'", what: "numbers")
        let h = Histogram(values, binCount: bins ?? min(20, size.rows - 3))
        return (h.draw(size: size), h.svg())
    }

    /// Column `x` against `y`, coloured by `color`: as text cells and as SVG.
    public func scatter(x: String, y: String, color: String?, marker: Marker, size: CanvasSize) throws(CommandError) -> (CellGrid, String) {
        let xs = numbers(try path(x, flag: "x"))
        let ys = numbers(try path(y, flag: "y"))
        let categories = try color.map { name throws(CommandError) in names(try path(name, flag: "color")) }
        // A row without a number in both is a slot without a point (NaN).
        let both = rows.indices.map { xs[$0] != nil && ys[$0] != nil }
        try requireTwo(both.count(where: { $0 }), of: "columns '\(x)' and '\(y)'", what: "rows with numbers in both")
        let s = Scatter(xs: rows.indices.map { both[$0] ? xs[$0]! : .nan }, ys: rows.indices.map { both[$0] ? ys[$0]! : .nan },
                        categories: categories.map { names in rows.indices.map { Optional(names[$0] ?? "none") } }, size: size, marker: marker)
        return (s.grid, s.svg { rows[$0].key })
    }

    /// Column `y` over the times of `x`, a line per value of `by` (the `top` largest): as text
    /// cells and as SVG.
    public func series(x: String, y: String, by: String?, top: Int, marker: Marker, size: CanvasSize) throws(CommandError) -> (CellGrid, String) {
        let stamps = times(try path(x, flag: "x"))
        let values = numbers(try path(y, flag: "y"))
        let lineNames = try by.map { name throws(CommandError) in names(try path(name, flag: "by")) }
        var lines: [String: [TimePoint]] = [:]
        var order: [String] = []
        for i in rows.indices {
            guard let time = stamps[i], let value = values[i] else { continue }
            let name = lineNames.map { $0[i] ?? "none" } ?? y
            if lines[name] == nil { order.append(name) }
            lines[name, default: []].append(TimePoint(time: time, value: value))
        }
        try requireTwo(lines.values.reduce(0) { $0 + $1.count }, of: "columns '\(x)' and '\(y)'", what: "rows with a time and a number")
        let s = TimeSeries(order.map { TimeLine(name: $0, points: lines[$0]!) }, top: top)
        return (s.draw(size: size, marker: marker), s.svg())
    }
}
