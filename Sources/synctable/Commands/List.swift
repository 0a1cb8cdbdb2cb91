// `synctable list`: one query result, printed as JSON, JSON lines, CSV, TSV or a table, or counted.
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

/// `synctable list FILE [--path P] [query flags] [--where EXPR] [--format json|jsonl|csv|tsv|table] [--count]`.
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
        case json, jsonl, csv, tsv, table
    }

    @Argument(help: "The JSON file ('-' for standard input), or a database URL (http(s)://…/location).")
    var file: String

    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions

    @Option(help: ArgumentHelp("Refuse standard input longer than this many bytes.", valueName: "bytes"))
    var maxSize: Int = defaultMaxInputBytes

    @Option(help: "json: one array of {\"key\", \"value\"}; jsonl: one such object a line; csv (RFC 4180), tsv, table: a column per child field. Default: table on a terminal, else json.")
    var format: Format?

    @Flag(help: "Print only how many children the query (and --where) selects, at most its limit.")
    var count = false

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
        if count {
            out.append(contentsOf: "\(window.count)\n".utf8)
            return writeOut(out)
        }
        let terminal = isatty(1) != 0
        let exportFormat: ExportFormat
        switch format ?? (terminal ? .table : .json) {
        case .json: exportFormat = .json
        case .jsonl: exportFormat = .jsonl
        case .csv: exportFormat = .csv
        case .tsv: exportFormat = .tsv
        case .table:
            // The viewer's columns and cells, so the printed table is the one the viewer shows.
            let table = ColumnTable(window.map { SyncedRow(key: $0.key, value: $0.value) },
                                    shown: choice?.shown, hidden: choice?.hidden ?? [])
            let cells = table.rows.map { row in row.enumerated().map { Cell(text: $0.element, isNumber: table.numeric[$0.offset]) } }
            writeTable(RowTable(header: table.header, rows: cells), to: &out)
            return writeOut(out)
        }
        var export = RowExport(format: exportFormat, columns: choice?.shown?.map(ExportColumn.member), hidden: choice?.hidden ?? [])
        // JSON read by a terminal or a line-based tool: invisible characters as escapes; CSV on a
        // terminal too (in a file, CSV keeps the text exactly).
        export.escaping = exportFormat == .csv && !terminal ? .required : .invisibles
        // Made row by row as read, never all at once.
        export.write(window.lazy.map { (key: $0.key, value: $0.value) }, to: &out) { out in
            writeOut(out)
            out.removeAll(keepingCapacity: true)
        }
        writeOut(out)
    }
}

/// For a query of the newest records of a JSON Lines file (`--limit-to-last K` in line order at
/// the root, no range, no filter): only the file's end is parsed (`LinesTail`); nil when the query needs
/// every record, or the file cannot be read this way (the caller then reads it whole and reports
/// any problem).
private func newestRecords(_ file: String, path: Path, query: Query) -> JSONDocument? {
    guard path.isRoot, case .last(let k)? = query.limit, query.start == nil, query.end == nil,
          query.filters.isEmpty else { return nil }
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

