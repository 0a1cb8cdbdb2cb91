// `synctable list`: one query result, printed as JSON, JSON lines, TSV or a table.
import ArgumentParser
import FileStore
import JSONTree
import LiveQuery
import SyncedArray
import TableUI
import ViewerCore

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

    @Argument(help: "The JSON file ('-' for standard input), or a database URL (http(s)://…/location).")
    var file: String

    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions

    @Option(help: ArgumentHelp("Refuse standard input longer than this many bytes.", valueName: "bytes"))
    var maxSize: Int = defaultMaxInputBytes

    @Option(help: "json: one array of {\"key\", \"value\"}; jsonl: one such object a line; tsv, table: a column per child field. Default: table on a terminal, else json.")
    var format: Format?

    // .unconditional: `--columns -email` takes `-email` as the value, not as a flag.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The children's fields to print, for every format: name,score,metrics/views (these, in order), "
            + "or -email,-id (all but these). json and jsonl print each value with only those fields.",
        valueName: "a,b,c/d"))
    var columns: String?

    func run() throws {
        let (path, query) = try self.query.resolved()
        let choice = try columns.map { text throws(CommandError) in try ColumnChoice(parsing: text) }
        if let url = try databaseURL(file) {
            return print(try remoteWindow(url, remote, path: path, query: query), choice: choice)
        }
        if file != "-", input.format(of: file) == .jsonLines, let document = newestRecords(file, path: path, query: query) {
            return print(Window(query: query, path: path, document: document), choice: choice)
        }
        if file != "-", input.format(of: file) == .jsonLines, let document = streamedRecords(file) {
            return print(Window(query: query, path: path, document: document), choice: choice)
        }
        let bytes: DocumentBytes
        do {
            // A file is read as one consistent snapshot (re-read if a writer changed it meanwhile).
            bytes = file == "-" ? DocumentBytes(try readInput(file, maxBytes: maxSize)) : try AtomicFile.read(file).bytes
        } catch {
            throw CommandError((error as? WriteError)?.message ?? "\(error)", at: file)
        }
        let document: JSONDocument
        let reading: FileStore.Format = file == "-" ? (input.input == .jsonl ? .jsonLines : .json) : input.format(of: file)
        if reading == .jsonLines {
            document = records(bytes, mode: .lines)
        } else {
            do {
                document = try JSONDocument(parsing: bytes)
            } catch {
                // Standard input may be a stream of values (JSON Lines, or any whitespace between).
                if file == "-", input.input != .json, let stream = streamOfValues(bytes) {
                    document = stream
                } else {
                    throw CommandError(error.message, exitCode: 1, at: "\(file == "-" ? "<stdin>" : file):\(error.line):\(error.column)")
                }
            }
        }
        print(Window(query: query, path: path, document: document), choice: choice)
    }

    private func print(_ window: Window, choice: ColumnChoice?) {
        warnOfUnknownOrder(window)
        var out = [UInt8]()
        // Made row by row as read (twice for tsv: its columns, then its lines), never all at once.
        let rows = window.lazy.map { (key: $0.key, value: choice?.project($0.value) ?? $0.value.json) }
        switch format ?? (isatty(1) != 0 ? .table : .json) {
        case .json: writeJSON(window, choice, to: &out, lines: false)
        case .jsonl: writeJSON(window, choice, to: &out, lines: true)
        case .tsv: writeTSV(rows, shown: choice?.shown, to: &out)
        case .table:
            // The viewer's columns and cells, so the printed table is the one the viewer shows.
            let table = ColumnTable(window.map { SyncedRow(key: $0.key, value: $0.value) },
                                    shown: choice?.shown, hidden: choice?.hidden ?? [])
            let cells = table.rows.map { row in row.enumerated().map { Cell(text: $0.element, isNumber: table.numeric[$0.offset]) } }
            writeTable(RowTable(header: table.header, rows: cells), to: &out)
        }
        writeOut(out)
    }
}

