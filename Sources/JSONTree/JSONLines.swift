// JSON Lines (and streams of JSON values) as one growing array document, parsed as bytes arrive.
import EngineMemory
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A record that is not valid JSON: where it is and why.
public struct JSONLinesError: Sendable, Equatable {
    /// The record's key (its index among the records).
    public let index: Int
    /// Where the problem is in the input (1-based line, column in Unicode scalars).
    public let line: Int
    public let column: Int
    public let message: String

    public init(index: Int, line: Int, column: Int, message: String) {
        self.index = index
        self.line = line
        self.column = column
        self.message = message
    }
}

/// Reads JSON Lines, or a stream of JSON values, into an array document whose child `N` is
/// record `N`, one chunk of input at a time.
///
/// Each record is parsed once, when the input that completes it arrives: its tape is appended
/// to the array's, with its byte offsets moved to where its bytes sit in the array's bytes.
/// A record that is not yet complete (a line without its newline, a value still open) waits for
/// more input. The array's bytes are the records' own bytes (so values keep their spelling)
/// joined by commas; a blank line is `null` there (counted, but not a child), and an invalid
/// record is an *error row*: `{"$error":{"line":L,"column":C,"message":M}}`.
///
/// ```swift
/// var lines = JSONLinesBuilder(mode: .lines)
/// lines.append(Array("{\"a\":1}\n{\"a\":".utf8))    // record 0; the rest waits
/// lines.append(Array("2}\n".utf8))                  // record 1
/// let document = lines.document()                   // [{"a":1},{"a":2}]
/// ```
/// Every document made shares the builder's bytes and tape, which only grow past what earlier
/// documents read: making one costs O(1), parsing only what was appended, so following a log
/// costs what it appends however long the log is. (The array's bytes have no closing bracket:
/// the next record's comma goes there. Its tape, not its bytes, delimits the array.)
public struct JSONLinesBuilder: ~Copyable {
    /// How the input is cut into records.
    public enum Mode: Sendable {
        /// One record a line (`\n`); line N is child N. A line of only whitespace is skipped but counted.
        case lines
        /// JSON values separated by any whitespace (as `jq` reads its input); value N is child N.
        /// When the first value fits on one line and a newline follows it, the input is taken
        /// for JSON Lines and read as `.lines` from there on, so that one bad line cannot
        /// swallow the rest of the input into an unclosed bracket.
        case values
    }

    /// The member that marks an error row.
    public static let errorMember = "$error"

    /// How the input is cut; `.values` may turn into `.lines` after the first value.
    public private(set) var mode: Mode
    /// Whether a `.values` input was checked for being JSON Lines.
    private var decided = false
    /// Whether the first record's bytes hold a newline (a pretty-printed value).
    private var firstSpansLines = false
    /// The array of the records so far: `[`, then the records comma-separated, in the first
    /// `bodyCount` bytes of a block that documents share. A block that is full is copied to
    /// one twice as large; documents made before keep the old one.
    private var body: ByteBlock
    private var bodyCount = 1
    /// The tape of the body: entry 0 is the array (each document has its own, see
    /// `TapeStorage.root`), then each record's. Shared and grown like the body.
    private var tape: TapeBlock
    private var tapeCount = 2
    /// The last document made, whose bytes the next one starts with (its shared prefix).
    private weak var lastDocument: JSONDocument?
    /// Input not yet part of a record.
    private var pending: [UInt8] = []
    /// How much of `pending` was already scanned for the end of a record, so a record that
    /// arrives in many small pieces is scanned once.
    private var scanned = 0
    private var scan = ValueScan()
    /// A place in `pending` whose line and column (1-based, column in Unicode scalars) are known,
    /// for the positions of errors: it only moves forwards, so input is counted once.
    private var mark = (index: 0, line: 1, column: 1)
    /// In `.lines` mode: the records since `mark` (a line each), so lines need no counting.
    private var linesSinceMark = 0
    /// Records so far (blank lines included).
    public private(set) var count = 0
    /// The invalid records so far.
    public private(set) var errors: [JSONLinesError] = []
    /// The records reached 4 GiB or 2^31 tape entries: later input is skipped (see `addRecord`).
    public private(set) var isFull = false
    /// Input bytes consumed into records (the start of `pending` in the input).
    public private(set) var consumed = 0
    /// The first valid record's bytes in `body`: a stream holding exactly one value is that value
    /// as a document (`finishedDocument`).
    private var firstValue: Range<Int>?
    /// Records that are not blank lines.
    private var valueRecords = 0
    /// Whether the input was a `.values` input at first.
    private let startedAsValues: Bool

