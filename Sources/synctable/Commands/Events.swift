// `synctable events`: a query's events as JSON lines while another process edits the file.
import ArgumentParser
import Dispatch
import FileStore
import JSONTree
import LiveQuery
#if canImport(Glibc)
import Glibc
#endif

/// `synctable events FILE [--path P] [query flags]`: one JSON line per event, flushed after each revision.
struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a query's events as JSON lines while the file changes.",
        discussion: """
            First the current window (child_added for each row, then value), then for each revision \
            that changes the window its events in the Realtime Database's order:
              {"event":"child_removed","key":K,"index":I,"value":V}
              {"event":"child_added","key":K,"prevKey":P,"index":I,"value":V}
              {"event":"child_moved","key":K,"prevKey":P,"index":I,"fromIndex":F,"value":V}
              {"event":"child_changed","key":K,"prevKey":P,"index":I,"value":V}
              {"event":"value","count":N}
            Every index refers to the list as replayed so far (remove at I; insert at I; move from F \
            to I; replace at I), so the events can be applied by index alone. Values are the file's own JSON, compacted to one line. When the file is invalid, missing or \
            unreadable: {"event":"error","message":M,"line":L,"column":C} (line and column null when \
            not a JSON error), and the stream goes on. Output is flushed after each revision. Runs \
            until SIGINT or SIGTERM (exit 0), or --exit-after-revisions.

            A JSON Lines file (.jsonl, .ndjson, --input jsonl) is a list whose child N is line N, \
            followed as lines are appended; a line that is not valid JSON is a row \
            {"$error":{"line":L,"column":C,"message":M}} and also prints \
            {"event":"error","key":K,"message":M,"line":L,"column":C}. With '-', standard input is \
            read: one JSON document, or a stream of values (JSON Lines, or any whitespace between) \
            followed as they arrive; the command exits 0 when the input ends.
            """
    )

    @Argument(help: "The JSON file to watch ('-' for standard input).")
    var file: String

    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions

    @Option(help: ArgumentHelp(
        "Exit after N revisions of the file (the first read is revision 1). A read that finds the file invalid, "
            + "missing or unreadable (an error line) counts as a revision too.", valueName: "N"))
    var exitAfterRevisions: Int?

    func validate() throws {
        if let n = exitAfterRevisions, n < 1 {
            throw ValidationError("--exit-after-revisions must be a positive integer, not \(n)")
        }
    }

    func run() throws {
        // A bad path or query: exit 2 with the flag named, as `synctable list`.
        let location: Path, filter: Query
        do { location = try Path(query.path) } catch {
            printError("synctable events: --path: \(error)")
            throw ExitCode(2)
        }
        do { filter = try query.makeQuery() } catch {
            printError("synctable events: \(error)")
            throw ExitCode(2)
        }
        let store: FileStore
        do {
            store = file == "-"
                ? try FileStore(stream: 0, options: FileStore.Options(format: .jsonLines))
                : try FileStore(path: file, options: FileStore.Options(format: input.format(of: file)))
        } catch {
            printError("synctable events: \(error)")
            throw ExitCode(2)
        }
        let reference = store.reference(location).withQuery(filter)
        let output = EventLineWriter()
        reference.observeChanges { change in output.append(change) }
        var lastProblem: StoreProblem?
        var revisions = 0
        var ended = false
        store.observeStatus { status in
            if let problem = status.problem, problem != lastProblem {
                output.appendError(problem)
                // A state of the file as much as a valid one: `--exit-after-revisions` must end.
                revisions += 1
            }
            lastProblem = status.problem
            for error in status.lines?.recentErrors ?? [] { output.appendError(error) }
            ended = status.lines?.inputEnded ?? false
        }
        store.observeRevisions { _ in revisions += 1 }

        let stop = StopSignal()
        var fds = [pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)]
        fds += store.pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            output.flush()
            if let n = exitAfterRevisions, revisions >= n { return }
            if ended { return }
            if poll(&fds, nfds_t(fds.count), -1) < 0 && errno != EINTR {
                printError("synctable events: poll failed: \(String(cString: strerror(errno)))")
                throw ExitCode(1)
            }
            if fds[0].revents != 0 { return }
            store.processPendingChanges()
        }
    }
}

/// Becomes readable on SIGINT or SIGTERM, so the loop can end cleanly (exit 0).
private final class StopSignal {
    let fd: Int32
    private let sources: [DispatchSourceSignal]

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        fd = fds[0]
        let writeEnd = fds[1]
        // A reader that has gone away (`| head`) ends the stream quietly, like a signal.
        signal(SIGPIPE, SIG_IGN)
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var byte: UInt8 = 1
                _ = write(writeEnd, &byte, 1)
            }
            source.resume()
            return source
        }
    }
}

