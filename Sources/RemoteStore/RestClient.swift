// Reads and writes of a database over its REST API: GET, PUT, PATCH, POST, DELETE, with ETags.
import AsyncHTTPClient
import JSONTree
import NIOCore
import NIOHTTP1

/// The REST API of one database (the server of a `DatabaseURL`), with one credential.
/// Paths are database paths (not relative to the URL's location).
public final class RestClient: Sendable {
    /// The database this client talks to.
    public let url: DatabaseURL
    private let client: RemoteClient
    private let credential: Credential?
    private let timeout: Duration

    /// The tries of a `transaction` before it gives up.
    public static let transactionTries = 25
    /// The largest response read (a `get` of a larger location fails).
    public static let maximumResponseBytes = 1 << 30

    /// - Parameter timeout: how long one request may take, answer included.
    public init(client: RemoteClient, url: DatabaseURL, credential: Credential?, timeout: Duration = .seconds(60)) {
        self.client = client
        self.url = url
        self.credential = credential
        self.timeout = timeout
    }

    /// What a conditional `set` did.
    public enum SetOutcome: Sendable, Equatable {
        /// The value was written.
        case written
        /// `ifMatch` was not the location's ETag (412): nothing was written; the location's
        /// current ETag and value, to try again with.
        case preconditionFailed(etag: String, current: JSON)
    }

    /// The value at `path` (null when there is none) and its ETag (none for a query).
    /// - Parameter parameters: query parameters as given (`orderBy`, `limitToFirst`, `shallow`, …).
    public func get(_ path: Path, parameters: [(name: String, value: String)] = []) async throws(RemoteError) -> (value: JSON, etag: String?) {
        // The database gives no ETag for a query or a shallow read (and refuses to be asked).
        let response = try await send(.GET, path, parameters: parameters, headers: parameters.isEmpty ? [("X-Firebase-ETag", "true")] : [])
        return (try response.json(), response.headers.first(name: "ETag"))
    }

    /// Sets the value at `path` (null removes it); with `ifMatch`, only if the location's ETag is still that.
    public func set(_ path: Path, _ value: JSON, ifMatch: String? = nil) async throws(RemoteError) -> SetOutcome {
        var headers = [(String, String)]()
        if let ifMatch { headers += [("if-match", ifMatch), ("X-Firebase-ETag", "true")] }
        let response = try await send(.PUT, path, body: value, headers: headers, accepting: ifMatch == nil ? [] : [412])
        guard response.status == 412 else { return .written }
        guard let etag = response.headers.first(name: "ETag") else {
            throw RemoteError(.malformedResponse, "the server answered 412 without an ETag")
        }
        return .preconditionFailed(etag: etag, current: try response.json())
    }

    /// A multi-path update below `path`: each member's key is a relative path (`"a/b"`) whose
    /// value becomes the member's value; other children stay.
    public func update(_ path: Path, _ values: JSONObject) async throws(RemoteError) {
        _ = try await send(.PATCH, path, body: .object(values))
    }

    /// Adds `value` as a new child of `path` under a push id (the server's); that id.
    public func push(_ path: Path, _ value: JSON) async throws(RemoteError) -> String {
        let response = try await send(.POST, path, body: value)
        guard let name = try response.json()["name"]?.stringValue else {
            throw RemoteError(.malformedResponse, "the server's answer to a push has no \"name\"")
        }
        return name
    }

    /// Removes the value at `path`.
    public func remove(_ path: Path) async throws(RemoteError) {
        _ = try await send(.DELETE, path)
    }

