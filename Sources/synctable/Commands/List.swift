// `synctable list`: one query result, printed as JSON, JSON lines, TSV or a table.
import ArgumentParser
import JSONTree
import LiveQuery

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `synctable list FILE [--path P] [query flags] [--format json|jsonl|tsv|table]`.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the children a query selects.",
        discussion: """
            Prints the children at --path in query order. Exit status: 0 on success, 1 when the file \
            is not valid JSON (FILE:LINE:COLUMN: error: MESSAGE), 2 for a bad flag or an unreadable \
            file. A path that does not exist, or a leaf, has no children.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, jsonl, tsv, table
    }

    @Argument(help: "The JSON file ('-' for standard input).")
    var file: String

    @OptionGroup var query: QueryOptions

    @Option(help: "json: one array of {\"key\", \"value\"}; jsonl: one such object a line; tsv, table: a column per child field. Default: table on a terminal, else json.")
    var format: Format?

    func run() throws {
        let (path, query) = try self.query.resolved()
        let bytes: [UInt8]
        do {
            bytes = try readInput(file)
        } catch {
            printError("\(file): error: \(error)")
            throw ExitCode(2)
        }
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch {
            printError("\(file == "-" ? "<stdin>" : file):\(error.line):\(error.column): error: \(error.message)")
            throw ExitCode(1)
        }
        let window = Window(query: query, path: path, document: document)
        var out = [UInt8]()
        switch format ?? (isatty(1) != 0 ? .table : .json) {
        case .json: writeJSON(window, to: &out, lines: false)
        case .jsonl: writeJSON(window, to: &out, lines: true)
        case .tsv: writeTSV(rowTable(window), to: &out)
        case .table: writeTable(rowTable(window), to: &out)
        }
        writeOut(out)
    }
}

// MARK: - JSON

/// `{"key":K,"value":V}` per row: in one array (a row a line), or one per line.
private func writeJSON(_ window: Window, to out: inout [UInt8], lines: Bool) {
    if !lines { out.append(contentsOf: window.isEmpty ? "[]\n".utf8 : "[\n".utf8) }
    for (i, row) in window.enumerated() {
        if !lines { out.append(contentsOf: "  ".utf8) }
        out.append(contentsOf: #"{"key":"#.utf8)
        writeJSONString(row.key, to: &out)
        out.append(contentsOf: #","value":"#.utf8)
        row.value.json.write(to: &out, style: .compact, depth: 0)
        out.append(UInt8(ascii: "}"))
        if !lines && i < window.count - 1 { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\n"))
    }
    if !lines && !window.isEmpty { out.append(contentsOf: "]\n".utf8) }
}

// MARK: - Tables

/// Rows as cells: a column for the key, one per field of object children (in order of first
/// appearance, metadata such as `.priority` included), and `value` for children that are not objects.
private struct RowTable {
    var header: [String]
    var rows: [[Cell]]
}

private struct Cell {
    var text: String
    var isNumber = false
}

private func rowTable(_ window: Window) -> RowTable {
    var fields = [String]()
    var fieldIndex = [JSONKey: Int]()
    var hasValue = false
    for row in window {
        guard row.value.kind == .object else {
            hasValue = true
            continue
        }
        for m in row.value.members {
            let name = m.key.stringValue!
            if fieldIndex[JSONKey(name)] == nil {
                fieldIndex[JSONKey(name)] = fields.count
                fields.append(name)
            }
        }
    }
    let valueColumn = hasValue ? fields.count : -1
    var table = RowTable(header: ["key"] + fields + (hasValue ? ["value"] : []), rows: [])
    for row in window {
        var cells = [Cell](repeating: Cell(text: ""), count: fields.count + (hasValue ? 1 : 0))
        if row.value.kind == .object {
            for m in row.value.members { cells[fieldIndex[JSONKey(m.key.stringValue!)]!] = cell(m.value) }
        } else {
            cells[valueColumn] = cell(row.value)
        }
        table.rows.append([Cell(text: row.key)] + cells)
    }
    return table
}

private func cell(_ node: JSONNode) -> Cell {
    switch node.kind {
    case .null: Cell(text: "")
    case .bool: Cell(text: node.boolValue! ? "true" : "false")
    case .number: Cell(text: node.numberText!, isNumber: true)
    case .string: Cell(text: node.stringValue!)
    case .array, .object: Cell(text: node.json.serializedString())
    }
}

/// Tab-separated, with a header line; in cells, `\`, tab, newline and other control characters
/// are written as escapes (`\\`, `\t`, `\n`, `\x1b`), so a row is one line.
private func writeTSV(_ table: RowTable, to out: inout [UInt8]) {
    func line(_ cells: [String]) {
        out.append(contentsOf: cells.map { visible($0, escapingBackslash: true) }.joined(separator: "\t").utf8)
        out.append(UInt8(ascii: "\n"))
    }
    line(table.header)
    for row in table.rows { line(row.map(\.text)) }
}

/// Aligned columns for reading, under a header and a rule: numbers right-aligned, long cells cut with "…", control
/// characters and bidirectional overrides shown as escapes.
private func writeTable(_ table: RowTable, to out: inout [UInt8]) {
    guard !table.rows.isEmpty else {
        out.append(contentsOf: "(no children)\n".utf8)
        return
    }
    let maxWidth = 40
    let header = table.header.map { clipped(visible($0, escapingBackslash: false), maxWidth) }
    let rows = table.rows.map { $0.map { (text: clipped(visible($0.text, escapingBackslash: false), maxWidth), isNumber: $0.isNumber) } }
    var widths = header.map(displayWidth)
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

/// `text` with control characters (C0, DEL, C1), bidirectional controls and (when asked)
/// backslashes written as visible escapes, so nothing from the file reaches the terminal raw.
private func visible(_ text: String, escapingBackslash: Bool) -> String {
    var out = ""
    for s in text.unicodeScalars {
        switch s.value {
        case 0x5C where escapingBackslash: out += "\\\\"
        case 0x09: out += "\\t"
        case 0x0A: out += "\\n"
        case 0x0D: out += "\\r"
        case 0x00..<0x20, 0x7F: out += "\\x" + hex(s.value, 2)
        case 0x80..<0xA0, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: out += "\\u" + hex(s.value, 4)
        default: out.unicodeScalars.append(s)
        }
    }
    return out
}

private func hex(_ v: UInt32, _ digits: Int) -> String {
    let h = String(v, radix: 16)
    return String(repeating: "0", count: max(0, digits - h.count)) + h
}

/// Columns a string takes on a terminal: wide East Asian characters and emoji take two,
/// combining marks none.
private func displayWidth(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + scalarWidth($1) }
}

private func scalarWidth(_ s: Unicode.Scalar) -> Int {
    let v = s.value
    switch s.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if s.properties.isEmojiPresentation { return 2 }
    switch v {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
        0x1F900...0x1F9FF, 0x20000...0x3FFFD:
        return 2
    default:
        return 1
    }
}

/// `text` cut to at most `width` columns, ending with "…" when cut.
private func clipped(_ text: String, _ width: Int) -> String {
    guard displayWidth(text) > width else { return text }
    var out = ""
    var used = 0
    for s in text.unicodeScalars {
        let w = scalarWidth(s)
        if used + w > width - 1 { break }
        out.unicodeScalars.append(s)
        used += w
    }
    return out + "…"
}

/// Writes all of `bytes` to standard output.
private func writeOut(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { p in
        var offset = 0
        while offset < p.count {
            let n = write(1, p.baseAddress! + offset, p.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }
}