    /// The largest array the records may make: tape offsets are 32-bit, indexes 31-bit.
    private let byteLimit: Int
    private let entryLimit: Int

    /// The longest record a server reads by default (`serve --max-line-bytes`): 256 MiB. A
    /// builder holds records of any length unless given a bound.
    public static let defaultMaxRecordBytes = 256 << 20
    /// A record longer than this is not held: it becomes an error row naming its line, and
    /// reading goes on after its end (so a runaway line costs at most this much memory).
    public let maxRecordBytes: Int
    /// Whether the input is being skipped up to the end of a record that was too long.
    private var skippingLongRecord = false

    public init(mode: Mode, maxRecordBytes: Int = .max) {
        self.init(mode: mode, byteLimit: Int(UInt32.max), maxRecordBytes: maxRecordBytes)
    }

    /// A builder whose records stop at `byteLimit` bytes and `entryLimit` tape entries (tests:
    /// the limits without gigabytes of input).
    init(mode: Mode, byteLimit: Int, entryLimit: Int = Tape.entryLimit, maxRecordBytes: Int = .max) {
        self.byteLimit = byteLimit
        self.entryLimit = entryLimit
        self.maxRecordBytes = max(1, maxRecordBytes)
        self.mode = mode
        decided = mode == .lines
        startedAsValues = mode == .values
        body = ByteBlock(capacity: 4096)
        body.base[0] = UInt8(ascii: "[")
        tape = TapeBlock(memory: TapeMemory(capacity: 1024))
        // The root array's two entries; its next index and end are each document's own.
        tape.memory.base[0] = TapeEntry.container(start: 0)
        tape.memory.base[1] = TapeEntry(start: 1, word: 0)
    }

    /// Makes room for about `bytes` more bytes of input at once (a whole file about to be read),
    /// so that the bytes and the tape grow once instead of doubling many times.
    public mutating func reserveCapacity(forInput bytes: Int) {
        // An eighth more, so that a followed file's next appends fit too.
        reserveBody(bytes + bytes / 8 + 2)
        // Log lines of ~200 bytes hold ~10 values; fewer entries only means a later doubling.
        reserveTape(bytes / 16 + bytes / 128)
    }

    /// Input bytes waiting for the rest of their record.
    public var pendingCount: Int { pending.count }

    /// Adds input; parses every record it completes.
    /// - Returns: how many records were added.
    /// - Complexity: O(bytes appended), amortised.
    @discardableResult
    public mutating func append(_ bytes: some Collection<UInt8>) -> Int {
        let before = count
        pending.append(contentsOf: bytes)
        var start = skipLongRecord()
        while let end = recordEnd(from: &start, final: false) {
            addRecord(start..<end.record)
            start = end.next
        }
        drop(start)
        if pending.count > maxRecordBytes {
            // The record waiting for its end is already too long: an error row, and its bytes go.
            addErrorRow(line: mark.line + linesSinceMark, column: 1,
                        message: "the record is longer than \(maxRecordBytes) bytes; it was skipped")
            if mode == .lines { linesSinceMark += 1 }
            skippingLongRecord = true
            drop(skipLongRecord())
        }
        return count - before
    }

    /// While skipping a record that was too long: how many pending bytes belong to it (up to and
    /// including the newline that ends it, or all of them).
    private mutating func skipLongRecord() -> Int {
        guard skippingLongRecord else { return 0 }
        scan = ValueScan()
        scanned = 0
        guard let newline = pending.firstIndex(of: 0x0A) else {
            // Bytes of the long record: no line ends among them.
            consumed += pending.count
            pending.removeAll(keepingCapacity: false)
            return 0
        }
        skippingLongRecord = false
        return newline + 1
    }

    /// The input has ended: what is left is the last record (a line without its newline, or an
    /// incomplete value, which is an error row).
    /// - Returns: how many records were added.
    @discardableResult
    public mutating func finish() -> Int {
        let before = count
        var start = skipLongRecord()
        while let end = recordEnd(from: &start, final: true) {
            addRecord(start..<end.record)
            start = end.next
        }
        drop(start)
        return count - before
    }

