// Running the built `tabledemo` in real terminals: tmux sessions on private sockets, and
// plain processes. The binaries sit next to the test bundle.
import Foundation
import Testing

/// The directory of a built product, found from the running test executable.
func builtProduct(_ name: String) throws -> String {
    let exe = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    var dir = (exe as NSString).deletingLastPathComponent
    for _ in 0..<4 {
        let candidate = dir + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = (dir as NSString).deletingLastPathComponent
    }
    Issue.record("\(name) is not built next to \(exe); run `swift build --build-tests` first")
    throw CancellationError()
}

/// Runs a program to its end; its standard output (unless `output` is false: a program
/// that leaves a daemon holding the pipe, like `tmux new-session`; with standard error
/// too when `errors`) and exit status.
/// posix_spawn with a clean signal mask and default handlers: the test runner's threads
/// block signals, which children would otherwise inherit.
@discardableResult
func runProgram(_ path: String, _ arguments: [String], output: Bool = true,
                errors: Bool = false) throws -> (status: Int32, output: String) {
    var fds: [Int32] = [-1, -1]
    if output { guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if output {
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
    } else {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    }
    if output && errors {
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
    } else {
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    if output { close(fds[1]) }
    guard spawned == 0 else {
        if output { close(fds[0]) }
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL)
    }
    var data: [UInt8] = []
    if output {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n > 0 { data += buffer[..<n] } else if n < 0 && errno == EINTR { continue } else { break }
        }
        close(fds[0])
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exitStatus, String(decoding: data, as: UTF8.self))
}

/// A tmux server of its own (`tmux -L`), killed when the test ends.
final class TmuxSession {
    let socket: String
    private let tmux = "/usr/bin/tmux"

    /// Starts `command` in a detached session of `width`×`height`, in a UTF-8 locale and
    /// without the test runner's `NO_COLOR`. When the program ends,
    /// the shell prints `exit=STATUS` and stays, so the terminal's modes can still be read.
    init(_ name: String, width: Int, height: Int, command: String) throws {
        socket = "tableui-\(name)-\(getpid())"
        try runProgram(tmux, ["-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)",
                              "ulimit -c 0; env -u NO_COLOR LANG=C.UTF-8 \(command); echo exit=$?; sleep 600"], output: false)
    }

    /// The pid of the program the pane's shell runs.
    func programPID() throws -> String {
        let shell = try format("#{pane_pid}")
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        return try #require(children.split(separator: " ").first.map(String.init), "no program under the shell")
    }

    /// Waits for the program to end; its exit status as the shell reports it.
    func waitForExit(sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        let screen = try waitForScreen("the program's exit", sourceLocation: sourceLocation) {
            $0.contains { $0.hasPrefix("exit=") }
        }
        return screen.first { $0.hasPrefix("exit=") }.map { String($0.dropFirst(5)) }
    }

    deinit { _ = try? runProgram(tmux, ["-L", socket, "kill-server"], output: false) }

    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        try runProgram(tmux, ["-L", socket] + arguments).output
    }

    /// The screen as text, one string per line.
    func screen() throws -> [String] {
        try run(["capture-pane", "-p"]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func send(_ keys: String...) throws { try run(["send-keys"] + keys) }

    /// A tmux format (`#{pane_dead}`, `#{alternate_on}`…) for the pane.
    func format(_ format: String) throws -> String {
        try run(["display-message", "-p", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits (up to `seconds`, polling) until `condition` holds for the screen; records
    /// an issue with the last screen when it never does.
    @discardableResult
    func waitForScreen(_ what: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
                       _ condition: ([String]) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String] = []
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            usleep(30_000)
        }
        Issue.record("never saw \(what); the screen was:\n\(last.joined(separator: "\n"))", sourceLocation: sourceLocation)
        return last
    }
}
