// A served scratch file for async tests, and the blocking test client called off the
// concurrency pool.
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
/// concurrency pool would hold a thread other tests need.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// `synctable serve` with `options`' rules and tokens, as a child process on a free port, for
/// async tests. (Run in this process, the server would share the concurrency pool that the
/// whole suite's blocking tests fill, and starve.)
final class AsyncTestServer: Sendable {
    let port: Int
    let file: String
    private let server: ServerBox

    init(file: String, options: ServeOptions = ServeOptions()) async throws {
        var arguments = [String]()
        if let rules = options.rulesFile { arguments += ["--rules", rules] }
        if options.acceptUnverifiedTokens { arguments.append("--accept-unverified-tokens") }
        let spawnArguments = arguments
        server = try await offPool { ServerBox(try TestServer(file: file, arguments: spawnArguments)) }
        port = server.value.port
        self.file = file
    }

    /// Stops the server and waits for it to end.
    func stop() async {
        let server = self.server
        _ = try? await offPool { server.value.stop() }
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

/// The server of an `AsyncTestServer`, used by one task at a time.
final class ServerBox: @unchecked Sendable {
    let value: TestServer
    init(_ value: TestServer) { self.value = value }
}

/// A stream opened by `AsyncTestServer.openStream`.
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

    /// The next event other than a keep-alive (which a slow run of the suite may see at any
    /// point); nil when the stream ended.
    func next() async throws -> ServerEvent? {
        try await offPool {
            var event = try self.connection.readEvent()
            while event?.name == "keep-alive" { event = try self.connection.readEvent() }
            return event
        }
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