    /// The records so far as an array document, sharing the builder's bytes and tape.
    /// - Complexity: O(1).
    public mutating func document() -> JSONDocument {
        let bytes = DocumentBytes(block: body, count: bodyCount)
        // The last document's bytes are this one's first bytes (a later `ChildList` copies its
        // children instead of comparing a gigabyte).
        let previous = lastDocument
        let document = JSONDocument(bytes: bytes, tape: TapeStorage(sharing: tape, count: tapeCount, rootNext: tapeCount, rootEnd: bodyCount),
                                    previous: previous, shared: (previous?.bytes.count ?? 0, 0))
        lastDocument = document
        return document
    }

    /// Room for `n` more bytes in the body.
    private mutating func reserveBody(_ n: Int) {
        guard bodyCount + n > body.capacity else { return }
        let bigger = ByteBlock(capacity: max(body.capacity * 2, bodyCount + n))
        bigger.base.update(from: body.base, count: bodyCount)
        body = bigger
    }

    /// Room for `n` more tape entries.
    private mutating func reserveTape(_ n: Int) {
        guard tapeCount + n > tape.memory.capacity else { return }
        let bigger = TapeMemory(capacity: max(tape.memory.capacity * 2, tapeCount + n))
        bigger.base.update(from: tape.memory.base, count: tapeCount)
        tape = TapeBlock(memory: bigger)
    }

    private mutating func appendBody(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserveBody(bytes.count)
        if let from = bytes.baseAddress { (body.base + bodyCount).update(from: from, count: bytes.count) }
        bodyCount += bytes.count
    }

    /// Records `count..<count + n` as lines that were not read (`null`: no child), for a reader
    /// that starts at line `n` of its input (`tail(of:children:)`).
    /// - Complexity: O(n), without parsing.
    public mutating func appendSkippedLines(_ n: Int) {
        guard n > 0, count == 0, consumed == 0 else { return }
        reserveBody(5 * n)
        reserveTape(n + 1024)
        let null: [UInt8] = [0x2C, 0x6E, 0x75, 0x6C, 0x6C]  // ,null
        for k in 0..<n {
            // The first without its comma.
            null.withUnsafeBufferPointer { appendBody(UnsafeBufferPointer(rebasing: $0[(k == 0 ? 1 : 0)...])) }
            tape.memory.base[tapeCount] = TapeEntry(start: bodyCount - 4, end: bodyCount, flags: 0)
            tapeCount += 1
        }
        count = n
        mark.line += n
        decided = true
    }

    /// The records as an array document, the builder's last (for a one-off read, such as
    /// `synctable list`).
    public consuming func finishedList() -> JSONDocument {
        document()
    }

    /// After `finish()`: the single value of a `.values` input that held exactly one value, valid
    /// (a JSON document piped in), as its own document; nil otherwise.
    public func finishedDocument() -> JSONDocument? {
        guard startedAsValues, valueRecords == 1, errors.isEmpty, let range = firstValue else { return nil }
        return try? JSONDocument(parsing: Array(UnsafeBufferPointer(start: body.base + range.lowerBound, count: range.count)))
    }

    // MARK: - Cutting the input into records