    /// Replaces the value at `path` by `change(current value)`, atomically: reads it with its
    /// ETag, writes with `if-match`, and on 412 calls `change` again on the value the server
    /// returned (after a short random wait), up to `transactionTries` times. The value written.
    /// - Throws: what `change` throws (nothing is written then), a `RemoteError`, or
    ///   `.transactionRetriesExhausted` when every try met another writer.
    public func transaction(_ path: Path, _ change: (JSON) async throws -> JSON) async throws -> JSON {
        var (value, etag) = try await get(path)
        var random = SystemRandomNumberGenerator()
        for attempt in 0..<Self.transactionTries {
            if attempt > 0 {
                // Writers that collided wait a random while, so that one of them gets through.
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...min(1000, 10 << attempt), using: &random)))
            }
            guard let tag = etag else {
                throw RemoteError(.malformedResponse, "the server gave no ETag for \(path); it cannot do transactions")
            }
            let new = try await change(value)
            switch try await set(path, new, ifMatch: tag) {
            case .written:
                return new
            case .preconditionFailed(let newTag, let current):
                (value, etag) = (current, newTag)
            }
        }
        throw RemoteError(.transactionRetriesExhausted,
                          "the transaction at \(path) met another write on each of its \(Self.transactionTries) tries")
    }

    // MARK: - Requests

    /// A response read whole.
    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: ByteBuffer

        func json() throws(RemoteError) -> JSON {
            do {
                return try JSONDocument(parsing: Array(body.readableBytesView)).root.json
            } catch {
                throw RemoteError(.malformedResponse, "the server's answer is not JSON: \(error)")
            }
        }
    }

    private func send(_ method: HTTPMethod, _ path: Path, parameters: [(name: String, value: String)] = [],
                      body: JSON? = nil, headers: [(String, String)] = [], accepting: Set<Int> = []) async throws(RemoteError) -> Answer {
        var request = HTTPClientRequest(url: url.requestURL(for: path, parameters: parameters + (credential?.parameters ?? [])))
        request.method = method
        for (name, value) in headers + (credential?.headers.map { ($0.name, $0.value) } ?? []) {
            request.headers.add(name: name, value: value)
        }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body.serialized()))
        }
        // On the client's event loop, like the streams: no wait for a thread of the shared pool.
        return try await withTaskExecutorPreference(client.executor) { () async throws(RemoteError) -> Answer in
            try await self.perform(request, accepting: accepting)
        }
    }

    private func perform(_ request: HTTPClientRequest, accepting: Set<Int>) async throws(RemoteError) -> Answer {
        let answer: Answer
        do {
            let response = try await client.http.execute(request, timeout: .milliseconds(Int64(milliseconds(timeout))))
            guard (200..<300).contains(Int(response.status.code)) || accepting.contains(Int(response.status.code)) else {
                throw await Self.error(for: response, credential: credential)
            }
            answer = Answer(status: Int(response.status.code), headers: response.headers,
                            body: try await response.body.collect(upTo: Self.maximumResponseBytes))
        } catch let error as RemoteError {
            throw error
        } catch {
            throw Self.transportError(error, url: url, credential: credential)
        }
        return answer
    }

    /// The error of a response that is not 2xx: its status, and the server's `error` text.
    static func error(for response: HTTPClientResponse, credential: Credential?) async -> RemoteError {
        let code = Int(response.status.code)
        var message = "HTTP \(code) \(response.status.reasonPhrase)"
        if let body = try? await response.body.collect(upTo: 64 << 10), body.readableBytes > 0 {
            let bytes = Array(body.readableBytesView)
            if let text = (try? JSONDocument(parsing: bytes).root.json)?["error"]?.stringValue {
                message += ": " + text
            } else if let text = String(validating: bytes.prefix(300), as: UTF8.self), !text.isEmpty {
                message += ": " + text.trimmingSpaces()
            }
        }
        if let location = response.headers.first(name: "Location") {
            message += " (redirected to \(location); redirects are not followed, so that the token stays with its server)"
        }
        return RemoteError(.http(status: code), credential?.redact(message) ?? message)
    }

    /// A failure below HTTP (connect, TLS, a lost connection) as a `RemoteError`.
    static func transportError(_ error: any Error, url: DatabaseURL, credential: Credential?) -> RemoteError {
        let server = url.host + (url.port.map { ":\($0)" } ?? "")
        let message: String
        switch error {
        case let error as HTTPClientError where error == .connectTimeout:
            message = "connecting to \(server) timed out"
        case let error as HTTPClientError where error == .deadlineExceeded:
            message = "\(server) did not answer in time"
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            message = "\(server) closed the connection"
        case let error as HTTPClientError where error == .cancelled:
            message = "the request to \(server) was cancelled"
        default:
            message = "server \(server) unreachable (\(transportReason("\(error)")))"
        }
        return RemoteError(.transport, credential?.redact(message) ?? message)
    }

    /// A failure's text from below HTTP (`connection reset (error set): Connection refused
    /// (errno: 111)`) in a few words a user knows.
    static func transportReason(_ text: String) -> String {
        let t = text.lowercased()
        let words: [(String, String)] = [
            ("refused", "connection refused"), ("timed out", "timed out"), ("timeout", "timed out"),
            ("no route", "no route to it"), ("unreachable", "no route to it"),
            ("resolve", "unknown host name"), ("not known", "unknown host name"), ("nodename", "unknown host name"),
            ("certificate", "its certificate was refused"), ("handshake", "the secure connection failed"),
            ("reset", "connection reset"), ("closed", "connection closed"), ("broken pipe", "connection closed"),
        ]
        return words.first { t.contains($0.0) }?.1 ?? "connection failed"
    }
}

extension String {
    /// Without spaces and line ends at either end.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
