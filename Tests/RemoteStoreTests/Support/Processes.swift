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