/// For a query of the newest records of a JSON Lines file (`--limit-to-last K` in line order at
/// the root, no range): only the file's end is parsed (`LinesTail`); nil when the query needs
/// every record, or the file cannot be read this way (the caller then reads it whole and reports
/// any problem).
private func newestRecords(_ file: String, path: Path, query: Query) -> JSONDocument? {
    guard path.isRoot, case .last(let k)? = query.limit, query.start == nil, query.end == nil else { return nil }
    let byKey = query.explicitOrdering == .key
    guard byKey || query.explicitOrdering == nil || query.explicitOrdering == .priority else { return nil }
    guard let tail = LinesTail(path: file, children: k) else { return nil }
    // Priority order is line order unless a record has a `.priority` member.
    return !byKey && tail.mayHavePriorities ? nil : tail.document
}

/// The records of a JSON Lines file as an array, read a piece at a time into the records, so
/// that the file is not held twice (as read, and as records); nil when it cannot be opened and
/// read as a regular file (the caller then reads it the usual way and reports why). A log
/// appended to meanwhile is read up to where the read ends, as `tail` would.
private func streamedRecords(_ file: String) -> JSONDocument? {
    let fd = open(file, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
    var builder = JSONLinesBuilder(mode: .lines)
    builder.reserveCapacity(forInput: Int(st.st_size))
    var piece = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = piece.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return nil
        }
        if n == 0 { break }
        piece.withUnsafeBufferPointer { builder.append(UnsafeBufferPointer(rebasing: $0[0..<n])) }
    }
    builder.finish()
    return builder.finishedList()
}

/// The records of JSON Lines (or of a stream of values) as an array; invalid ones are error rows.
private func records(_ bytes: DocumentBytes, mode: JSONLinesBuilder.Mode) -> JSONDocument {
    var builder = JSONLinesBuilder(mode: mode)
    builder.reserveCapacity(forInput: bytes.count)
    append(bytes, to: &builder)
    builder.finish()
    return builder.finishedList()
}

/// Gives `bytes` to `builder` a piece at a time: the builder holds a record's input until the
/// record is complete, and given a whole file at once it would hold a second copy of it.
private func append(_ bytes: DocumentBytes, to builder: inout JSONLinesBuilder) {
    let piece = 4 << 20
    bytes.withUnsafeBufferPointer { all in
        var at = 0
        while at < all.count {
            let end = min(at + piece, all.count)
            builder.append(UnsafeBufferPointer(rebasing: all[at..<end]))
            at = end
        }
    }
}

/// Input that is not one JSON document, as a list of values, when it holds more than one.
private func streamOfValues(_ bytes: DocumentBytes) -> JSONDocument? {
    var builder = JSONLinesBuilder(mode: .values)
    append(bytes, to: &builder)
    builder.finish()
    return builder.count > 1 ? builder.document() : nil
}

// MARK: - JSON

