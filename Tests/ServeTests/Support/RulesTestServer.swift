// For the rules tests: a served scratch file with `DatabaseServer` running in this process (no binary to start), and
// the blocking test client called off the concurrency pool the server runs on.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Foundation
import JSONTree
@testable import Serve
import Testing
import TestSupport

/// Runs `body` on a thread of its own: the test client blocks in `poll`, which on the
/// concurrency pool would hold a thread the in-process server needs.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// `DatabaseServer` on a free port of 127.0.0.1, until `stop()`.
final class RulesTestServer: Sendable {
    let port: Int
    let file: String
    private let task: Task<Void, Never>

    init(file: String, options: ServeOptions = ServeOptions()) async throws {
        var options = options
        options.port = 0
        let server = try DatabaseServer(file: file, options: options)
        let started = Shared<Result<Int, ServeError>?>(nil)
        task = Task {
            do {
                try await server.run { port in started.withLock { $0 = .success(port) } }
            } catch {
                started.withLock { $0 = .failure(ServeError("\(error)")) }
            }
        }
        self.file = file
        let deadline = monotonicNanoseconds() + 30_000_000_000
        while started.withLock({ $0 }) == nil && monotonicNanoseconds() < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        guard let result = started.withLock({ $0 }) else { throw HTTPTestError(description: "the server did not start") }
        port = try result.get()
    }

    /// Stops the server and waits for it to end.
    func stop() async {
        task.cancel()
        await task.value
    }

    /// One request on a new connection.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil) async throws -> HTTPResult {
        let port = self.port
        return try await offPool { try HTTPConnection(port: port).request(method, target, headers: headers, body: body.map { Array($0.utf8) }) }
    }

    /// Opens a stream of `target`; its head and first event (nil when it ended at once).
    func openStream(_ target: String, headers: [(String, String)] = []) async throws -> OpenStream {
        let port = self.port
        return try await offPool {
            let connection = try HTTPConnection(port: port)
            connection.send(HTTPConnection.requestBytes("GET", target, headers: headers + [("Accept", "text/event-stream")]))
            let head = try connection.readHead()
            return OpenStream(connection: connection, head: head, first: head.status == 200 ? try connection.readEvent() : nil)
        }
    }
}

/// A stream opened by `RulesTestServer.openStream`.
final class OpenStream: @unchecked Sendable {
    // Used by one test task at a time, through `offPool`.
    let connection: HTTPConnection
    let head: HTTPResult
    let first: ServerEvent?

    init(connection: HTTPConnection, head: HTTPResult, first: ServerEvent?) {
        self.connection = connection
        self.head = head
        self.first = first
    }

    /// The next event; nil when the stream ended.
    func next() async throws -> ServerEvent? {
        try await offPool { try self.connection.readEvent() }
    }
}

/// An unsigned Firebase ID token with `claims` (accepted only with `--accept-unverified-tokens`).
func idToken(_ claims: JSON) -> String {
    func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out = [UInt8]()
        var i = 0
        while i < bytes.count {
            let chunk = bytes[i..<min(i + 3, bytes.count)]
            var n = 0
            for (j, b) in chunk.enumerated() { n |= Int(b) << (16 - 8 * j) }
            for j in 0...chunk.count { out.append(alphabet[(n >> (18 - 6 * j)) & 63]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
    return base64URL(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + base64URL(claims.serialized(.compact)) + "."
}

/// The bearer header of a user `uid`'s unsigned ID token.
func bearer(_ uid: String, _ claims: [(String, JSON)] = []) -> [(String, String)] {
    [("Authorization", "Bearer " + idToken(.object(JSONObject([("sub", .string(uid))] + claims))))]
}
