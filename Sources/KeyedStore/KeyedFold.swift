// A log's records folded by a key: each record the new value of the child with its key.
#if canImport(Glibc)
import Glibc
#endif
import Expressions
import JSONTree

/// The records of a log folded into one child per key (an upsert per record), as
/// `jq -n 'reduce inputs as $r ({}; .[$r.k] = $r)'` folds them; a record `deleteWhen` keeps
/// removes its key's child instead. A record without a key (no value, `null`, an error, or not
/// a string or a number), and an invalid line, is an error row keyed `$N` (N: its record's
/// index), never dropped.
///
/// Folding is incremental: each call reads only the records after those already folded. Only
/// each key's latest record is held, as its bytes (`KeyedChildren`), so a fold of a long log
/// costs about its table. A key that is a plain path (`.metadata.name`) is read on the record's
/// tape where it lies, not evaluated; a log's lines are folded one at a time as they are parsed.
public struct KeyedFold: Sendable {
    public let key: Expression
    public let deleteWhen: Expression?
    /// Records folded so far.
    public private(set) var folded = 0
    /// `key`'s member names when it is a plain path (see `Expression.memberPath`).
    private let keyPath: [[UInt8]]?
    private var children = KeyedChildren()

    public init(key: Expression, deleteWhen: Expression? = nil) {
        self.key = key
        self.deleteWhen = deleteWhen
        keyPath = key.memberPath
    }

    /// Folds the records of `log` (an array's elements, or an object's members, in order) after
    /// the first `folded`.
    /// - Returns: whether any child changed.
    @discardableResult
    public mutating func fold(_ log: JSONNode) -> Bool {
        let before = folded
        log.document.withTapeReader { tape in
            var seen = 0
            func each(_ record: Int) {
                if seen >= before {
                    apply(tape, record, index: folded)
                    folded += 1
                }
                seen += 1
            }
            if log.kind == .array { tape.forEachElement(of: log.index, each) } else { tape.forEachMember(of: log.index) { each($1) } }
        }
        return folded > before
    }

