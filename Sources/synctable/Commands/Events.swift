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

    @Argument(help: "The JSON file to watch ('-' for standard input), or a database URL (http(s)://…/location).")
    var file: String

    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions

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
            throw CommandError("--path: \(error)")
        }
        do { filter = try query.makeQuery() } catch {
            throw CommandError("\(error)")
        }
        var options = FileStore.Options(format: file == "-" ? .jsonLines : input.format(of: file))
        if options.format == .jsonLines, file != "-", let newest = onlyNewestRecords(location, filter) { options.newestFirst = newest }
        let store = try openStore(file, remote: remote, file: options, firstWindow: (location, filter))
        let reference = store.reference(location).withQuery(filter)
        let output = EventLineWriter()
        reference.observeChanges { change in output.append(change) }
        var lastProblem: StoreProblem?
        var lastConnection: ConnectionStatus?
        var revisions = 0
        var ended = false
        store.observeStatus { status in
            if let problem = status.problem, problem != lastProblem {
                output.appendError(problem)
                // A state of the file as much as a valid one: `--exit-after-revisions` must end.
                revisions += 1
            }
            lastProblem = status.problem
            // A database's connection lost, refused or back: the stream goes on.
            if let connection = status.connection, connection != lastConnection, let state = connection.problemName {
                output.appendConnection(state, connection.description)
            }
            lastConnection = status.connection
            for error in status.lines?.recentErrors ?? [] { output.appendError(error) }
            ended = status.lines?.inputEnded ?? false
        }
        store.observeRevisions { _ in revisions += 1 }

        let stop = StopSignal(output: output)
        var fds = [pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)]
        fds += store.pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            output.flush()
            if let n = exitAfterRevisions, revisions >= n { return }
            if ended { return }
            if poll(&fds, nfds_t(fds.count), -1) < 0 && errno != EINTR {
                throw CommandError("poll failed: \(String(cString: strerror(errno)))", exitCode: 1)
            }
            if fds[0].revents != 0 { return }
            store.processPendingChanges()
        }
    }
}

/// Becomes readable on SIGINT or SIGTERM, so the loop can end cleanly (exit 0).
///
/// The loop may be busy (a large window being printed) or blocked (writing to a reader that
/// does not read): if it has not ended a quarter of a second after the signal, the process
/// ends from here, once a write in progress has ended (`output` waits up to another quarter
/// of a second for it, so a reader that reads gets whole lines).
final class StopSignal {
    let fd: Int32
    private let sources: [DispatchSourceSignal]

    /// - Parameter output: the writer whose line in progress the process waits for, if any.
    init(output: EventLineWriter? = nil) {
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
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.25) {
                    output?.stopWriting(waitingUpTo: 0.25)
                    _exit(0)
                }
            }
            source.resume()
            return source
        }
    }
}

/// Formats events as JSON lines and writes them to standard output, one revision at a time.
final class EventLineWriter: @unchecked Sendable {
    private var buffer = [UInt8]()
    /// Held while writing: a signal that ends the process waits for the last line to be whole.
    private let writing = DispatchSemaphore(value: 1)

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

    /// A database's connection lost or refused: `{"event":"error","connection":STATE,"message":M,…}`.
    func appendConnection(_ state: String, _ message: String) {
        field("event", first: true)
        string(Array("error".utf8))
        field("connection")
        string(Array(state.utf8))
        field("message")
        string(Array(message.utf8))
        raw(#","line":null,"column":null}"#)
        raw("\n")
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
        writing.wait()
        defer { writing.signal() }
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

    /// Stops output for good (any thread): waits for a write in progress, up to `seconds`.
    func stopWriting(waitingUpTo seconds: Double) {
        _ = writing.wait(timeout: .now() + seconds)
    }

    private func raw(_ text: String) { buffer.append(contentsOf: text.utf8) }

    private func field(_ name: String, first: Bool = false) {
        raw(first ? "{\"\(name)\":" : ",\"\(name)\":")
    }

    /// A JSON string from decoded UTF-8 bytes, written by the tree's serializer with what a
    /// terminal would act on (`isInvisibleControl`) escaped.
    private func string(_ bytes: [UInt8]) {
        writeJSONString(String(decoding: bytes, as: UTF8.self), to: &buffer, escaping: .invisibles)
    }

    /// A value on one line, by the tree's serializer: key order and number spelling stay the
    /// file's own, and what a terminal would act on is escaped.
    private func compactValue(_ node: JSONNode) {
        node.json.write(to: &buffer, style: .compact, depth: 0, escaping: .invisibles)
    }
}

extension ConnectionStatus {
    /// The state's name in an error line; nil while connecting or online.
    fileprivate var problemName: String? {
        switch self {
        case .connecting, .online: nil
        case .reconnecting: "reconnecting"
        case .offline: "offline"
        case .unauthorized: "unauthorized"
        }
    }
}

/// For a query of the newest records of a log (`--limit-to-last K` in line order at the root, no
/// range, no filter), which no later record can make older ones matter to: the store reads the newest
/// records only and follows the log from there (`NewestFirst.onlyNewest`). nil for any other query.
private func onlyNewestRecords(_ location: Path, _ query: Query) -> FileStore.NewestFirst? {
    guard location.isRoot, case .last(let k)? = query.limit, query.start == nil, query.end == nil,
          query.filters.isEmpty else { return nil }
    let byKey = query.explicitOrdering == .key
    guard byKey || query.explicitOrdering == nil || query.explicitOrdering == .priority else { return nil }
    return FileStore.NewestFirst(records: k, onlyNewest: true, byPriority: !byKey)
}
