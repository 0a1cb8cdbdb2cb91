// Rows written as JSON, JSON Lines, CSV or TSV: `synctable list --format` and the viewer's export.
import JSONTree
import TableUI

/// The file formats rows are written in.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// `[{"key": K, "value": V}, …]`, a row a line.
    case json
    /// The rows as shown: `[{"key": K, "score": 9, "team": "red"}, …]`, one flat object per row
    /// with every column (null where a row has no value), as CSV writes them (`.records.json`).
    case records
    /// `{"key": K, "value": V}`, one a line.
    case jsonl
    /// RFC 4180: a header line, then a line per row, fields with `,`, `"`, CR or LF quoted.
    case csv
    /// A header line, then a line per row; `\`, tab, newline and other controls as escapes.
    case tsv

    /// The format a file's name asks for by its extension (`.records.json`, `.json`, `.jsonl` or
    /// `.ndjson`, `.csv`, `.tsv`, any case); nil for another.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "json": self = fileName.lowercased().hasSuffix(".records.json") ? .records : .json
        case "jsonl", "ndjson": self = .jsonl
        case "csv": self = .csv
        case "tsv": self = .tsv
        default: return nil
        }
    }
}

/// One column of an export after the key: a title and the cell of each row's value.
public struct ExportColumn {
    public let title: String
    /// The cell's value for a row; nil for none (an empty cell, a member left out).
    public let cell: (JSONNode) -> JSON?

    public init(title: String, cell: @escaping (JSONNode) -> JSON?) {
        self.title = title
        self.cell = cell
    }

    /// A computed column's value for each row; an error for the row is `⚠ ` and jq's message,
    /// as the table shows it.
    public static func computed(_ column: ComputedColumn) -> ExportColumn {
        ExportColumn(title: column.title) { child in
            switch column.result(for: child) {
            case .value(let json): json
            case .empty: nil
            case .error(let message): .string("⚠ " + message)
            }
        }
    }

    /// The value at `path` in each row (the value itself for the root path).
    public static func member(_ path: Path) -> ExportColumn {
        ExportColumn(title: path.keys.joined(separator: "/")) { value in
            guard let node = path.isRoot ? value : value.node(at: path), !node.isNull else { return nil }
            return node.json
        }
    }
}

/// Writes rows — a key and a value each — in an `ExportFormat`, a row at a time, so that a
/// million rows cost no more memory than the output buffer.
///
/// ```swift
/// var out = [UInt8]()
/// RowExport(format: .csv, columns: [.member(try Path("score"))]).write(rows, to: &out) { flush($0) }
/// ```
public struct RowExport {
    public let format: ExportFormat
    /// The columns after the key; nil: JSON writes each whole value, CSV and TSV a column per
    /// member of the object values (in order of first appearance) and `value` for the others.
    public let columns: [ExportColumn]?
    /// Members left out of each value (with `columns` nil).
    public let hidden: [Path]
    /// How JSON strings are escaped: `.invisibles` for output a terminal may show.
    public var escaping: JSONEscaping = .required
    /// Columns after the others when `columns` is nil (`list --computed` without `--columns`):
    /// CSV and TSV add them after the inferred ones; JSON writes them in a `computed` object
    /// beside `key` and `value`, since a value need not be an object.
    public var computed: [ExportColumn] = []

    public init(format: ExportFormat, columns: [ExportColumn]? = nil, hidden: [Path] = []) {
        self.format = format
        self.columns = columns
        self.hidden = hidden
    }

    /// Appends the rows to `out`, calling `drain` whenever it holds a megabyte or more (a caller
    /// writing to a file writes and empties it there).
    public func write<Rows: Collection>(_ rows: Rows, to out: inout [UInt8], drain: (inout [UInt8]) -> Void = { _ in })
    where Rows.Element == (key: String, value: JSONNode) {
        switch format {
        case .json, .jsonl: writeJSON(rows, to: &out, lines: format == .jsonl, drain: drain)
        case .records: writeRecords(rows, to: &out, drain: drain)
        case .csv, .tsv:
            let columns = self.columns ?? (inferredColumns(rows) + computed)
            line(["key"] + columns.map(\.title), to: &out)
            for row in rows {
                line([row.key] + columns.map { cellText($0.cell(row.value)) }, to: &out)
                if out.count >= 1 << 20 { drain(&out) }
            }
        }
    }

    /// A row's value as written in JSON: an object of the columns, or the value without the hidden members.
    public func projected(_ value: JSONNode) -> JSON {
        if let columns {
            return .object(JSONObject(columns.compactMap { c in c.cell(value).map { (c.title, $0) } }))
        }
        return hidden.reduce(value.json) { json, path in removing(path.keys[...], from: json) }
    }

    // MARK: JSON

