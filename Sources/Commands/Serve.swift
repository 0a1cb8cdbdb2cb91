// `synctable serve`: the file as a Realtime Database over HTTP (the server is the Serve library).
import ArgumentParser
import Dispatch
import FileStore
import Headless
import Serve
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `synctable serve FILE|- [--input json|jsonl] [--host H] [--port P] [--read-only] [--auth-token T] [--rules R] …`.
struct ServeFile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the file over the Realtime Database REST, streaming and WebSocket protocols.",
        discussion: """
            Firebase clients point at http://HOST:PORT (the Admin SDK with \
            FIREBASE_DATABASE_EMULATOR_HOST=HOST:PORT). Prints 'listening on http://HOST:PORT' \
            once ready; stops on SIGINT or SIGTERM. A JSON Lines file is served as a log: line N \
            is the child N, and a POST to the root appends a line; PUT, PATCH and DELETE are \
            refused with 405. Standard input (-) is served as it arrives, read only. Exit status 2 \
            when the file cannot be read as JSON at the start or the address cannot be bound.
            """
    )

    @Argument(help: "The JSON or JSON Lines file to serve (-: standard input, read only), or a folder of them (a database each, ?ns=NAME).")
    var file: String?
    @Option(name: .customLong("namespace"), help: ArgumentHelp("Serve FILE as the database ?ns=NAME too (repeatable).", valueName: "NAME=FILE"))
    var namespaces: [String] = []
    @Option(help: ArgumentHelp("Take the rules a Firebase project's firebase.json names (\"database\": {\"rules\": …}).", valueName: "firebase.json"))
    var config: String?
    @OptionGroup var input: InputOptions
    @Option(help: "The address to bind (loopback unless you say otherwise).") var host = "127.0.0.1"
    @Option(help: "The port (0: any free port).") var port = 9000
    @Flag(help: "Refuse every write with 401.") var readOnly = false
    @Option(help: ArgumentHelp("Require this token (Authorization: Bearer T, or ?auth=T).", valueName: "token"))
    var authToken: String?
    @Option(help: ArgumentHelp("Refuse request bodies larger than this many bytes with 413.", valueName: "bytes"))
    var maxBodyBytes = 16 << 20
    @Option(help: ArgumentHelp("Drop a streaming client that falls this many revisions behind (it is not reading).", valueName: "n"))
    var streamBacklog = 256
    @Option(help: ArgumentHelp("Send an idle stream a keep-alive event this often.", valueName: "ms"))
    var keepAliveMs = 30_000
    @Option(help: ArgumentHelp("Decide each request with these Security Rules (database.rules.json).", valueName: "file"))
    var rules: String?
    @Flag(help: "Accept Firebase ID tokens without verifying them (loopback only: anyone could claim any user).")
    var acceptUnverifiedTokens = false
    @Option(help: ArgumentHelp("Drop a streaming client that still has this many bytes to receive when the file changes.", valueName: "bytes"))
    var streamUnsentBytes = 16 << 20
    @Option(help: ArgumentHelp("Keep this many bytes of answers to reads of the current revision.", valueName: "bytes"))
    var cacheBytes = 64 << 20
    @Option(help: ArgumentHelp("Close a connection idle, or slow to send its request's head, for this long.", valueName: "ms"))
    var idleTimeoutMs = 30_000
    @Option(help: ArgumentHelp("Answer connections past this many with 503 (default: the descriptor limit less 256).", valueName: "n"))
    var maxConnections: Int?
    @Option(help: ArgumentHelp("What clients may make the server hold in all; one connection a sixteenth (default: a quarter of the machine's memory).", valueName: "bytes"))
    var maxMemory: Int?
    @Option(help: ArgumentHelp("In JSON Lines, skip a line longer than this (an error row names it) and read on.", valueName: "bytes"))
    var maxLineBytes = 256 << 20

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, not \(port)") }
        guard maxBodyBytes > 0 else { throw ValidationError("--max-body-bytes must be positive") }
        guard streamBacklog > 0 else { throw ValidationError("--stream-backlog must be positive") }
        guard keepAliveMs > 0 else { throw ValidationError("--keep-alive-ms must be positive") }
        if authToken?.isEmpty == true {
            throw ValidationError("--auth-token is empty (an unset variable?): give a token, or leave the option out")
        }
        guard streamUnsentBytes > 0 else { throw ValidationError("--stream-unsent-bytes must be positive") }
        guard cacheBytes >= 0 else { throw ValidationError("--cache-bytes must not be negative") }
        guard idleTimeoutMs > 0 else { throw ValidationError("--idle-timeout-ms must be positive") }
        if let maxConnections, maxConnections <= 0 { throw ValidationError("--max-connections must be positive") }
        guard maxLineBytes > 0 else { throw ValidationError("--max-line-bytes must be positive") }
        if let maxMemory, maxMemory < 1 << 20 { throw ValidationError("--max-memory must be at least 1048576 (1 MB)") }
    }

    func run() throws {
        var options = ServeOptions(
            host: host, port: port, readOnly: readOnly, authToken: authToken, maxBodyBytes: maxBodyBytes,
            streamBacklogLimit: streamBacklog, keepAliveMilliseconds: keepAliveMs, streamUnsentLimit: streamUnsentBytes,
            cacheBytes: cacheBytes, idleTimeoutMilliseconds: idleTimeoutMs, maxConnections: maxConnections)
        options.rulesFile = try rules ?? config.flatMap(firebaseConfigRules)
        options.acceptUnverifiedTokens = acceptUnverifiedTokens
        options.maxMemoryBytes = maxMemory
        if let file, let url = try databaseURL(file) {
            throw CommandError("serve takes a file or - (standard input), not a database URL: \(url.display)")
        }
        if let warning = options.exposure { printError("warning: " + warning) }
        let server: DatabaseServer
        do {
            let databases = try servedSources(file, namespaces: namespaces).map { source in
                var store = FileStore.Options(format: input.format(of: source.path))
                store.maxLineBytes = maxLineBytes
                return (source.name, { @Sendable [store] in try openStore(source.path, credential: nil, file: store) as any LiveStore })
            }
            server = try DatabaseServer(databases: databases, options: options, name: file ?? databases.map(\.0).joined(separator: ", "))
        } catch {
            throw CommandError("\(error)")
        }
        let host = self.host, output = CommandIO.current.output
        let stop = CommandIO.current.stop.map { stopGracefully(server, on: $0) }
        defer { stop?.stopListening() }
        do {
            // At once, in one write: a script waits for the line.
            try server.runUntilStopped { port in
                _ = writeAll(Array("listening on http://\(host):\(port)\n".utf8), to: output)
            }
        } catch {
            throw CommandError("\(error)")
        }
    }
}

/// Stops `server` gracefully on SIGINT or SIGTERM (as the program's edge delivers them), from a
/// thread that waits for them; a server that has not started stopping within a second of
/// one ends the process.
private func stopGracefully(_ server: DatabaseServer, on requests: StopRequests) -> StopRequests {
    requests.listen(for: [SIGINT, SIGTERM], grace: 1) { signal in _exit(128 + signal) }
    DispatchQueue.global().async {
        var fds = [pollfd(fd: requests.fd, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 1, -1) < 0 && errno == EINTR {}
        guard requests.take() != nil else { return }
        server.stopGracefully()
    }
    return requests
}
