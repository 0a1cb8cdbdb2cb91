// A plain HTTP/1.1 client over a socket, for tests: exact requests (malformed ones too), whole
// responses, and server-sent events read as they arrive.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Testing

struct HTTPResult {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (nil when it is not JSON).
    var json: JSON? { try? JSONDocument(parsing: body).root.json }
}

struct ServerEvent: Equatable {
    var name: String
    var data: String

    var json: JSON? { try? JSONDocument(parsing: data).root.json }
}

struct HTTPTestError: Error, CustomStringConvertible {
    let description: String
}

/// One connection to `127.0.0.1:port`.
final class HTTPConnection {
    let fd: Int32
    private var buffer = [UInt8]()
    /// The rest of a chunked body being streamed, decoded.
    private var streamed = [UInt8]()
    private var streamEnded = false

    init(port: Int, receiveBuffer: Int? = nil) throws {
        // The socket becomes `fd` only once connected: a connection that failed was closed
        // here, and `deinit` must not close its number again (another test's by then).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestError(description: "socket: \(errno)") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let code = errno
            close(fd)
            throw HTTPTestError(description: "connect to port \(port): \(String(cString: strerror(code)))")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends raw bytes; false when the server closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Sends a request and reads its response, within a minute by default (under the whole suite
    /// an in-process server's answer has taken over 20 s).
    func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil, seconds: Double = 60
    ) throws -> HTTPResult {
        send(Self.requestBytes(method, target, headers: headers, body: body))
        return try readResponse(seconds: seconds)
    }

    static func requestBytes(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + (body ?? [])
    }

    /// Reads one whole response (a body by Content-Length, chunked, or to the end).
    func readResponse(seconds: Double = 20) throws -> HTTPResult {
        var result = try readHead(seconds: seconds)
        if let length = result.header("content-length").flatMap({ Int($0) }) {
            result.body = try readExactly(length, seconds: seconds)
        } else if result.header("transfer-encoding")?.lowercased() == "chunked" {
            while !streamEnded { try readChunk(seconds: seconds) }
            result.body = streamed
            streamed.removeAll()
        }
        return result
    }

    /// Reads the status line and headers (for a stream, before its events).
    func readHead(seconds: Double = 20) throws -> HTTPResult {
        let deadline = Self.deadline(seconds)
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
                let parts = lines[0].split(separator: " ")
                guard parts.count >= 2, let status = Int(parts[1]) else {
                    throw HTTPTestError(description: "bad status line: \(lines[0])")
                }
                var headers = [(String, String)]()
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingPrefix(" ").description))
                }
                streamed.removeAll()
                streamEnded = false
                return HTTPResult(status: status, headers: headers, body: [])
            }
            try fill(until: deadline)
        }
    }

    /// The next server-sent event of a streaming response; nil when the stream ended.
    func readEvent(seconds: Double = 20) throws -> ServerEvent? {
        try readEvent(until: Self.deadline(seconds))
    }

    /// The next event other than a keep-alive, which the server sends every waiting stream each
    /// keep-alive period (counted from its start), so a slow run may see one anywhere; nil when
    /// the stream ended. `seconds` bounds the whole wait, keep-alives and all.
    func readDataEvent(seconds: Double = 20) throws -> ServerEvent? {
        let deadline = Self.deadline(seconds)
        var event = try readEvent(until: deadline)
        while event?.name == "keep-alive" { event = try readEvent(until: deadline) }
        return event
    }

    private func readEvent(until deadline: UInt64) throws -> ServerEvent? {
        while true {
            if let end = streamed.firstRange(of: [10, 10]) {
                let block = String(decoding: streamed[..<end.lowerBound], as: UTF8.self)
                streamed.removeFirst(end.upperBound)
                var event = ServerEvent(name: "", data: "")
                for line in block.split(separator: "\n") {
                    if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
                }
                return event
            }
            if streamEnded { return nil }
            try readChunk(seconds: Double(Int64(deadline) - Int64(monotonicNanoseconds())) / 1e9)
        }
    }

    /// Whether the server has closed the connection (waits up to `seconds` for it).
    func isClosedByServer(seconds: Double) -> Bool {
        let deadline = Self.deadline(seconds)
        while true {
            do { try fill(until: deadline) } catch let error as HTTPTestError {
                return error.description == "closed"
            } catch { return false }
            buffer.removeAll()
        }
    }

    // MARK: - Reading

    private func readChunk(seconds: Double) throws {
        let deadline = Self.deadline(max(0, seconds))
        while find([13, 10]) == nil { try fill(until: deadline) }
        let end = find([13, 10])!
        let sizeText = String(decoding: buffer[..<end], as: UTF8.self).split(separator: ";")[0]
        guard let size = Int(sizeText, radix: 16) else { throw HTTPTestError(description: "bad chunk size '\(sizeText)'") }
        buffer.removeFirst(end + 2)
        let data = try readExactly(size + 2, until: deadline)
        if size == 0 {
            streamEnded = true
        } else {
            streamed += data[..<size]
        }
    }

    func readExactly(_ count: Int, seconds: Double) throws -> [UInt8] {
        try readExactly(count, until: Self.deadline(seconds))
    }

    private func readExactly(_ count: Int, until deadline: UInt64) throws -> [UInt8] {
        while buffer.count < count { try fill(until: deadline) }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        buffer.firstRange(of: pattern)?.lowerBound
    }

    private func fill(until deadline: UInt64) throws {
        let now = monotonicNanoseconds()
        guard now < deadline else { throw HTTPTestError(description: "timed out") }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        guard poll(&fds, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n < 0 && errno == EINTR { return }
        if n <= 0 { throw HTTPTestError(description: "closed") }
        buffer += chunk[0..<n]
    }

    private static func deadline(_ seconds: Double) -> UInt64 { monotonicNanoseconds() + UInt64(seconds * 1e9) }
}