    /// Folds the JSON Lines in `lines`, one record a line (the last may lack its newline), numbered
    /// on from `folded`: the caller passes whole lines, keeping a line cut by a piece's end for
    /// the next. As a JSON Lines list reads them, a blank line is a `null` record and an invalid
    /// line is an error row naming its line (record N is line N + 1).
    public mutating func foldLines(_ lines: UnsafeBufferPointer<UInt8>) {
        guard let base = lines.baseAddress else { return }
        var start = 0
        while start < lines.count {
            let newline = memchr(base + start, 0x0A, lines.count - start).map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) }
            let end = newline ?? lines.count
            foldLine(UnsafeBufferPointer(rebasing: lines[start..<end]))
            start = end + 1
        }
    }

    private mutating func foldLine(_ line: UnsafeBufferPointer<UInt8>) {
        let index = folded
        folded += 1
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return foldNull(index) }
        // A child's record is held with a 32-bit length.
        guard line.count <= Int(Int32.max) else {
            let row = JSONLinesBuilder.errorRow(line: index + 1, column: 1, message: "the record is longer than \(Int32.max) bytes; it was skipped")
            return row.withUnsafeBufferPointer { set(index, $0) }
        }
        do throws(JSONParseError) {
            try withParsedRecord(line) { apply($0, 0, index: index) }
        } catch {
            let row = JSONLinesBuilder.errorRow(line: index + 1, column: error.column, message: error.message)
            row.withUnsafeBufferPointer { set(index, $0) }
        }
    }

    /// A blank line, which a JSON Lines list holds as `null`.
    private mutating func foldNull(_ index: Int) {
        Self.null.withUnsafeBufferPointer { null in
            // Made here: it parses.
            try! withParsedRecord(null) { apply($0, 0, index: index) }
        }
    }

    private static let null = Array("null".utf8)

    /// `log`'s records folded (on top of those already folded), as a document.
    public func document(folding log: JSONDocument) -> JSONDocument {
        var fold = self
        fold.fold(log.root)
        return fold.document
    }

    /// How many children there are.
    public var count: Int { children.count }

    /// The children so far, in order, as a document.
    public var document: JSONDocument {
        // Written from parsed records and keys: it parses.
        try! JSONDocument(parsing: bytes)
    }

    /// The children so far, in order, as JSON.
    public var value: JSON { document.root.json }

    /// The children so far as an object's bytes (each record's as it was read).
    public var bytes: [UInt8] { children.bytes }

    /// Folds record `index`, node `node` of `tape`.
    private mutating func apply(_ tape: TapeReader, _ node: Int, index: Int) {
        tape.withBytes(tape.start(node)..<tape.end(node)) { record in
            if tape.kind(node) == .object, Self.errorMember.withUnsafeBufferPointer({ tape.member(of: node, named: $0) }) != nil {
                return set(index, record)
            }
            if let name = plainKey(tape, node) {
                let deletes = removes(tape, node)
                return tape.withStringBytes(name) { deletes ? children.remove($0) : children.set($0, record) }
            }
            switch keyOf(tape, node, index: index) {
            case .failure(let row): row.bytes.withUnsafeBufferPointer { set(index, $0) }
            case .success(let name):
                let deletes = removes(tape, node)
                Array(name.utf8).withUnsafeBufferPointer { deletes ? children.remove($0) : children.set($0, record) }
            }
        }
    }

    /// Whether record `node` removes its key's child (`deleteWhen` keeps it).
    private func removes(_ tape: TapeReader, _ node: Int) -> Bool {
        deleteWhen?.keeps(node, in: tape) ?? false
    }

    private static let errorMember = Array(JSONLinesBuilder.errorMember.utf8)

    /// The error row of record `index`.
    private mutating func set(_ index: Int, _ row: UnsafeBufferPointer<UInt8>) {
        Array("$\(index)".utf8).withUnsafeBufferPointer { children.set($0, row) }
    }

    /// The string node that `keyPath` reaches in record `node`, when it reaches one that is not
    /// empty through objects alone (then it is the key's value); nil otherwise.
    private func plainKey(_ tape: TapeReader, _ node: Int) -> Int? {
        guard let keyPath else { return nil }
        var at = node
        for name in keyPath {
            guard tape.kind(at) == .object, let value = name.withUnsafeBufferPointer({ tape.member(of: at, named: $0) }) else { return nil }
            at = value
        }
        return tape.kind(at) == .string && tape.end(at) - tape.start(at) > 2 ? at : nil
    }

    /// The record's key, or the bytes of its error row.
    private func keyOf(_ tape: TapeReader, _ node: Int, index: Int) -> Result<String, ErrorRowBytes> {
        switch key.value(of: node, in: tape) {
        case .value(.string(let s)) where !s.isEmpty: .success(s)
        case .value(.number(let n)): .success(n.text)
        case .value(.string): .failure(errorRow(index, "--key \(key.text) gives an empty string"))
        case .value(let other): .failure(errorRow(index, "--key \(key.text) gives \(other.serializedString()), not a string or a number"))
        case .empty: .failure(errorRow(index, "--key \(key.text) gives no value"))
        case .error(let message): .failure(errorRow(index, "--key \(key.text): \(message)"))
        }
    }

    private func errorRow(_ index: Int, _ message: String) -> ErrorRowBytes {
        var out = [UInt8]()
        JSON.object(JSONObject([(key: JSONLinesBuilder.errorMember, value: .object(JSONObject([
            (key: "record", value: .number(JSONNumber(index))), (key: "message", value: .string(message)),
        ])))])).write(to: &out, style: .compact, depth: 0)
        return ErrorRowBytes(bytes: out)
    }
}

/// An error row's bytes, as a `Result`'s failure.
private struct ErrorRowBytes: Error {
    let bytes: [UInt8]
}
