// `events`' output: a query's events, a store's problems, as JSON lines on standard output.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FileStore
import JSONTree
import LiveQuery

/// Formats events as JSON lines and writes them to standard output, one revision at a time.
public final class EventLineWriter: @unchecked Sendable {
    /// Standard output when the writer was made (a signal's stuck action reads none of it).
    private let fd = CommandIO.current.output

    public init() {}

    private var buffer = [UInt8]()
    /// Held while writing: a signal that ends the process waits for the last line to be whole.
    private let writing = DispatchSemaphore(value: 1)

    /// Appends one revision's events (or a new listener's first window).
    public func append(_ change: WindowChange) {
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

    public func appendError(_ problem: StoreProblem) {
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
    public func appendConnection(_ state: String, _ message: String) {
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
    public func appendError(_ error: JSONLinesError) {
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

    /// Writes what was appended, in one `write` where possible.
    /// - Returns: false when the reader is gone (EPIPE): nobody is reading any more.
    public func flush() -> Bool {
        writing.wait()
        defer { writing.signal() }
        guard writeAll(buffer, to: fd) else { return false }
        buffer.removeAll(keepingCapacity: true)
        return true
    }

    /// Stops output for good (any thread): waits for a write in progress, up to `seconds`.
    public func stopWriting(waitingUpTo seconds: Double) {
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

/// Prints the events of `query` at `location` in `store` as JSON lines (an error line for each
/// problem and each invalid record), flushed after each revision, until SIGINT or SIGTERM, the
/// input's end, or `exitAfterRevisions` revisions.
/// - Throws: `CommandError` when waiting fails.
public func printEvents(of store: any LiveStore, at location: Path, query filter: Query, exitAfterRevisions: Int?) throws {
    replayedJournal(store)?.publishesEveryRevision = true  // each revision's events are printed
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
    defer { stop.end() }
    var fds = [pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)]
    fds += store.pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    while true {
        // A reader that has gone away (`| head`) ends the stream quietly, like a signal.
        guard output.flush() else { return }
        if let n = exitAfterRevisions, revisions >= n { return }
        // Standard input ended, or a journal replayed whole: nothing more will come.
        if ended || replayedJournal(store)?.isReplayed == true { return }
        if poll(&fds, nfds_t(fds.count), -1) < 0 && errno != EINTR {
            throw CommandError("poll failed: \(String(cString: strerror(errno)))", exitCode: 1)
        }
        if fds[0].revents != 0 { return }
        store.processPendingChanges()
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
