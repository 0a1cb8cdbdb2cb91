// The one way the tests start a program: posix_spawn with a clean signal state, pipes that
// leak into no other test's child, and waiting for its exit status.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
import Foundation
import Synchronization

/// A started program, and this process's ends of the pipes made for it.
public struct SpawnedProgram {
    public let pid: pid_t
    /// By the program's descriptor: the write end for its standard input (0), else the read end.
    public let pipes: [Int32: Int32]
}

/// Starts `argv` (argv[0] a path) without waiting for it. It gets no other descriptor of this
/// process than those given, as 0, 1 and 2.
/// - Parameters:
///   - pipes: the program's descriptors (0, 1, 2) that are pipes to this process.
///   - descriptors: the program's descriptors (0, 1, 2) that are copies of this process's (dup2).
///   - devNull: the program's descriptors (0, 1, 2) opened on /dev/null.
///   - environment: replaces the environment when given.
/// - Throws: `ChildProcessError` naming the program when it cannot start.
public func spawnProgram(_ argv: [String], pipes: [Int32] = [], descriptors: [Int32: Int32] = [:], devNull: [Int32] = [],
                         environment: [String: String]? = nil) throws -> SpawnedProgram {
    precondition((pipes + devNull + descriptors.keys).allSatisfy { (0...2).contains($0) }, "a child descriptor other than 0, 1 or 2")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A clean signal state: test threads block most signals, and a child (a tmux server above
    // all) would inherit that mask — `tmux kill-server` signals the server with SIGTERM.
    var noSignals = sigset_t(), allSignals = sigset_t()
    sigemptyset(&noSignals)
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    for fd in devNull { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
    for (child, parent) in descriptors { posix_spawn_file_actions_adddup2(&actions, parent, child) }
    let cArgs = argv.map { strdup($0) } + [nil]
    let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        cArgs.forEach { free($0) }
        env.forEach { free($0) }
    }
    var pid = pid_t()
    var made = [Int32: [Int32]]()
    // Tests run in parallel: a pipe end leaking into another test's child would keep this
    // child's input or output from ending (a tmux server would hold it forever). So pipes are
    // made close-on-exec (dup2 onto the child's descriptor clears that there), and made and
    // spawned under one lock, so that no spawn falls between pipe() and fcntl().
    let rc = spawnLock.withLock { _ -> Int32 in
        for fd in pipes {
            guard let ends = pipeClosedOnExec() else { return EMFILE }
            made[fd] = ends
            posix_spawn_file_actions_adddup2(&actions, fd == 0 ? ends[0] : ends[1], fd)
        }
        // Nothing else of this process's, close-on-exec or not (SwiftNIO's sockets are not).
        Posix.closeFrom(3, in: &actions)
        return posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, env)
    }
    // The child's ends, which this process no longer needs.
    for (fd, ends) in made { close(fd == 0 ? ends[0] : ends[1]) }
    let ours = Dictionary(uniqueKeysWithValues: made.map { fd, ends in (fd, fd == 0 ? ends[1] : ends[0]) })
    guard rc == 0 else {
        ours.values.forEach { close($0) }
        throw ChildProcessError(description: "cannot start \(argv[0]): \(String(cString: strerror(rc)))")
    }
    return SpawnedProgram(pid: pid, pipes: ours)
}

/// Waits for `pid` to end: its exit status, or 128 + the signal that ended it.
@discardableResult
public func waitForExit(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return exitStatus(status)
}

/// Waits up to `seconds` for `pid` to end: its exit status, or nil while it still runs.
public func waitForExit(_ pid: pid_t, seconds: Double) -> Int32? {
    let deadline = Date().addingTimeInterval(seconds)
    var status: Int32 = 0
    repeat {
        if waitpid(pid, &status, WNOHANG) == pid { return exitStatus(status) }
        usleep(10_000)
    } while Date() < deadline
    return nil
}

/// A wait status as a shell reports it.
private func exitStatus(_ status: Int32) -> Int32 {
    (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

/// Held while pipes are made and a child spawned.
let spawnLock = Mutex(())

/// A pipe whose two ends are close-on-exec (made and marked under the lock spawns take, so that
/// no test's child falls between): `[read, write]`, as pipe(2) gives them; nil when it cannot be made.
public func closeOnExecPipe() -> [Int32]? {
    spawnLock.withLock { _ in pipeClosedOnExec() }
}

/// A pipe, both ends marked close-on-exec; called under `spawnLock`.
private func pipeClosedOnExec() -> [Int32]? {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return ends
}

/// `mkstemp(template)`, its descriptor close-on-exec (as `closeOnExecPipe`).
public func closeOnExecTemporaryFile(_ template: inout [CChar]) -> Int32 {
    spawnLock.withLock { _ -> Int32 in
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return fd
    }
}

/// `close_range(first, last, flags)` (glibc 2.34, found at run time), for a child forked from the
/// test process to close its copies of other tests' descriptors, so that it delays none of their
/// ends (a writer's close seen by inotify, a pipe's end of input) while it runs. Read it before
/// `fork()`: the child must not look it up (another thread may have held the loader's lock).
public let closeRange = Posix.cLibraryFunction("close_range", as: (@convention(c) (UInt32, UInt32, Int32) -> Int32).self)
