// A journal's lines: the first holds the whole value and says what the file is; each next one
// holds one revision's changes.
import JSONTree

/// One revision as a journal line holds it.
public struct JournalEntry: Sendable {
    public enum Content: Sendable {
        /// The whole value (a journal's first line, and the first after a rotation).
        case whole(JSON)
        case changes([JournalChange])
    }

    /// When the revision was made, seconds since 1970 (kept to the millisecond).
    public var time: Double
    /// Who wrote it, where the recorder knew (`other process`, `network`, `synctable`).
    public var writer: String?
    public var content: Content

    public init(time: Double, writer: String?, content: Content) {
        self.time = time
        self.writer = writer
        self.content = content
    }

    /// The line, with its newline:
    ///
    ///     {"synctable":"journal","version":1,"time":1764925097352,"writer":"other process","value":{…}}
    ///     {"time":1764925098352,"writer":"other process","changes":[["/ada/score",12],["/bob"]]}
    ///
    /// A change is `[POINTER, VALUE]` (set) or `[POINTER]` (removed); times are milliseconds since 1970.
    public func line() -> [UInt8] {
        var out = [UInt8]()
        if case .whole = content { out.append(contentsOf: journalMarker.utf8) }
        out.append(contentsOf: (out.isEmpty ? "{" : ",").utf8)
        out.append(contentsOf: "\"time\":\(Int64((time * 1000).rounded()))".utf8)
        if let writer {
            out.append(contentsOf: ",\"writer\":".utf8)
            writeJSONString(writer, to: &out)
        }
        switch content {
        case .whole(let value):
            out.append(contentsOf: ",\"value\":".utf8)
            value.write(to: &out, style: .compact, depth: 0)
        case .changes(let changes):
            out.append(contentsOf: ",\"changes\":[".utf8)
            for (i, change) in changes.enumerated() {
                out.append(contentsOf: (i == 0 ? "[" : ",[").utf8)
                writeJSONString(jsonPointer(change.pointer), to: &out)
                if let value = change.value {
                    out.append(UInt8(ascii: ","))
                    value.write(to: &out, style: .compact, depth: 0)
                }
                out.append(UInt8(ascii: "]"))
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// The entry a line holds.
    /// - Throws: `JournalError.notJournal` (a first line that is not a journal's) or `.badLine`.
    init(line bytes: ArraySlice<UInt8>, number: Int, file: String) throws(JournalError) {
        let root: JSONNode
        do { root = try JSONDocument(parsing: Array(bytes)).root } catch {
            if number == 1 { throw .notJournal(file: file, line: 1, column: error.column, message: error.message) }
            throw .badLine(file: file, line: number, column: error.column, message: error.message)
        }
        func bad(_ message: String) -> JournalError { .badLine(file: file, line: number, column: 1, message: message) }
        guard root.kind == .object, let time = root[key: "time"]?.doubleValue else {
            throw number == 1 ? .notJournal(file: file, line: 1, column: 1, message: "its first line is not a SyncTable journal's") : bad("not a journal line (no time)")
        }
        self.time = time / 1000
        writer = root[key: "writer"]?.stringValue
        if let value = root[key: "value"], root[key: "synctable"]?.stringValue == "journal" {
            content = .whole(value.json)
        } else if let list = root[key: "changes"], list.kind == .array {
            guard number > 1 else { throw .notJournal(file: file, line: 1, column: 1, message: "its first line is not a SyncTable journal's") }
            var changes = [JournalChange]()
            for change in list.elements {
                let parts = Array(change.elements)
                guard change.kind == .array, (1...2).contains(parts.count), let text = parts[0].stringValue,
                      let keys = pointerKeys(text) else { throw bad("a change is not [POINTER] or [POINTER, VALUE]") }
                // `.none`, not `nil`: JSON takes a nil literal as its own null.
                changes.append(JournalChange(pointer: keys, value: parts.count == 2 ? .some(parts[1].json) : .none))
            }
            content = .changes(changes)
        } else {
            throw number == 1 ? .notJournal(file: file, line: 1, column: 1, message: "its first line is not a SyncTable journal's") : bad("not a journal line (neither value nor changes)")
        }
    }
}

/// How every journal begins: what recognises one by its content, whatever its name.
public let journalMarker = #"{"synctable":"journal","version":1"#

/// Whether `bytes` (a file's beginning) are a journal's.
public func isJournal(_ bytes: some Collection<UInt8>) -> Bool {
    bytes.starts(with: journalMarker.utf8)
}

/// Why a journal cannot be read or written.
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not a SyncTable journal.
    case notJournal(file: String, line: Int, column: Int, message: String)
    /// A line (not the last) that is not a journal's, or whose change cannot be applied.
    case badLine(file: String, line: Int, column: Int, message: String)
    case system(file: String, message: String)

    public var description: String {
        switch self {
        case .notJournal(let file, let line, let column, let message):
            "\(file) is not a SyncTable journal: line \(line), column \(column): \(message)"
        case .badLine(let file, let line, let column, let message):
            "\(file): line \(line), column \(column): \(message)"
        case .system(let file, let message): "\(file): \(message)"
        }
    }
}
