// Running the built `synctable` in a real terminal: a tmux server of its own per test, keys
// sent with send-keys, the screen read back with capture-pane.
import Foundation
import Synchronization
import Testing
import TestSupport

/// The built `synctable`.
func synctableBinary() throws -> String { try builtProduct("synctable") }

/// What a finished program printed and returned.
struct ProgramResult {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs `path` with `arguments` to its end (posix_spawn and waitpid), standard input from /dev/null.
/// - Parameters:
///   - environment: replaces the environment when given.
///   - capture: read its output; false sends it to /dev/null (for a program that leaves a
///     daemon behind, such as the first tmux command, which would hold the pipes open).
@discardableResult
func runProgram(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                capture: Bool = true) throws -> ProgramResult {
    var out: [Int32] = [-1, -1]
    var err: [Int32] = [-1, -1]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // A clean signal state: test threads block most signals, and a child (a tmux server above
    // all) would inherit that mask — `tmux kill-server` signals the server with SIGTERM.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if !capture {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        env.forEach { free($0) }
    }
    var pid = pid_t()
    // Tests run in parallel: a pipe made here must not leak into a program another thread
    // spawns (a tmux server would hold it open forever). So pipes are made close-on-exec, and
    // made and spawned under one lock, so that no spawn falls between pipe() and fcntl().
    let spawned = spawnLock.withLock { _ -> Int32 in
        if capture {
            guard pipe(&out) == 0, pipe(&err) == 0 else { return EMFILE }
            for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, out[1], 1)
            posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        }
        return posix_spawn(&pid, path, &actions, &attributes, argv, env)
    }
    if capture {
        close(out[1])
        close(err[1])
    }
    guard spawned == 0 else {
        if capture { [out[0], err[0]].forEach { close($0) } }
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT)
    }
    var output: [UInt8] = []
    var errors: [UInt8] = []
    if capture {
        // Both pipes at once, so that neither can fill up and stall the program.
        var fds = [pollfd(fd: out[0], events: Int16(POLLIN), revents: 0), pollfd(fd: err[0], events: Int16(POLLIN), revents: 0)]
        var open = 2
        var buffer = [UInt8](repeating: 0, count: 65536)
        while open > 0 {
            guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { break }
            for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if i == 0 { output += buffer[0..<n] } else { errors += buffer[0..<n] }
                } else if n == 0 || errno != EINTR {
                    close(fds[i].fd)
                    fds[i].fd = -1
                    open -= 1
                }
            }
        }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return ProgramResult(status: code, output: String(decoding: output, as: UTF8.self),
                         errors: String(decoding: errors, as: UTF8.self))
}

private let spawnLock = Mutex(())

/// The first-page caches of the viewers the tests run (not the user's).
let cacheFolder = packageRoot + "/.build/synctable-tests/cache"

private let sessionCounter = Atomic<Int>(0)

/// A tmux server on a private socket running one command in a detached 100×30 session; the
/// server is killed when the value goes away.
final class TerminalSession {
    let socket: String

    /// Starts `command` (a shell command line) in a UTF-8 locale. The pane stays open when
    /// the command ends, so the screen it leaves can be read.
    init(_ command: String, width: Int = 100, height: Int = 30) throws {
        let n = sessionCounter.add(1, ordering: .relaxed).newValue
        socket = "synctable-test-\(getpid())-\(n)"
        try tmux(capture: false, ["-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)",
                  "env LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CACHE_HOME=\(cacheFolder) \(command)", ";", "set-option", "-g", "remain-on-exit", "on",
                                 ";", "set-option", "-s", "set-clipboard", "on"])
    }

    deinit {
        let socketPath = (try? tmux(["display-message", "-p", "#{socket_path}"]))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try? tmux(["kill-server"])
        // The server leaves its socket behind when killed.
        if let socketPath, socketPath.hasSuffix("/" + socket) { unlink(socketPath) }
    }

    @discardableResult
    func tmux(capture: Bool = true, _ arguments: [String]) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        environment["LANG"] = "C.UTF-8"
        environment.removeValue(forKey: "TMUX")
        return try runProgram("/usr/bin/env", ["tmux", "-L", socket] + arguments, environment: environment,
                              capture: capture).output
    }

    /// The screen, one string per line; with `history`, the lines scrolled off above it first
    /// (a shell's output after a full-screen program may scroll, depending on the cursor).
    func screen(history: Bool = false) throws -> [String] {
        try tmux(["capture-pane", "-p"] + (history ? ["-S", "-"] : []))
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Sends keys (tmux names: `Enter`, `BSpace`, `Tab`, `C-c`, or literal text).
    func send(_ keys: String...) throws { try tmux(["send-keys"] + keys) }

    /// Sends text literally, character by character.
    func type(_ text: String) throws { try tmux(["send-keys", "-l", text]) }

    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-x", "\(width)", "-y", "\(height)"])
    }

    /// Polls the screen (with `history`, also what scrolled off) until `condition` holds (up to
    /// `seconds`); records an issue showing the last screen when it never does.
    @discardableResult
    func waitFor(_ what: String, seconds: Double = 15, history: Bool = false,
                 sourceLocation: SourceLocation = #_sourceLocation, _ condition: (Screen) -> Bool) throws -> Screen {
        let deadline = Date().addingTimeInterval(seconds)
        var last = Screen(lines: [])
        repeat {
            last = Screen(lines: try screen(history: history))
            if condition(last) { return last }
            usleep(40_000)
        } while Date() < deadline
        Issue.record("never saw \(what); the screen was:\n\(last.text)", sourceLocation: sourceLocation)
        return last
    }
}

/// A captured screen, with questions a test asks of the viewer's table.
struct Screen {
    let lines: [String]

    var text: String { lines.joined(separator: "\n") }

    func contains(_ needle: String) -> Bool { lines.contains { $0.contains(needle) } }

    /// Line `n` (empty past the end).
    func line(_ n: Int) -> String { n < lines.count ? lines[n] : "" }

    /// The line of the row whose key is `key`: the key column is the first after the 3-cell
    /// gutter (right-aligned when every key is an integer).
    func line(ofKey key: String) -> Int? {
        lines.firstIndex { $0.dropFirst(3).drop { $0 == " " }.hasPrefix(key + " ") }
    }

    /// Whether every key is on screen, in this order top to bottom.
    func hasRows(inOrder keys: [String]) -> Bool {
        let found = keys.map { line(ofKey: $0) }
        guard found.allSatisfy({ $0 != nil }) else { return false }
        let at = found.map { $0! }
        return at == at.sorted()
    }

    /// The key of the selected row (the line that starts with the selection glyph).
    var selectedKey: String? {
        guard let line = lines.first(where: { $0.hasPrefix("▶") }) else { return nil }
        return line.dropFirst(3).split(separator: " ").first.map(String.init)  // split skips leading spaces
    }
}
