// `synctable list`: one query result, printed as JSON, JSON lines, CSV, TSV or a table, or counted.
import ArgumentParser
import FileStore
import Headless
import JSONTree
import KeyedStore
import LiveQuery
import ViewerCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `synctable list FILE [--path P] [query flags] [--where EXPR] [--format json|jsonl|csv|tsv|table] [--count]`.
struct List: ParsableCommand, SourceCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the children a query selects.",
        discussion: """
            Prints the children at --path in query order. Exit status: 0 on success, 1 when the file \
            is not valid JSON (FILE:LINE:COLUMN: error: MESSAGE), 2 for a bad flag or an unreadable \
            file. A path that does not exist, or a leaf, has no children.
            """
    )

    typealias Format = ListOutput.Format

    @OptionGroup var operands: SourceOperands
    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions
    @OptionGroup var revisions: RevisionOptions

    @Option(help: ArgumentHelp("Refuse standard input longer than this many bytes.", valueName: "bytes"))
    var maxSize: Int = defaultMaxInputBytes

    @Option(help: "json: one array of {\"key\", \"value\"} (and \"computed\": {name: value} with --computed); jsonl: one such object a line; csv (RFC 4180), tsv, table: a column per child field, then the computed ones. Default: table on a terminal, else json.")
    var format: Format?

    @Flag(help: "Print only how many children the query (and --where) selects, at most its limit.")
    var count = false

    // .unconditional: `--columns -email` takes `-email` as the value, not as a flag.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The children's fields to print, for every format: name,score,metrics/views (these, in order), "
            + "or -email,-id (all but these). json and jsonl print each value with only those fields.",
        valueName: "a,b,c/d"))
    var columns: String?

    @OptionGroup var computed: ComputedOptions

    @Flag(help: "Print which evaluator runs each expression (native, or jq through libjq) instead of the children.")
    var explain = false

    func run() throws {
        let path: Path
        let query: Query
        let columns = try computed.columns()
        do { (path, query) = try source.query.resolved(computed: columns) } catch { throw CommandError("\(error)") }
        if explain {
            let order = try? source.query.computedOrder(among: columns)
            writeOut(Array(explanation(filter: try? source.query.condition(), order: order, computed: columns).utf8))
            return
        }
        let choice = try self.columns.map { text throws(CommandError) in try ColumnChoice(parsing: text) }
        let fold = try source.revisions.fold()
        if let document = try listedDocument(file, command: try operands.command(), fold: fold, extras: try source.revisions.extras(), location: path) {
            return print(Window(query: query, path: path, document: document), choice: choice, computed: columns)
        }
        if let url = try databaseURL(file) {
            return print(try remoteWindow(url, source.remote.credential, path: path, query: query), choice: choice, computed: columns)
        }
        let reading: FileStore.Format = file == "-" ? (source.input.input == .jsonl ? .jsonLines : .json) : source.input.format(of: file)
        if let fold, file != "-", reading == .jsonLines, let folded = foldedRecords(file, by: fold) {
            return printFolded(folded, path: path, query: query, choice: choice, computed: columns)
        }
        // A fold reads every record, not only those the query's window needs.
        let document = try readDocument(file, format: reading, path: path, query: fold == nil ? query : Query(), maxSize: maxSize,
                                        valuesAllowed: source.input.input != .json)
        print(Window(query: query, path: path, document: fold?.document(folding: document) ?? document), choice: choice, computed: columns)
    }

    /// A log folded as it was read: counting every child needs no document of the table.
    private func printFolded(_ fold: KeyedFold, path: Path, query: Query, choice: ColumnChoice?, computed: [ComputedColumn]) {
        if count, path.isRoot, query.start == nil, query.end == nil, query.limit == nil, query.filters.isEmpty {
            writeOut(Array("\(fold.count)\n".utf8))
            return
        }
        print(Window(query: query, path: path, document: fold.document), choice: choice, computed: computed)
    }

    private func print(_ window: Window, choice: ColumnChoice?, computed: [ComputedColumn]) {
        warnOfUnknownOrder(window)
        var out = [UInt8]()
        if count {
            writeOut(Array("\(window.count)\n".utf8))
            return
        }
        let terminal = CommandIO.current.outputIsTerminal
        ListOutput(format: format ?? (terminal ? .table : .json), choice: choice, computed: computed, terminal: terminal)
            .write(window, to: &out) { out in
                writeOut(out)
                out.removeAll(keepingCapacity: true)
            }
        writeOut(out)
    }
}

extension ListOutput.Format: ExpressibleByArgument {}
