// One run of a command: started in a process group of its own, its output read up to a bound
// and a deadline, its group ended when the run is over.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
import StoreInterface

/// How one run ended.
enum RunEnd: Sendable {
    /// Exit status 0: what it printed.
    case output([UInt8])
    /// In words, without the run's number and time: `exit 1: error: You must be logged in`.
    case failed(String)
    /// The store was stopped while the command ran (its group is ended).
    case stopped
}

/// The bounds of one run.
struct RunLimits: Sendable {
    var timeoutMilliseconds: Int
    var maxOutputBytes: Int
}

/// Runs `executable` with `arguments` (the first is the command's name) and waits for it.
///
/// The command gets `/dev/null` as standard input and no signal blocked or ignored (this
/// process blocks the quitting signals on every thread, and a spawned program inherits the
/// mask). It leads a new process group, which is ended when the run is over — also when the
/// program itself has exited and left children behind — so that runs never overlap.
/// - Parameter expectedBytes: about how much it will print (the last run's output): read into
///   room made once, instead of growing by copies.
func runCommand(executable: String, arguments: [String], limits: RunLimits, stop: WakeSignal, expectedBytes: Int = 0) -> RunEnd {
    var output: [Int32] = [-1, -1], errors: [Int32] = [-1, -1]
    guard pipe(&output) == 0 else { return .failed("cannot make a pipe: \(errorText(errno))") }
    guard pipe(&errors) == 0 else {
        output.forEach { close($0) }
        return .failed("cannot make a pipe: \(errorText(errno))")
    }
    // Close-on-exec: the command gets its ends as 1 and 2 only (dup2 clears the flag there).
    for fd in output + errors { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    // A larger pipe (F_SETPIPE_SZ, Linux's; 1 MiB is the default most an unprivileged process may
    // ask): a large output comes in a few reads, not a wakeup and a read per 64 KiB.
    _ = fcntl(output[0], 1031, Int32(1 << 20))
    let spawned = spawnInOwnGroup(executable, arguments, stdout: output[1], stderr: errors[1])
    close(output[1])
    close(errors[1])
    defer {
        close(output[0])
        close(errors[0])
    }
    let pid: pid_t
    switch spawned {
    case .success(let started): pid = started
    case .failure(let code): return .failed("cannot run \(arguments[0]): \(errorText(code))")
    }
    ProcessGroups.add(pid)
    defer { ProcessGroups.remove(pid) }
    /// Ends the group while its leader is not yet reaped (its number cannot be reused meanwhile).
    func endAndReap() { ProcessGroups.end(pid); _ = reap(pid) }
    var reading = OutputReading(limit: limits.maxOutputBytes, expectedBytes: expectedBytes)
    let deadline = monotonicNanoseconds() + UInt64(max(0, limits.timeoutMilliseconds)) * 1_000_000
    var leaderEnded = false
    // Until both outputs end and the program has exited (a program may close its output and go on).
    while !(reading.done && leaderEnded) {
        let now = monotonicNanoseconds()
        guard now < deadline else {
            endAndReap()
            return .failed("still running after \(secondsText(limits.timeoutMilliseconds)): ended (timeout)")
        }
        // Short waits: the program's exit is polled for, it has no descriptor.
        let wait = Int32(min(50, (deadline - now) / 1_000_000 + 1))
        var fds = [pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: reading.outputEnded ? -1 : output[0], events: Int16(POLLIN), revents: 0),
                   pollfd(fd: reading.errorsEnded ? -1 : errors[0], events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 3, wait) < 0 && errno != EINTR {
            endAndReap()
            return .failed("poll failed: \(errorText(errno))")
        }
        if fds[0].revents != 0 {
            endAndReap()
            return .stopped
        }
        if fds[1].revents != 0 { reading.readOutput(output[0]) }
        if fds[2].revents != 0 { reading.readErrors(errors[0]) }
        if reading.overLimit {
            endAndReap()
            return .failed("more than \(limits.maxOutputBytes) bytes of output: ended (output bound)")
        }
        if !leaderEnded && hasExited(pid) {
            leaderEnded = true
            // What it left running (a child holding its output) goes with the run.
            ProcessGroups.end(pid)
        }
    }
    let status = reap(pid)
    if (status & 0x7f) != 0 {
        let name = strsignal(status & 0x7f).map { String(cString: $0) } ?? "signal \(status & 0x7f)"
        return .failed(reading.withFirstErrorLine("ended by signal \(status & 0x7f) (\(name))"))
    }
    let code = (status >> 8) & 0xff
    guard code == 0 else { return .failed(reading.withFirstErrorLine("exit \(code)")) }
    return .output(reading.takeOutput())
}

/// Whether the program has exited, leaving it unreaped (WNOWAIT).
private func hasExited(_ pid: pid_t) -> Bool {
    var info = siginfo_t()
    guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return errno == ECHILD }
    return info._sifields._sigchld.si_pid == pid
}

