// The records of a JSON Lines file or a stream of values, read as a query needs them.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery

/// For a query of the newest records of a JSON Lines file (`--limit-to-last K` in line order at
/// the root, no range, no filter): only the file's end is parsed (`LinesTail`); nil when the query needs
/// every record, or the file cannot be read this way (the caller then reads it whole and reports
/// any problem).
func newestRecords(_ file: String, path: Path, query: Query) -> JSONDocument? {
    guard let newest = onlyNewestRecords(path, query), let tail = LinesTail(path: file, children: newest.records) else { return nil }
    // Priority order is line order unless a record has a `.priority` member.
    return newest.byPriority && tail.mayHavePriorities ? nil : tail.document
}

/// The records of a JSON Lines file as an array, read a piece at a time into the records, so
/// that the file is not held twice (as read, and as records); nil when it cannot be opened and
/// read as a regular file (the caller then reads it the usual way and reports why). A log
/// appended to meanwhile is read up to where the read ends, as `tail` would.
func streamedRecords(_ file: String) -> JSONDocument? {
    var builder = JSONLinesBuilder(mode: .lines)
    var first = true
    let read = readPieces(file, size: 1 << 20) { piece, fileSize in
        if first { builder.reserveCapacity(forInput: fileSize) }
        first = false
        builder.append(piece)
    }
    guard read else { return nil }
    builder.finish()
    return builder.finishedList()
}

/// Calls `body` with the bytes of the regular file `file`, a piece of at most `size` bytes at a
/// time (and the file's size when opened); false when it cannot be opened and read as a regular file.
func readPieces(_ file: String, size: Int, _ body: (_ piece: UnsafeBufferPointer<UInt8>, _ fileSize: Int) -> Void) -> Bool {
    let fd = open(file, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
    var piece = [UInt8](repeating: 0, count: size)
    while true {
        let n = piece.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        if n == 0 { return true }
        piece.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<n]), Int(st.st_size)) }
    }
}

/// The records of JSON Lines (or of a stream of values) as an array; invalid ones are error rows.
func records(_ bytes: DocumentBytes, mode: JSONLinesBuilder.Mode) -> JSONDocument {
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
func streamOfValues(_ bytes: DocumentBytes) -> JSONDocument? {
    var builder = JSONLinesBuilder(mode: .values)
    append(bytes, to: &builder)
    builder.finish()
    return builder.count > 1 ? builder.document() : nil
}

/// For a query of the newest records of a log (`--limit-to-last K` in line order at the root, no
/// range, no filter), which no later record can make older ones matter to: the store reads the newest
/// records only and follows the log from there (`NewestFirst.onlyNewest`). nil for any other query.
public func onlyNewestRecords(_ location: Path, _ query: Query) -> FileStore.NewestFirst? {
    guard location.isRoot, case .last(let k)? = query.limit, query.start == nil, query.end == nil,
          query.filters.isEmpty else { return nil }
    let byKey = query.explicitOrdering == .key
    guard byKey || query.explicitOrdering == nil || query.explicitOrdering == .priority else { return nil }
    return FileStore.NewestFirst(records: k, onlyNewest: true, byPriority: !byKey)
}

/// What `list` reads from `file` (`-`: standard input) as `format`: of a log, only its newest
/// records when the query needs no more, else every record a piece at a time; of a file, one
/// consistent snapshot (re-read if a writer changed it meanwhile); standard input that is not
/// one document, a stream of values when `valuesAllowed`.
/// - Throws: `CommandError` for input that cannot be read, or is not valid JSON (at its line
///   and column, exit status 1).
public func readDocument(_ file: String, format: FileStore.Format, path: Path, query: Query, maxSize: Int,
                         valuesAllowed: Bool) throws(CommandError) -> JSONDocument {
    if file != "-", format == .jsonLines, let document = newestRecords(file, path: path, query: query) ?? streamedRecords(file) {
        return document
    }
    let bytes: DocumentBytes
    do {
        bytes = file == "-" ? DocumentBytes(try readInput(file, maxBytes: maxSize)) : try AtomicFile.read(file).bytes
    } catch {
        throw CommandError((error as? WriteError)?.message ?? "\(error)", at: file)
    }
    if format == .jsonLines { return records(bytes, mode: .lines) }
    do {
        return try JSONDocument(parsing: bytes)
    } catch {
        // Standard input may be a stream of values (JSON Lines, or any whitespace between).
        if file == "-", valuesAllowed, let stream = streamOfValues(bytes) { return stream }
        throw CommandError(error.message, exitCode: 1, at: "\(file == "-" ? "<stdin>" : file):\(error.line):\(error.column)")
    }
}
