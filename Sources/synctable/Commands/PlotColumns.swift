// The columns `synctable plot` draws: each child's value at a path, as a number, a time or a name.
import Headless
import JSONTree
import LiveQuery

/// The rows of a query result and the columns named on the command line, checked once.
struct PlotColumns {
    let rows: [Window.Row]

    /// A column's path inside each child.
    /// - Throws: `CommandError` (status 2) naming the flag and the column when the path is
    ///   malformed or no child has it: a misspelt column should not draw an empty chart.
    func path(_ name: String, flag: String) throws(CommandError) -> Path {
        let path: Path
        do { path = try Path(name) } catch { throw CommandError("--\(flag): \(error)") }
        guard rows.contains(where: { $0.value.node(at: path) != nil }) else {
            throw CommandError("--\(flag): no column '\(name)' in the \(rows.count) children")
        }
        return path
    }

    /// Each row's number at `path` (nil where it is not a number).
    func numbers(_ path: Path) -> [Double?] { rows.map { $0.value.node(at: path)?.doubleValue } }

    /// Each row's time at `path` in seconds since 1970: a number of seconds, or of
    /// milliseconds when it is past 1e11 (the year 5138 in seconds; the database's
    /// `ServerValue.TIMESTAMP` is milliseconds).
    func times(_ path: Path) -> [Double?] {
        numbers(path).map { $0.map { abs($0) > 1e11 ? $0 / 1000 : $0 } }
    }

    /// Each row's value at `path` as a name: a string, or a scalar as written.
    func names(_ path: Path) -> [String?] {
        rows.map { row in
            guard let node = row.value.node(at: path) else { return nil }
            return node.stringValue ?? node.numberText ?? node.boolValue.map(String.init)
        }
    }

    /// - Parameters:
    ///   - subject: whose points were counted (`column 'score'`, `columns 'a' and 'b'`).
    ///   - what: what a point is, for the message when there are none.
    /// - Throws: `CommandError` (status 1), one line, when there are fewer than two points.
    func requireTwo(_ count: Int, of subject: String, what: String) throws(CommandError) {
        if count == 0 { throw CommandError("\(subject): no \(what) to plot", exitCode: 1) }
        if count < 2 { throw CommandError("\(subject): only one point; a chart needs two", exitCode: 1) }
    }
}