/// Starts the program as the leader of a new process group, with the default signal
/// dispositions and an empty signal mask.
private func spawnInOwnGroup(_ executable: String, _ arguments: [String], stdout: Int32,
                             stderr: Int32) -> Result<pid_t, SpawnError> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, stdout, 1)
    posix_spawn_file_actions_adddup2(&actions, stderr, 2)
    // Nothing else of ours (a server's client sockets, another run's pipes).
    Posix.closeFrom(3, in: &actions)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    posix_spawnattr_setpgroup(&attributes, 0)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    return rc == 0 ? .success(pid) : .failure(SpawnError(code: rc))
}

private struct SpawnError: Error {
    let code: Int32
}

private func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
private func errorText(_ error: SpawnError) -> String { errorText(error.code) }

/// Waits for the program to end (it leaves no zombie): its wait status.
@discardableResult
private func reap(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

/// A run's two outputs as they are read: standard output whole (up to the bound), standard
/// error only as far as its first line needs.
private struct OutputReading {
    let limit: Int
    /// Standard output so far: `room`'s first `filled` bytes; the rest is zeroed room for the
    /// next reads, grown by doubling (zeroing a read's size for every read would cost as much
    /// as the read asks, however little comes).
    private var room: [UInt8] = []
    private var filled = 0
    var errorStart: [UInt8] = []
    var outputEnded = false
    var errorsEnded = false
    var overLimit: Bool { filled > limit }
    var done: Bool { outputEnded && errorsEnded }
    /// The most one read of standard output asks for.
    private static let readSize = 256 << 10
    /// Standard error kept for the message: its first line is what a person reads.
    private static let errorBytesKept = 4096

    init(limit: Int, expectedBytes: Int) {
        self.limit = min(limit, Int.max - 1)  // `limit + 1` is read to know it was passed
        room.reserveCapacity(min(limit + 1, expectedBytes + expectedBytes / 8 + Self.readSize))
    }

    /// Standard output, whole (up to the bound).
    mutating func takeOutput() -> [UInt8] {
        room.removeLast(room.count - filled)
        return room
    }

    mutating func readOutput(_ fd: Int32) {
        // One byte past the bound is enough to know it was passed: reading stops there.
        let want = min(Self.readSize, max(1, limit + 1 - filled))
        if room.count < filled + want {
            room.append(contentsOf: repeatElement(0, count: min(max(filled + want, 2 * room.count), limit + 1) - room.count))
        }
        // Read straight into the output's room (a buffer to copy from would be a second pass).
        var n: Int
        repeat {
            n = room.withUnsafeMutableBufferPointer { [filled] in read(fd, $0.baseAddress! + filled, want) }
        } while n < 0 && errno == EINTR
        filled += max(0, n)
        if n <= 0 { outputEnded = true }
    }

    mutating func readErrors(_ fd: Int32) {
        // Read to the end all the same (a full pipe would block the program), keeping the start.
        let n = readSome(fd, max: 1 << 16) { bytes in
            errorStart.append(contentsOf: bytes.prefix(max(0, Self.errorBytesKept - errorStart.count)))
        }
        if n <= 0 { errorsEnded = true }
    }

    private func readSome(_ fd: Int32, max: Int, _ take: (UnsafeRawBufferPointer) -> Void) -> Int {
        withUnsafeTemporaryAllocation(byteCount: max, alignment: 1) { buffer in
            var n: Int
            repeat { n = read(fd, buffer.baseAddress, max) } while n < 0 && errno == EINTR
            if n > 0 { take(UnsafeRawBufferPointer(rebasing: buffer[..<n])) }
            return n
        }
    }

    /// `exit 1: error: You must be logged in to the server` — the first line of standard error
    /// that is not blank, cut at a word (with `…`) when it is long.
    func withFirstErrorLine(_ what: String) -> String {
        let text = String(decoding: errorStart, as: UTF8.self)
        guard let line = text.split(whereSeparator: \.isNewline).first(where: { !$0.allSatisfy(\.isWhitespace) }) else {
            return what
        }
        var trimmed = line.drop(while: \.isWhitespace)
        while trimmed.last?.isWhitespace == true { trimmed = trimmed.dropLast() }
        return what + ": " + shortened(trimmed, to: 300)
    }
}

/// `text` up to `limit` characters, cut at the last space before it (with `…`) when longer.
func shortened(_ text: Substring, to limit: Int) -> String {
    guard text.count > limit else { return String(text) }
    let head = text.prefix(limit)
    let cut = head.lastIndex(of: " ").map { head[..<$0] } ?? head
    return String(cut) + "…"
}
