// Running programs to their end from tests: a clean signal state, output and errors read
// together, no descriptor leaking into another test's child.
import Foundation
import Synchronization

/// What a finished program printed and returned.
public struct ProgramResult: Sendable {
    public var status: Int32
    public var output: String
    public var errors: String
}

/// Runs `path` with `arguments` to its end (posix_spawn and waitpid), standard input from /dev/null.
/// - Parameters:
///   - environment: replaces the environment when given.
///   - capture: read its output; false sends it to /dev/null (for a program that leaves a
///     daemon behind, such as the first tmux command, which would hold the pipes open).
@discardableResult
public func runProgram(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
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

/// Held while pipes are made and a child spawned (runProgram, ChildProcess).
let spawnLock = Mutex(())