    /// Written straight from the document when the whole value is wanted: the whole output (or one
    /// row's `JSON` value) held at once would cost more than the file.
    private func writeJSON<Rows: Collection>(_ rows: Rows, to out: inout [UInt8], lines: Bool, drain: (inout [UInt8]) -> Void)
    where Rows.Element == (key: String, value: JSONNode) {
        if !lines { out.append(contentsOf: rows.isEmpty ? "[]\n".utf8 : "[\n".utf8) }
        var remaining = rows.count
        for row in rows {
            remaining -= 1
            if !lines { out.append(contentsOf: "  ".utf8) }
            out.append(contentsOf: #"{"key":"#.utf8)
            writeJSONString(row.key, to: &out, escaping: escaping)
            out.append(contentsOf: #","value":"#.utf8)
            if columns == nil && hidden.isEmpty {
                row.value.writeCompact(to: &out, escaping: escaping, drainingAt: 1 << 20, drain: drain)
            } else {
                projected(row.value).write(to: &out, style: .compact, depth: 0, escaping: escaping)
            }
            if columns == nil && !computed.isEmpty {
                out.append(contentsOf: #","computed":"#.utf8)
                JSON.object(JSONObject(computed.compactMap { c in c.cell(row.value).map { (c.title, $0) } }))
                    .write(to: &out, style: .compact, depth: 0, escaping: escaping)
            }
            out.append(UInt8(ascii: "}"))
            if !lines && remaining > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\n"))
            if out.count >= 1 << 20 { drain(&out) }
        }
        if !lines && !rows.isEmpty { out.append(contentsOf: "]\n".utf8) }
    }

    /// One flat object per row: `key`, then each column's value (null for none), as the columns
    /// of CSV are.
    private func writeRecords<Rows: Collection>(_ rows: Rows, to out: inout [UInt8], drain: (inout [UInt8]) -> Void)
    where Rows.Element == (key: String, value: JSONNode) {
        let columns = self.columns ?? (inferredColumns(rows) + computed)
        out.append(contentsOf: rows.isEmpty ? "[]\n".utf8 : "[\n".utf8)
        var remaining = rows.count
        for row in rows {
            remaining -= 1
            out.append(contentsOf: #"  {"key":"#.utf8)
            writeJSONString(row.key, to: &out, escaping: escaping)
            for column in columns {
                out.append(UInt8(ascii: ","))
                writeJSONString(column.title, to: &out, escaping: escaping)
                out.append(UInt8(ascii: ":"))
                (column.cell(row.value) ?? .null).write(to: &out, style: .compact, depth: 0, escaping: escaping)
            }
            out.append(contentsOf: remaining > 0 ? "},\n".utf8 : "}\n".utf8)
            if out.count >= 1 << 20 { drain(&out) }
        }
        if !rows.isEmpty { out.append(contentsOf: "]\n".utf8) }
    }

    // MARK: CSV and TSV

    /// A column per member of the object values, in order of first appearance (metadata such as
    /// `.priority` included, hidden members left out), then `value` when some value is not an object.
    private func inferredColumns<Rows: Collection>(_ rows: Rows) -> [ExportColumn] where Rows.Element == (key: String, value: JSONNode) {
        var names = [String]()
        var seen = Set<[UInt8]>()
        var hasValue = false
        for row in rows {
            guard row.value.kind == .object else {
                hasValue = true
                continue
            }
            for m in row.value.members {
                let bytes = m.key.withStringBytes { Array($0) }
                guard !seen.contains(bytes) else { continue }
                seen.insert(bytes)
                let name = String(decoding: bytes, as: UTF8.self)
                if !hidden.contains(where: { $0.keys.count == 1 && codeUnitsEqual($0.keys[0], name) }) { names.append(name) }
            }
        }
        var columns = names.map { name in
            ExportColumn(title: name) { value in
                guard value.kind == .object, let node = value[key: name], !node.isNull else { return nil }
                return node.json
            }
        }
        if hasValue {
            columns.append(ExportColumn(title: "value") { $0.kind == .object || $0.isNull ? nil : $0.json })
        }
        return columns
    }

    /// A cell as text: strings as they are, numbers as spelled, containers as compact JSON.
    private func cellText(_ value: JSON?) -> String {
        switch value {
        case nil, .null?: ""
        case .bool(let b)?: b ? "true" : "false"
        case .number(let n)?: n.text
        case .string(let s)?: s
        case let v?: v.serializedString()
        }
    }

    private func line(_ cells: [String], to out: inout [UInt8]) {
        switch format {
        case .tsv:
            out.append(contentsOf: cells.map { sanitize(escapingBackslashes($0)) }.joined(separator: "\t").utf8)
            out.append(UInt8(ascii: "\n"))
        default:
            // RFC 4180 is one quoting rule, written here: SwiftCSV 0.10.0 only reads, and CSV.swift
            // 2.5.2 writes through Foundation's OutputStream a field at a time, for no gain.
            for (i, cell) in cells.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                let text = escaping == .invisibles ? sanitize(cell) : cell
                if text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }) {
                    out.append(UInt8(ascii: "\""))
                    for b in text.utf8 {
                        if b == UInt8(ascii: "\"") { out.append(b) }
                        out.append(b)
                    }
                    out.append(UInt8(ascii: "\""))
                } else {
                    out.append(contentsOf: text.utf8)
                }
            }
            out.append(contentsOf: "\r\n".utf8)
        }
    }
}

/// `text` with each `\` doubled, so that the escapes `sanitize` writes stay unambiguous.
private func escapingBackslashes(_ text: String) -> String {
    guard text.utf8.contains(UInt8(ascii: "\\")) else { return text }
    var out = ""
    for c in text.unicodeScalars { if c == "\\" { out += "\\\\" } else { out.unicodeScalars.append(c) } }
    return out
}

/// `json` without the member at `keys` (objects only; anything else is kept as it is).
private func removing(_ keys: ArraySlice<String>, from json: JSON) -> JSON {
    guard let first = keys.first, case .object(let object) = json else { return json }
    if keys.count == 1 { return .object(JSONObject(object.members.filter { !codeUnitsEqual($0.key, first) })) }
    return .object(JSONObject(object.members.map { member in
        codeUnitsEqual(member.key, first) ? (member.key, removing(keys.dropFirst(), from: member.value)) : member
    }))
}
