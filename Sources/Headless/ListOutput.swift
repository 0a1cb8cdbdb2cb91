// What `synctable list` prints for the children a query selects: a table as the viewer shows
// it, an export (JSON, JSON Lines, CSV, TSV), and how the query's expressions run.
import Expressions
import JSONTree
import LiveQuery
import SyncedArray
import TableUI
import ViewerCore

/// `list`'s output for one window of children.
public struct ListOutput {
    public enum Format: String, CaseIterable, Sendable {
        case json, jsonl, csv, tsv, table
    }

    public var format: Format
    /// `--columns`, if given.
    public var choice: ColumnChoice?
    /// `--computed`: columns after the others, or where `--columns` names them.
    public var computed: [ComputedColumn] = []
    /// Standard output is a terminal: JSON escapes invisible characters, and CSV too.
    public var terminal: Bool

    public init(format: Format, choice: ColumnChoice?, computed: [ComputedColumn] = [], terminal: Bool) {
        self.format = format
        self.choice = choice
        self.computed = computed
        self.terminal = terminal
    }

    /// Writes the children in order to `out`, calling `drain` when it holds a megabyte or more.
    public func write(_ window: Window, to out: inout [UInt8], drain: (inout [UInt8]) -> Void) {
        let exportFormat: ExportFormat
        switch format {
        case .json: exportFormat = .json
        case .jsonl: exportFormat = .jsonl
        case .csv: exportFormat = .csv
        case .tsv: exportFormat = .tsv
        case .table:
            // The viewer's columns and cells, so the printed table is the one the viewer shows.
            let table = ColumnTable(window.map { SyncedRow(key: $0.key, value: $0.value) },
                                    shown: choice?.shown, hidden: choice?.hidden ?? [], computed: computed)
            let cells = table.rows.map { row in row.enumerated().map { Cell(text: $0.element, isNumber: table.numeric[$0.offset]) } }
            return writeTable(RowTable(header: table.header, rows: cells), to: &out)
        }
        var export = RowExport(format: exportFormat, columns: exportColumns, hidden: choice?.hidden ?? [])
        if choice?.shown == nil { export.computed = computed.map(ExportColumn.computed) }
        // JSON read by a terminal or a line-based tool: invisible characters as escapes; CSV on a
        // terminal too (in a file, CSV keeps the text exactly).
        export.escaping = exportFormat == .csv && !terminal ? .required : .invisibles
        // Made row by row as read, never all at once.
        export.write(window.lazy.map { (key: $0.key, value: $0.value) }, to: &out, drain: drain)
    }

    /// The columns `--columns` gives, a computed column's name standing for that column, then
    /// the computed columns it does not name (as the viewer places them).
    private var exportColumns: [ExportColumn]? {
        guard let shown = choice?.shown else { return nil }
        var rest = computed
        let columns = shown.map { path -> ExportColumn in
            guard path.keys.count == 1, let i = rest.firstIndex(where: { $0.name == path.keys[0] }) else { return .member(path) }
            return .computed(rest.remove(at: i))
        }
        return columns + rest.map(ExportColumn.computed)
    }
}

/// `list --explain`: which evaluator runs each expression of the command, one line each —
/// libjq runs per child the query reaches, on that child's value, and costs more than the
/// native subset on the document's tape.
/// - Parameters:
///   - filter: `--where`.
///   - order: `--order-by-computed`'s column.
///   - computed: `--computed`.
public func explanation(filter: Expression?, order: ComputedColumn?, computed: [ComputedColumn]) -> String {
    func line(_ flag: String, _ text: String, _ e: Expression) -> String {
        let how = e.evaluator == .native ? "native (the subset, read on the document)" : "jq (libjq 1.6, run on each child's value)"
        return "\(flag) \(JSON.string(text).serializedString()): \(how)\n"
    }
    var out = filter.map { line("--where", $0.text, $0) } ?? ""
    if let order { out += line("--order-by-computed", order.definition, order.expression) }
    for column in computed { out += line("--computed", column.definition, column.expression) }
    return out.isEmpty ? "no expressions: the query runs without an evaluator\n" : out
}