    /// Where the record starting at `pending[start...]` ends (`record`: its bytes' end; `next`:
    /// where the following one starts), or nil when it is not complete. May move `start` past
    /// input that is no record (the rest of the first line, when values turn into lines).
    private mutating func recordEnd(from start: inout Int, final: Bool) -> (record: Int, next: Int)? {
        if !decided && count == 1 { decideLines(from: &start) }
        switch mode {
        case .lines:
            let from = max(start, scanned)
            let found = pending.withUnsafeBufferPointer { p -> Int? in
                guard from < p.count, let hit = memchr(p.baseAddress! + from, 0x0A, p.count - from) else { return nil }
                return p.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            if let nl = found {
                scanned = nl + 1
                return (nl, nl + 1)
            }
            scanned = pending.count
            return final && start < pending.count ? (pending.count, pending.count) : nil
        case .values:
            if scanned < start { scanned = start; scan = ValueScan() }
            if scan.valueStart == nil {
                var i = scanned
                while i < pending.count && isSpace(pending[i]) { i += 1 }
                scanned = i
                guard i < pending.count else {
                    // Only whitespace left: nothing to add, even at the end.
                    return nil
                }
                scan.valueStart = i
            }
            if let end = scan.advance(pending, from: &scanned, final: final) {
                scan = ValueScan()
                scanned = end
                return (end, end)
            }
            return nil
        }
    }

    /// After the first value of a `.values` input: JSON Lines when the value was on one line
    /// and only spaces separate it from a newline.
    private mutating func decideLines(from start: inout Int) {
        var i = start
        while i < pending.count && (pending[i] == 0x20 || pending[i] == 0x09 || pending[i] == 0x0D) { i += 1 }
        guard i < pending.count else { return }  // not known yet
        decided = true
        if pending[i] == 0x0A && !firstSpansLines {
            mode = .lines
            start = i + 1
            scanned = start
            advanceMark(to: start)
            linesSinceMark = 0
        }
    }

    /// Forgets the first `n` pending bytes, keeping the mark's line and column right.
    private mutating func drop(_ n: Int) {
        guard n > 0 else { return }
        if mode == .lines && mark.index == 0 {
            // `pending` starts at a line, and every record since was one line.
            mark = (0, mark.line + linesSinceMark, 1)
        } else {
            advanceMark(to: n)
        }
        linesSinceMark = 0
        mark.index = 0
        pending.removeFirst(n)
        scanned -= n
        if let s = scan.valueStart { scan.valueStart = s - n }
        consumed += n
    }

    /// Counts lines and columns from the mark up to `index`.
    private mutating func advanceMark(to index: Int) {
        guard index > mark.index else { return }
        var (line, column) = (mark.line, mark.column)
        pending.withUnsafeBufferPointer { p in
            for i in mark.index..<index {
                if p[i] == 0x0A { line += 1; column = 1 } else if p[i] & 0xC0 != 0x80 { column += 1 }
            }
        }
        mark = (index, line, column)
    }

    // MARK: - Parsing one record

    /// Parses `pending[range]` (in values mode, from its leading whitespace) as the next record.
    private mutating func addRecord(_ range: Range<Int>) {
        // Tape offsets are 32-bit and indexes 31-bit: records past 4 GiB or 2^31 tape entries are
        // not read (and never a wrapped offset). A record takes at most an entry a byte, and two.
        guard !isFull, bodyCount + range.count + 256 < byteLimit, tapeCount + range.count + 256 < entryLimit else {
            isFull = true
            return
        }
        if range.count > maxRecordBytes {
            // A long record that arrived whole: the same error row as one cut off while arriving.
            let line = mode == .lines && mark.index == 0 ? mark.line + linesSinceMark : position(ofRecordAt: range.lowerBound)
            addErrorRow(line: line, column: 1, message: "the record is longer than \(maxRecordBytes) bytes; it was skipped", counted: false)
            if mode == .lines { linesSinceMark += 1 }
            valueRecords += 1
            count += 1
            return
        }
        var from = range.lowerBound
        while from < range.upperBound && isSpace(pending[from]) { from += 1 }
        if from == range.upperBound {
            // A blank line: counted, and `null` in the array, which is no child.
            appendLiteral(Array("null".utf8))
            if mode == .lines { linesSinceMark += 1 }
            count += 1
            return
        }
        // A second reference to the bytes (no copy), so that they can be read while `body` grows.
        let input = pending
        do {
            try input.withUnsafeBufferPointer { p throws(JSONParseError) in
                let record = UnsafeBufferPointer(rebasing: p[range])
                let relative = try JSONParser.parse(record, depthLimit: maximumJSONDepth - 1)
                let offset = bodyCount + (count > 0 ? 1 : 0)  // after the comma
                if count == 0 { firstSpansLines = p[from..<range.upperBound].contains(0x0A) }
                appendRecord(record, tape: relative)
                if valueRecords == 0 { firstValue = offset..<(offset + record.count) }
            }
        } catch {
            let (l, c) = position(of: error, recordStart: range.lowerBound)
            addErrorRow(line: l, column: c, message: error.message, counted: false)
        }
        if mode == .lines { linesSinceMark += 1 }
        valueRecords += 1
        count += 1
    }

    /// Appends an error row for the record at `line`, `column` (counted as a record unless the
    /// caller counts it).
    private mutating func addErrorRow(line l: Int, column c: Int, message: String, counted: Bool = true) {
        errors.append(JSONLinesError(index: count, line: l, column: c, message: message))
        appendLiteral(Self.errorRow(line: l, column: c, message: message))
        if counted {
            valueRecords += 1
            count += 1
        }
    }

    /// The error row of an invalid record: `{"$error":{"line":3,"column":7,"message":"…"}}`.
    public static func errorRow(line: Int, column: Int, message: String) -> [UInt8] {
        var row = Array(#"{"\#(errorMember)":{"line":\#(line),"column":\#(column),"message":"#.utf8)
        writeJSONString(message, to: &row)
        row.append(contentsOf: "}}".utf8)
        return row
    }

    /// The input's line of the record starting at `pending[start]`.
    private mutating func position(ofRecordAt start: Int) -> Int {
        advanceMark(to: start)
        return mark.line
    }

    /// The input's line and column of an error found in the record starting at `pending[start]`.
    private mutating func position(of error: JSONParseError, recordStart start: Int) -> (Int, Int) {
        // A line is one record: its line is known, and the parser's column is the line's.
        if mode == .lines && mark.index == 0 { return (mark.line + linesSinceMark, error.column) }
        // The parser counted lines and columns from the record's start.
        advanceMark(to: start)
        return error.line == 1 ? (mark.line, mark.column + error.column - 1) : (mark.line + error.line - 1, error.column)
    }

    /// Appends a record made here (`null`, an error row).
    private mutating func appendLiteral(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { p in
            // Made to be valid JSON: a failure is a bug here.
            appendRecord(p, tape: try! JSONParser.parse(p, depthLimit: maximumJSONDepth - 1))
        }
    }

    /// Appends a record's bytes and its tape (parsed from `bytes` alone), moved into place.
    private mutating func appendRecord(_ bytes: UnsafeBufferPointer<UInt8>, tape parsed: TapeStorage) {
        reserveBody(bytes.count + 1)
        if count > 0 {
            body.base[bodyCount] = UInt8(ascii: ",")
            bodyCount += 1
        }
        let offset = bodyCount
        appendBody(bytes)
        reserveTape(parsed.count)
        let base = tapeCount
        for k in 0..<parsed.count {
            var e = parsed[k]
            if e.isContainer { e.word += UInt32(base) << 1 }
            e.start += UInt32(offset)
            tape.memory.base[base + k] = e
        }
        tapeCount += parsed.count
    }
}

@inline(__always) private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

/// Calls `body` with a reader of `record` (one line of a log) parsed alone, as a builder parses
/// each record, but without keeping it: for a reader that needs each record once (a fold by a
/// key), no list of records is built. The reader must not escape the call.
/// - Throws: the parse error, its line and column counted from the record's first byte.
public func withParsedRecord<R>(_ record: UnsafeBufferPointer<UInt8>, _ body: (TapeReader) -> R) throws(JSONParseError) -> R {
    // Tape offsets are 32-bit.
    guard record.count < Int(UInt32.max) else {
        throw JSONParseError(message: "the record is larger than 4 GiB", offset: 0, line: 1, column: 1)
    }
    let tape = try JSONParser.parse(record, depthLimit: maximumJSONDepth - 1)
    return withExtendedLifetime(tape) { body(TapeReader(bytes: record, tape: tape)) }
}

/// Finding where one JSON value ends without parsing it: brackets counted outside strings.
private struct ValueScan {
    var valueStart: Int?
    var depth = 0
    var inString = false
    var escaped = false

    /// Scans `bytes` from `i` (the value starts at `valueStart`); returns the value's end, or nil
    /// when more input is needed (`i` then marks how far the scan got).
    mutating func advance(_ bytes: [UInt8], from i: inout Int, final: Bool) -> Int? {
        let start = valueStart!
        let first = bytes[start]
        if first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"") {
            // A scalar (or a stray character): up to whitespace or punctuation.
            var j = max(i, start + 1)
            while j < bytes.count && !isSpace(bytes[j]) && !isPunctuation(bytes[j]) { j += 1 }
            i = j
            return j < bytes.count || final ? j : nil
        }
        var j = max(i, start)
        while j < bytes.count {
            let b = bytes[j]
            j += 1
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { i = j; return j }
                }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                depth += 1
            } else if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { i = j; return j }
            }
        }
        i = j
        return final ? j : nil
    }

    private func isPunctuation(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "{") || b == UInt8(ascii: "}") || b == UInt8(ascii: "[") || b == UInt8(ascii: "]")
            || b == UInt8(ascii: ",") || b == UInt8(ascii: ":") || b == UInt8(ascii: "\"")
    }
}