/// Formats events as JSON lines and writes them to standard output, one revision at a time.
final class EventLineWriter {
    private var buffer = [UInt8]()

    /// Appends one revision's events (or a new listener's first window).
    func append(_ change: WindowChange) {
        for (event, at) in zip(change.childEvents, change.replayIndexes) {
            field("event", first: true)
            string(Array(event.kind.rawValue.utf8))
            field("key")
            event.withKeyBytes { string(Array($0)) }
            if event.kind != .childRemoved {
                field("prevKey")
                if let prev = event.prevKey { string(Array(prev.utf8)) } else { raw("null") }
            }
            field("index")
            raw(String(at.index))
            if event.kind == .childMoved {
                field("fromIndex")
                raw(at.fromIndex.map(String.init) ?? "null")
            }
            field("value")
            compactValue(event.value)
            raw("}\n")
        }
        raw(#"{"event":"value","count":\#(change.new.count)}"# + "\n")
    }

    func appendError(_ problem: StoreProblem) {
        field("event", first: true)
        string(Array("error".utf8))
        field("message")
        let message: String
        if case .invalidJSON(let error) = problem { message = error.message } else { message = problem.description }
        string(Array(message.utf8))
        field("line")
        raw(problem.position.map { String($0.line) } ?? "null")
        field("column")
        raw(problem.position.map { String($0.column) } ?? "null")
        raw("}\n")
    }

    /// An invalid record of a JSON Lines file or stream.
    func appendError(_ error: JSONLinesError) {
        field("event", first: true)
        string(Array("error".utf8))
        field("key")
        string(Array(String(error.index).utf8))
        field("message")
        string(Array(error.message.utf8))
        field("line")
        raw(String(error.line))
        field("column")
        raw(String(error.column))
        raw("}\n")
    }

    /// Writes what was appended, in one `write` where possible; exits quietly when the reader is gone.
    func flush() {
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { write(1, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                exit(0)  // EPIPE: nobody is reading any more
            }
            done += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private func raw(_ text: String) { buffer.append(contentsOf: text.utf8) }

    private func field(_ name: String, first: Bool = false) {
        raw(first ? "{\"\(name)\":" : ",\"\(name)\":")
    }

    /// A JSON string from decoded UTF-8 bytes.
    private func string(_ bytes: [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(b)
            case 0..<0x20, 0x7F: unicodeEscape(UInt32(b))
            default:
                i += copyScalar(bytes, i)
                continue
            }
            i += 1
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// A value's bytes as written in the file, without the whitespace between tokens, so that
    /// key order and number spelling stay the file's own and the value fits on one line.
    private func compactValue(_ node: JSONNode) {
        let bytes = node.rawBytes
        var i = bytes.startIndex
        var inString = false
        while i < bytes.endIndex {
            let b = bytes[i]
            if inString {
                if b == UInt8(ascii: "\\") {
                    buffer.append(b)
                    buffer.append(bytes[i + 1])
                    i += 2
                    continue
                }
                if b == UInt8(ascii: "\"") { inString = false }
                if b >= 0x7F {
                    i += copyScalar(bytes, i)
                    continue
                }
                buffer.append(b)
            } else if b == UInt8(ascii: "\"") {
                inString = true
                buffer.append(b)
            } else if b != 0x20 && b != 0x0A && b != 0x0D && b != 0x09 {
                buffer.append(b)
            }
            i += 1
        }
    }

    /// Copies the UTF-8 scalar at `i` (valid: the file was parsed strictly), escaping what
    /// terminals and line-based readers would act on instead of show (`isInvisibleControl`:
    /// DEL, C1, bidirectional controls, U+2028/U+2029).
    /// - Returns: its length in bytes.
    private func copyScalar<C: RandomAccessCollection>(_ bytes: C, _ i: C.Index) -> Int where C.Element == UInt8, C.Index == Int {
        let b0 = bytes[i]
        let length = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4
        let end = min(i + length, bytes.endIndex)
        var scalar = UInt32(b0) & (length == 1 ? 0x7F : length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for k in (i + 1)..<max(i + 1, end) { scalar = scalar << 6 | UInt32(bytes[k] & 0x3F) }
        if isInvisibleControl(scalar) {
            unicodeEscape(scalar)
        } else {
            buffer.append(contentsOf: bytes[i..<end])
        }
        return length
    }

    private func unicodeEscape(_ u: UInt32) {
        let hex = Array("0123456789abcdef".utf8)
        buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
        for shift in [12, 8, 4, 0] { buffer.append(hex[Int((u >> UInt32(shift)) & 0xF)]) }
    }
}
