// `synctable list`: one query result, printed as JSON, JSON lines, CSV, TSV or a table, or counted.
import ArgumentParser
import FileStore
import Headless
import JSONTree
import KeyedStore
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
    @OptionGroup var watch: WatchOption
    @OptionGroup var keyed: KeyOptions

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
        let path: Path
        let query: Query
        do { (path, query) = try self.query.resolved() } catch { throw CommandError("\(error)") }
        let choice = try columns.map { text throws(CommandError) in try ColumnChoice(parsing: text) }
        let fold = try keyed.fold()
        if let source = try watch.source(file) {
            let document = try documentOfOneRun(source)
            return print(Window(query: query, path: path, document: fold?.document(folding: document) ?? document), choice: choice)
        }
        if let url = try databaseURL(file) {
            return print(try remoteWindow(url, remote.credential, path: path, query: query), choice: choice)
        }
        let reading: FileStore.Format = file == "-" ? (input.input == .jsonl ? .jsonLines : .json) : input.format(of: file)
        // A fold reads every record, not only those the query's window needs.
        let document = try readDocument(file, format: reading, path: path, query: fold == nil ? query : Query(), maxSize: maxSize,
                                        valuesAllowed: input.input != .json)
        print(Window(query: query, path: path, document: fold?.document(folding: document) ?? document), choice: choice)
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
