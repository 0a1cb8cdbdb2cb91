// What the serve tests talk to (a server in this process or a child), `synctable serve` as a
// child for what needs a process, and the helpers the tests share.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Foundation
import JSONTree
import ServeTestSupport
import TestSupport
import Synchronization
import Testing

/// A server a test talks to on loopback: in this process (`InProcessServer`, the usual one) or
/// a child (`TestServer`, for what needs a process: signals, exit statuses, standard input; and
/// the official SDKs' tests, as an app's suite runs the emulator).
protocol ServedForTest: AnyObject {
    var port: Int { get }
}

extension ServedForTest {
    func connect(receiveBuffer: Int? = nil) throws -> HTTPConnection {
        try HTTPConnection(port: port, receiveBuffer: receiveBuffer)
    }

    /// One request on a new connection.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil) throws -> HTTPResult {
        try connect().request(method, target, headers: headers, body: body.map { Array($0.utf8) })
    }

    /// Opens a stream of `target`; its head and first event (nil when it ended at once).
    func openStream(_ target: String, headers: [(String, String)] = []) throws -> OpenStream {
        let connection = try connect()
        connection.send(HTTPConnection.requestBytes("GET", target, headers: headers + [("Accept", "text/event-stream")]))
        let head = try connection.readHead()
        return OpenStream(connection: connection, head: head, first: head.status == 200 ? try connection.readDataEvent() : nil)
    }
}

/// `synctable serve FILE --port 0 …` as a child process, on the port it printed; killed when
/// the value goes away (`stop()` ends it as SIGTERM would and returns its exit status).
final class TestServer: ServedForTest {
    let port: Int
    let file: String
    let pid: pid_t
    private let output: Int32
    private var exitStatus: Int32?

    /// - Parameter standardInput: the descriptor the server reads as `-` (the test's own by default).
    init(file: String, arguments: [String] = [], standardInput: Int32? = nil) throws {
        let binary = try builtProduct("synctable")
        let child = try spawnProgram([binary, "serve", file, "--port", "0"] + arguments, pipes: [1],
                                     descriptors: standardInput.map { [0: $0] } ?? [:])
        self.pid = child.pid
        output = child.pipes[1]!
        self.file = file
        // "listening on http://127.0.0.1:PORT", within a minute (under the whole suite a start has
        // taken over 30 s).
        var line = [UInt8]()
        var byte: UInt8 = 0
        let deadline = monotonicNanoseconds() + 60_000_000_000
        while monotonicNanoseconds() < deadline {
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 100) > 0 else { continue }
            guard read(output, &byte, 1) == 1 else { break }
            if byte == 0x0A { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on "), let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            // How it ended, or, still running, each thread's state and where it waits.
            let pid = child.pid
            let how: String
            if let status = waitForExit(pid, seconds: 0) {
                how = "it exited with status \(status)"
            } else {
                let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
                how = "its threads: " + threads.sorted().map { task in
                    let state = readFileText("/proc/\(pid)/task/\(task)/stat")?.split(separator: ")").last?.split(separator: " ").first ?? "?"
                    return "\(state) \(readFileText("/proc/\(pid)/task/\(task)/wchan") ?? "?")"
                }.joined(separator: ", ")
                kill(pid, SIGKILL)
                waitForExit(pid)
            }
            close(output)
            throw HTTPTestError(description: "the server did not start: '\(text)'; \(how)")
        }
        self.port = port
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            waitForExit(pid)
        }
        close(output)
    }

    /// Sends `signal`; the exit status if the server ended within `seconds` (else it is killed).
    func stop(signal: Int32, within seconds: Double) -> Int32? {
        kill(pid, signal)
        exitStatus = waitForExit(pid, seconds: seconds)
        return exitStatus
    }

    /// Stops the server with SIGTERM; its exit status (137 when it did not end within 30 s and
    /// was killed).
    @discardableResult
    func stop() -> Int32 {
        if let exitStatus { return exitStatus }
        return stop(signal: SIGTERM, within: 30) ?? {
            kill(pid, SIGKILL)
            exitStatus = waitForExit(pid)
            return exitStatus!
        }()
    }
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

extension InProcessServer: ServedForTest {}
