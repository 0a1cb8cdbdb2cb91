// Helpers for the store's tests: scratch folders, real writer processes, waiting on a store.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

/// Runs `command` with /bin/sh, arguments as $1, $2, …; returns the exit status.
@discardableResult
func shell(_ command: String, _ arguments: String...) -> Int32 {
    spawnAndWait(["/bin/sh", "-c", command, "sh"] + arguments)
}

/// Runs a program (argv[0] is a path) and waits for it; returns its exit status.
@discardableResult
func spawnAndWait(_ argv: [String]) -> Int32 {
    var pid = pid_t()
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    guard posix_spawn(&pid, argv[0], nil, nil, cArgs, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

/// Writes `text` to `path` from this process, in place (truncate, write, close).
func writeInPlace(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "cannot open \(path)")
    var text = text
    text.withUTF8 { p in _ = write(fd, p.baseAddress, p.count) }
    close(fd)
}

/// Writes `text` to a temporary file beside `path`, then renames it over `path`.
func writeByRename(_ path: String, _ text: String) {
    writeInPlace(path + ".tmp", text)
    rename(path + ".tmp", path)
}

/// A store with a record of what it delivered.
final class RecordingStore {
    let store: FileStore
    private(set) var revisions: [Revision] = []
    private(set) var statuses: [StoreStatus] = []

    init(path: String, options: FileStore.Options = .init()) throws {
        store = try FileStore(path: path, options: options)
        store.observeRevisions { [unowned self] in revisions.append($0) }
        store.observeStatus { [unowned self] in statuses.append($0) }
    }

    /// Runs the loop until `condition` holds; records an issue after `seconds`.
    func run(seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation, until condition: () -> Bool) {
        do {
            try store.run(timeoutMilliseconds: Int(seconds * 1000), until: condition)
        } catch {
            Issue.record("\(error) waiting; status \(store.status), contents \(contents)", sourceLocation: sourceLocation)
        }
    }

    /// Runs the loop until the current revision's bytes are `text`.
    func waitForContent(_ text: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) {
        run(seconds: seconds, sourceLocation: sourceLocation) { currentText == text }
    }

    /// Runs the loop for `milliseconds` whatever happens, so that late events can arrive.
    func settle(milliseconds: Int = 300) {
        let end = monotonicNanoseconds() + UInt64(milliseconds) * 1_000_000
        while case let now = monotonicNanoseconds(), now < end {
            store.waitAndProcessChanges(timeoutMilliseconds: Int((end - now) / 1_000_000) + 1)
        }
    }

    var currentText: String? { store.currentRevision.map { String(decoding: $0.document.bytes, as: UTF8.self) } }
    var contents: [String] { revisions.map { String(decoding: $0.document.bytes, as: UTF8.self) } }
}

/// A child process whose standard output (and error) the test reads line by line.
final class ChildProcess {
    let pid: pid_t
    private let stdoutFD: Int32
    private let stderrFD: Int32
    private var buffer = [UInt8]()
    private(set) var exitStatus: Int32?

    init(_ argv: [String]) throws {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        try #require(pipe(&out) == 0 && pipe(&err) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        posix_spawn_file_actions_addclose(&actions, out[0])
        posix_spawn_file_actions_addclose(&actions, err[0])
        var pid = pid_t()
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ)
        close(out[1])
        close(err[1])
        try #require(rc == 0, "cannot start \(argv[0])")
        self.pid = pid
        stdoutFD = out[0]
        stderrFD = err[0]
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = wait()
        }
        close(stdoutFD)
        close(stderrFD)
    }

    /// The next line of standard output; nil at end of output or after `seconds`.
    func readLine(seconds: Double = 10) -> String? {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return line
            }
            let now = monotonicNanoseconds()
            guard now < deadline else { return nil }
            var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(stdoutFD, &chunk, chunk.count)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Lines until one satisfies `stop` (included).
    func readLines(until stop: (String) -> Bool, seconds: Double = 10) -> [String] {
        var lines = [String]()
        while let line = readLine(seconds: seconds) {
            lines.append(line)
            if stop(line) { break }
        }
        return lines
    }

    /// Everything written to standard error (after the process ended).
    func standardError() -> String {
        var out = [UInt8](), chunk = [UInt8](repeating: 0, count: 4096)
        while case let n = read(stderrFD, &chunk, chunk.count), n > 0 { out += chunk[0..<n] }
        return String(decoding: out, as: UTF8.self)
    }

    /// Waits for the process to end; returns its exit status (128 + n when killed by signal n).
    @discardableResult
    func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }
}

/// The debug `synctable` built beside the test bundle.
func synctableBinary() throws -> String { try builtProduct("synctable") }
