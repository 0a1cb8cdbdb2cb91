// `synctable serve FILE` in another process, for the tests of clients of a database URL.
#if canImport(Glibc)
import Glibc
#endif

/// `synctable serve FILE` on loopback, on the port it printed; killed and started again on
/// that port to test reconnection.
public final class ServedFile {
    public let file: String
    public let arguments: [String]
    public private(set) var port: Int
    private var process: ChildProcess?

    /// Starts the server on a free port.
    public init(file: String, arguments: [String] = []) throws {
        self.file = file
        self.arguments = arguments
        port = 0
        try start()
    }

    deinit { kill() }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Starts the server again (on the port it had, once it has one).
    public func start() throws {
        let child = try ChildProcess([try synctableBinary(), "serve", file, "--port", String(port)] + arguments)
        // "listening on http://127.0.0.1:PORT"
        guard let line = child.readLine(seconds: 30), line.hasPrefix("listening on "),
            let colon = line.lastIndex(of: ":"), let printed = Int(line[line.index(after: colon)...])
        else { throw ChildProcessError(description: "the server did not start: \(child.standardError())") }
        port = printed
        process = child
    }

    /// Kills the server with SIGKILL (no goodbye to its clients) and waits for it.
    public func kill() {
        process?.signal(SIGKILL)
        _ = process?.wait()
        process = nil
    }
}