/// `{"key":K,"value":V}` per row: in one array (a row a line), or one per line. Written as it
/// goes, straight from the document: the whole output (or one row's `JSON` value) held at once
/// would cost more than the file.
private func writeJSON(_ window: Window, _ choice: ColumnChoice?, to out: inout [UInt8], lines: Bool) {
    func drain(_ out: inout [UInt8]) {
        writeOut(out)
        out.removeAll(keepingCapacity: true)
    }
    if !lines { out.append(contentsOf: window.isEmpty ? "[]\n".utf8 : "[\n".utf8) }
    for (i, row) in window.enumerated() {
        if !lines { out.append(contentsOf: "  ".utf8) }
        out.append(contentsOf: #"{"key":"#.utf8)
        writeJSONString(row.key, to: &out, escaping: .invisibles)
        out.append(contentsOf: #","value":"#.utf8)
        if let choice {
            choice.project(row.value).write(to: &out, style: .compact, depth: 0, escaping: .invisibles)
        } else {
            row.value.writeCompact(to: &out, escaping: .invisibles, drainingAt: 1 << 20, drain: drain)
        }
        out.append(UInt8(ascii: "}"))
        if !lines && i < window.count - 1 { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\n"))
        if out.count >= 1 << 20 { drain(&out) }
    }
    if !lines && !window.isEmpty { out.append(contentsOf: "]\n".utf8) }
}

// MARK: - Tables

/// Rows as cells under a header (the table format's).
private struct RowTable {
    var header: [String]
    var rows: [[Cell]]
}

private struct Cell {
    var text: String
    var isNumber = false
}

/// The columns of rows: a column for the key, one per field of object children (in order of
/// first appearance, metadata such as `.priority` included), and `value` for children that are
/// not objects.
private struct RowColumns {
    private(set) var header: [String]
    private var fieldIndex = [JSONKey: Int]()
    private let fieldCount: Int
    private let valueColumn: Int

    /// `shown`: exactly these columns (the values were projected to objects of them).
    init(_ rows: some Sequence<(key: String, value: JSON)>, shown: [Path]?) {
        var fields = shown?.map(ColumnChoice.title) ?? []
        for (i, name) in fields.enumerated() { fieldIndex[JSONKey(name)] = i }
        var hasValue = false
        if shown == nil {
            for row in rows {
                guard case .object(let object) = row.value else {
                    hasValue = true
                    continue
                }
                for m in object.members where fieldIndex[JSONKey(m.key)] == nil {
                    fieldIndex[JSONKey(m.key)] = fields.count
                    fields.append(m.key)
                }
            }
        }
        fieldCount = fields.count
        valueColumn = hasValue ? fields.count : -1
        header = ["key"] + fields + (hasValue ? ["value"] : [])
    }

    /// A row's cells, the key's first.
    func cells(_ row: (key: String, value: JSON)) -> [Cell] {
        var cells = [Cell](repeating: Cell(text: ""), count: fieldCount + (valueColumn >= 0 ? 1 : 0))
        if case .object(let object) = row.value {
            for m in object.members { if let i = fieldIndex[JSONKey(m.key)] { cells[i] = cell(m.value) } }
        } else if valueColumn >= 0 {
            cells[valueColumn] = cell(row.value)
        }
        return [Cell(text: row.key)] + cells
    }
}

private func cell(_ value: JSON) -> Cell {
    switch value {
    case .null: Cell(text: "")
    case .bool(let b): Cell(text: b ? "true" : "false")
    case .number(let n): Cell(text: n.text, isNumber: true)
    case .string(let s): Cell(text: s)
    case .array, .object: Cell(text: value.serializedString())
    }
}

/// Tab-separated, with a header line; in cells, `\`, tab, newline and other control characters
/// are written as escapes (`\\`, `\t`, `\n`, `\x1b`), so a row is one line. Written as it goes.
private func writeTSV(_ rows: some Collection<(key: String, value: JSON)>, shown: [Path]?, to out: inout [UInt8]) {
    func line(_ cells: [String]) {
        out.append(contentsOf: cells.map { sanitize(escapingBackslashes($0)) }.joined(separator: "\t").utf8)
        out.append(UInt8(ascii: "\n"))
        if out.count >= 1 << 20 {
            writeOut(out)
            out.removeAll(keepingCapacity: true)
        }
    }
    let columns = RowColumns(rows, shown: shown)
    line(columns.header)
    for row in rows { line(columns.cells(row).map(\.text)) }
}

/// Aligned columns for reading, under a header and a rule: numbers right-aligned, long cells cut with "…", control
/// characters and bidirectional overrides shown as escapes.
private func writeTable(_ table: RowTable, to out: inout [UInt8]) {
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

/// `text` with each `\` doubled, so that the escapes `sanitize` writes stay unambiguous.
private func escapingBackslashes(_ text: String) -> String {
    guard text.utf8.contains(UInt8(ascii: "\\")) else { return text }
    var out = ""
    for c in text.unicodeScalars { if c == "\\" { out += "\\\\" } else { out.unicodeScalars.append(c) } }
    return out
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

/// A warning on standard error when no child of `window` has the path it is ordered by
/// (`--order-by-child vists`: every child sorts as missing), naming the members they have.
func warnOfUnknownOrder(_ window: Window) {
    guard case .child(let path) = window.query.ordering, !window.isEmpty,
        !window.contains(where: { $0.value.node(at: path) != nil })
    else { return }
    var names: [String] = []
    for row in window.prefix(100) {
        for (key, _) in row.value.members {
            guard let name = key.stringValue, !names.contains(name) else { continue }
            names.append(name)
        }
    }
    let had = names.isEmpty ? "no members" : names.prefix(20).map { JSON.string($0).serializedString() }.joined(separator: ", ")
    printError("warning: no child has \(JSON.string(path.keys.joined(separator: "/")).serializedString()) (--order-by-child): "
        + "all sort as missing, by key; the children have \(had)")
}

