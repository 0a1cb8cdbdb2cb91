// `list`'s table format, and writing to standard output.
#if canImport(Glibc)
import Glibc
#endif
import TableUI

/// Rows as cells under a header (the table format's).
public struct RowTable {
    public var header: [String]
    public var rows: [[Cell]]

    public init(header: [String], rows: [[Cell]]) {
        self.header = header
        self.rows = rows
    }
}

/// One cell of a `RowTable`.
public struct Cell {
    public var text: String
    public var isNumber: Bool

    public init(text: String, isNumber: Bool = false) {
        self.text = text
        self.isNumber = isNumber
    }
}

/// Aligned columns for reading, under a header and a rule: numbers right-aligned, long cells cut with "…", control
/// characters and bidirectional overrides shown as escapes.
public func writeTable(_ table: RowTable, to out: inout [UInt8]) {
    guard !table.rows.isEmpty else {
        out.append(contentsOf: "(no children)\n".utf8)
        return
    }
    let maxWidth = 40
    func clipped(_ text: String, isNumber: Bool = false) -> String {
        let safe = sanitize(text)
        guard displayWidth(safe) > maxWidth else { return safe }
        // A number is never cut to a prefix of its digits.
        return isNumber ? fitNumber(safe, width: maxWidth) : fit(safe, width: maxWidth)
    }
    let header = table.header.map { clipped($0) }
    let rows = table.rows.map { $0.map { (text: clipped($0.text, isNumber: $0.isNumber), isNumber: $0.isNumber) } }
    var widths = header.map { displayWidth($0) }
    for row in rows {
        for (c, cell) in row.enumerated() { widths[c] = max(widths[c], displayWidth(cell.text)) }
    }
    let numeric = (0..<header.count).map { c in c > 0 && rows.allSatisfy { $0[c].isNumber || $0[c].text.isEmpty } }
    func line(_ cells: [String]) {
        var text = ""
        for (c, cell) in cells.enumerated() {
            let pad = String(repeating: " ", count: widths[c] - displayWidth(cell))
            if c > 0 { text += "  " }
            text += numeric[c] ? pad + cell : cell + pad
        }
        while text.last == " " { text.removeLast() }
        out.append(contentsOf: text.utf8)
        out.append(UInt8(ascii: "\n"))
    }
    line(header)
    line(widths.map { String(repeating: "-", count: $0) })
    for row in rows { line(row.map(\.text)) }
}

/// Writes all of `bytes` to standard output (`CommandIO.current`).
/// - Returns: false when the reader went away (`| head`): a command that would otherwise print
///   on for no one ends quietly (status 0). Needs SIGPIPE ignored, which the program's edge does
///   for such commands.
@discardableResult
public func writeOut(_ bytes: [UInt8]) -> Bool {
    writeAll(bytes, to: CommandIO.current.output)
}

/// Writes a line to standard output (`CommandIO.current`), made safe for the terminal
/// (`terminalSafe`): a key a server chose, say.
public func printLine(_ line: String) {
    writeOut(Array((terminalSafe(line) + "\n").utf8))
}

/// Writes all of `bytes` to `fd`, again after an interruption; false when the write fails.
public func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
    bytes.withUnsafeBytes { p in
        var offset = 0
        while offset < p.count {
            let n = write(fd, p.baseAddress! + offset, p.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
