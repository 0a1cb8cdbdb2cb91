// `synctable serve` as a child process (for signals, exit statuses and standard input), a
// server's streams, and unsigned ID tokens.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
@testable import Serve
import Testing
import TestSupport

/// `synctable serve FILE --port 0 …` as a child process, on the port it printed, for what needs
/// a process: signals, the exit status, standard input. Killed when the value goes away
/// (`stop()` ends it with SIGTERM and returns its exit status).
final class ServeProcess: ServedForTest {
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
        // "listening on http://127.0.0.1:PORT"
        var line = [UInt8]()
        var byte: UInt8 = 0
        let deadline = monotonicNanoseconds() + 30_000_000_000
        while monotonicNanoseconds() < deadline {
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 100) > 0 else { continue }
            guard read(output, &byte, 1) == 1 else { break }
            if byte == 0x0A { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on "), let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            kill(pid, SIGKILL)
            waitForExit(pid)
            close(output)
            throw HTTPTestError(description: "the server did not start: '\(text)'")
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

    convenience init(file: String, options: ServeOptions) throws {
        try self.init(file: file, arguments: serveArguments(options))
    }

    /// Sends `signal`; the exit status if the server ended within `seconds` (else it is killed).
    func stop(signal: Int32, within seconds: Double) -> Int32? {
        kill(pid, signal)
        exitStatus = waitForExit(pid, seconds: seconds)
        return exitStatus
    }

    /// Stops the server with SIGTERM; its exit status.
    @discardableResult
    func stop() -> Int32 {
        if let exitStatus { return exitStatus }
        kill(pid, SIGTERM)
        exitStatus = waitForExit(pid)
        return exitStatus!
    }
}

/// A stream opened by `openStream`.
final class OpenStream {
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
    func next() throws -> ServerEvent? {
        var event = try connection.readEvent()
        while event?.name == "keep-alive" { event = try connection.readEvent() }
        return event
    }
}

/// A Firebase ID token with `claims` (accepted only with `--accept-unverified-tokens`): unsigned
/// (`alg: none`, as the SDKs' `mockUserToken`, whose times are not checked), or with a signature
/// the server cannot verify (whose `exp` it honours).
func idToken(_ claims: JSON, signed: Bool = false) -> String {
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
    let header = signed ? #"{"alg":"RS256","kid":"k","typ":"JWT"}"# : #"{"alg":"none","typ":"JWT"}"#
    return base64URL(Array(header.utf8)) + "." + base64URL(claims.serialized(.compact)) + "." + (signed ? "c2lnbmF0dXJl" : "")
}

/// The bearer header of a user `uid`'s unsigned ID token.
func bearer(_ uid: String, _ claims: [(String, JSON)] = []) -> [(String, String)] {
    [("Authorization", "Bearer " + idToken(.object(JSONObject([("sub", .string(uid))] + claims))))]
}
