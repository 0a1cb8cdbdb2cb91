// The processes the network tests run beside `synctable serve` (TestSupport's `ServedFile`):
// the Python proxy that stalls and cuts connections, and a scripted server.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import Testing
import TestSupport

/// The proxy of Python/proxy.py between the tests and `target`.
final class Proxy {
    let port: Int
    let log: String
    private let process: ChildProcess

    init(target: Int, folder: ScratchFolder) throws {
        log = folder.file("proxy.log")
        process = try ChildProcess(["/usr/bin/env", "python3", packageRoot + "/Tests/RemoteStoreTests/Python/proxy.py", String(target), log],
                                   environment: ["PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"])
        guard let line = process.readLine(seconds: 30), line.hasPrefix("listening on "),
            let port = Int(line.dropFirst("listening on ".count))
        else { throw StartError("the proxy did not start: \(process.standardError())") }
        self.port = port
    }

    deinit { process.closeInput() }

    /// Sends `command` (stall, resume, cut) and waits for its answer.
    func send(_ command: String) {
        process.send(command)
        #expect(process.readLine(seconds: 30) == "\(command) ok")
    }

    /// The logged requests: "GET /a.json?… bearer=yes|no", one a connection.
    var requests: [String] {
        (readFileText(log) ?? "").split(separator: "\n").map(String.init)
    }
}

/// The scripted server of Python/events_server.py: streams exactly the bytes it is told to.
final class ScriptedServer {
    let port: Int
    private let process: ChildProcess

    init() throws {
        process = try ChildProcess(["/usr/bin/env", "python3", packageRoot + "/Tests/RemoteStoreTests/Python/events_server.py"],
                                   environment: ["PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"])
        guard let line = process.readLine(seconds: 30), line.hasPrefix("listening on "),
            let port = Int(line.dropFirst("listening on ".count))
        else { throw StartError("the scripted server did not start: \(process.standardError())") }
        self.port = port
    }

    deinit { process.closeInput() }

    /// `http://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Sends one command (a JSON object) and returns the answer line.
    @discardableResult
    func command(_ object: JSON) -> String {
        process.send(object.serializedString())
        return process.readLine(seconds: 30) ?? "(no answer: \(process.standardError()))"
    }

    /// Writes `text` to every open stream in one write; how many streams got it.
    @discardableResult
    func send(_ text: String) -> Int {
        Int(command(["send": .string(text)]).dropFirst("sent ".count)) ?? -1
    }

    /// How many requests came so far.
    var requests: Int { Int(command(["requests": true]).dropFirst("requests ".count)) ?? -1 }
}

/// A helper process that did not start.
struct StartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A loopback port that nothing listens on while this lives: a socket bound to it that never
/// listens, so a connection is refused at once and no other test's server can take the port
/// (a server killed to free its port could see the port given to the next server started).
final class ClosedPort {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        let code = errno
        if fd >= 0 && !bound { close(fd) }
        try #require(fd >= 0 && bound, "bind a loopback socket: errno \(code)")
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}
