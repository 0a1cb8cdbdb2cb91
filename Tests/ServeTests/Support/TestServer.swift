// A served scratch file: `synctable serve` in this process on a free port (or, for what needs a
// process of its own, in a child), and the helpers its tests share.
#if canImport(Glibc)
import Glibc
#endif
import Commands
import Dispatch
import FileStore
import JSONTree
@testable import Serve
import TestSupport
import Synchronization
import Testing

/// What a test talks to: a server on loopback, in this process or in a child.
protocol ServedForTest: AnyObject {
    var port: Int { get }
}

extension ServedForTest {
    func connect() throws -> HTTPConnection { try HTTPConnection(port: port) }

    /// One request on a new connection.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil) throws -> HTTPResult {
        try connect().request(method, target, headers: headers, body: body.map { Array($0.utf8) })
    }

    /// Opens a stream of `target`; its head and first event (nil when it ended at once).
    func openStream(_ target: String, headers: [(String, String)] = []) throws -> OpenStream {
        let connection = try connect()
        connection.send(HTTPConnection.requestBytes("GET", target, headers: headers + [("Accept", "text/event-stream")]))
        let head = try connection.readHead()
        return OpenStream(connection: connection, head: head, first: head.status == 200 ? try connection.readEvent() : nil)
    }
}

/// `synctable serve FILE --port 0 ARGUMENTS` in this process: the command's own parsing and
/// server (`SyncTable.server`), run on a queue of its own (so a test blocked on a socket, or a
/// full concurrency pool, does not hold it up) until `stop()`. What needs a process — signals,
/// the exit status, standard input — is `ServeProcess`'s.
final class TestServer: ServedForTest {
    let port: Int
    let file: String
    private let task: Task<Void, Never>
    private let ended = DispatchSemaphore(value: 0)
    private var stopped = false

    init(file: String, arguments: [String] = []) throws {
        self.file = file
        let server = try SyncTable.server([file, "--port", "0"] + arguments)
        let bound = Shared<Int?>(nil), failure = Shared<String?>(nil)
        let started = DispatchSemaphore(value: 0)
        let ended = self.ended
        task = Task(executorPreference: QueueExecutor()) {
            do {
                try await server.run { port in
                    bound.withLock { $0 = port }
                    started.signal()
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            started.signal()
            ended.signal()
        }
        _ = started.wait(timeout: .now() + 60)
        guard let port = bound.withLock({ $0 }) else {
            task.cancel()
            throw HTTPTestError(description: "the server did not start: \(failure.withLock { $0 } ?? "no port within 60 s")")
        }
        self.port = port
    }

    convenience init(file: String, options: ServeOptions) throws {
        try self.init(file: file, arguments: serveArguments(options))
    }

    deinit { stop() }

    /// Stops the server (its task cancelled: the streams end, the store stops) and waits for it;
    /// 0 once it has stopped, as the command's status after SIGTERM.
    @discardableResult
    func stop() -> Int32 {
        if !stopped {
            stopped = true
            task.cancel()
            _ = ended.wait(timeout: .now() + 60)
        }
        return 0
    }
}

/// The `synctable serve` flags for `options`' rules and tokens.
func serveArguments(_ options: ServeOptions) -> [String] {
    var arguments = [String]()
    if let rules = options.rulesFile { arguments += ["--rules", rules] }
    if options.acceptUnverifiedTokens { arguments.append("--accept-unverified-tokens") }
    return arguments
}

/// A value shared between tasks and threads.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// Waits until `condition` holds, polling; fails the test after `seconds`.
func eventually(_ what: String, seconds: Double = 20, sourceLocation: SourceLocation = #_sourceLocation,
                _ condition: () throws -> Bool) rethrows {
    let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
    while monotonicNanoseconds() < deadline {
        if try condition() { return }
        usleep(2000)
    }
    Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
}

/// JSON text parsed (a test's expected value).
func json(_ text: String) -> JSON {
    try! JSONDocument(parsing: text).root.json
}
