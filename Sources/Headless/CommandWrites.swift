// The write commands' shared steps: a JSON argument read, and a write made and reported.
import FileStore
import JSONTree
import StoreInterface

/// The JSON value of an argument, or of standard input for "-".
public func parseJSONArgument(_ text: String) throws -> JSON {
    let bytes: [UInt8]
    if text == "-" {
        do { bytes = try readInput("-") } catch { throw CommandError("standard input: \(error)") }
    } else {
        bytes = Array(text.utf8)
    }
    do {
        return try JSONDocument(parsing: bytes).root.json
    } catch {
        var message = "the value is not valid JSON (\(error))"
        // A bare word (Bob) is the usual mistake: JSON strings need quotes.
        if let first = bytes.first, (first | 0x20) >= UInt8(ascii: "a") && (first | 0x20) <= UInt8(ascii: "z") {
            message += "; a string needs quotes: '\"\(text)\"'"
        }
        throw CommandError(message)
    }
}

/// Writes, reporting failures on standard error in `validate`'s style. A JSON Lines file is
/// only appended to (`push`): other writes are refused, and the file is untouched.
public func performWrite(_ file: String, _ writes: [JSONWrite], format: FileStore.Format) throws {
    try report(file) { () throws(WriteError) in
        if format == .jsonLines {
            throw FileStore.appendOnlyError(file)
        }
        // The new content is not read back: no second parse of the file.
        try FileStore.writeUnread(writes, toFile: file, options: lastWrite)
    }
}

/// A command's write is its last act: the file it replaces is freed after it exits, so that
/// it does not wait for the file system to free the old blocks (`freesReplacedFileAfterExit`).
public var lastWrite: AtomicFile.Options {
    var options = AtomicFile.Options()
    options.freesReplacedFileAfterExit = true
    return options
}

/// Runs a write, turning its error into a message and an exit status (1, or 2 for a file that
/// cannot be read).
public func report(_ file: String, _ body: () throws(WriteError) -> Void) throws {
    do {
        try body()
    } catch {
        switch error {
        case .invalidJSON(let e):
            throw CommandError(e.message, exitCode: 1, at: "\(file):\(e.line):\(e.column)")
        case .missing, .unreadable, .notAFile:
            throw CommandError(error.message, at: file)
        default:
            throw CommandError(error.message, exitCode: 1, at: file)
        }
    }
}
