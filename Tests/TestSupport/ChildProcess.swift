// A program running beside a test, with pipes to its standard input, output and error: the
// test writes to it, reads its output line by line as it comes, signals it and waits for it.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A child process; killed (SIGKILL) and reaped when the value goes away if it has not ended.
public final class ChildProcess {
    public let pid: pid_t
    private var input: Int32
    private let output: Int32
    private let errorOutput: Int32
    private var buffer = [UInt8]()
    public private(set) var exitStatus: Int32?

    /// Starts `argv` (argv[0] is a path).
    /// - Parameters:
    ///   - environment: added to (or replacing entries of) this process's environment.
    ///   - directory: its working folder; this process's when nil.
    public init(_ argv: [String], environment: [String: String] = [:], directory: String? = nil) throws {
        // In another folder through the shell: `cd` there, then `exec` the program itself.
        let argv = directory.map { ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, $0] + argv } ?? argv
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let cArgs = argv.map { strdup($0) } + [nil]
        defer {
            cArgs.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        var pipes = [[Int32]](repeating: [-1, -1], count: 3)
        // Tests run in parallel: a pipe end leaking into another test's child would keep this
        // child's input or output from ending. So the pipes are made close-on-exec (dup2 onto
        // 0, 1, 2 clears that in the child), and made and spawned under runProgram's lock.
        let rc = spawnLock.withLock { _ -> Int32 in
            for i in 0..<3 {
                guard pipe(&pipes[i]) == 0 else {
                    pipes[..<i].forEach { $0.forEach { close($0) } }
                    return EMFILE
                }
                for fd in pipes[i] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            }
            posix_spawn_file_actions_adddup2(&actions, pipes[0][0], 0)
            posix_spawn_file_actions_adddup2(&actions, pipes[1][1], 1)
            posix_spawn_file_actions_adddup2(&actions, pipes[2][1], 2)
            return posix_spawn(&pid, argv[0], &actions, nil, cArgs, envp)
        }
        guard pipes[2][1] >= 0 else { throw ChildProcessError(description: "cannot make pipes for \(argv[0])") }
        close(pipes[0][0])
        close(pipes[1][1])
        close(pipes[2][1])
        guard rc == 0 else {
            close(pipes[0][1])
            close(pipes[1][0])
            close(pipes[2][0])
            throw ChildProcessError(description: "cannot start \(argv[0]): errno \(rc)")
        }
        self.pid = pid
        input = pipes[0][1]
        output = pipes[1][0]
        errorOutput = pipes[2][0]
        // Standard error is read on demand (what was written so far), never waited for.
        _ = fcntl(errorOutput, F_SETFL, O_NONBLOCK)
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            wait()
        }
        if input >= 0 { close(input) }
        close(output)
        close(errorOutput)
    }

    /// Writes `text` to the child's standard input (all of it, unless the child closed it).
    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count, input >= 0 {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Writes a line to the child's standard input.
    public func send(_ line: String) { write(line + "\n") }

    /// Closes the child's standard input (the end of what it is given).
    public func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// The next line of standard output; nil at its end or after `seconds`.
    public func readLine(seconds: Double = 60) -> String? {
        let deadline = Self.now() + UInt64(seconds * 1e9)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return line
            }
            let now = Self.now()
            guard now < deadline else { return nil }
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(output, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Lines until one satisfies `stop` (included), or until the output ends or `seconds` pass
    /// without a line.
    public func readLines(until stop: (String) -> Bool, seconds: Double = 60) -> [String] {
        var lines = [String]()
        while let line = readLine(seconds: seconds) {
            lines.append(line)
            if stop(line) { break }
        }
        return lines
    }

    /// What the child wrote to standard error so far (all of it once it has ended).
    public func standardError() -> String {
        var out = [UInt8](), chunk = [UInt8](repeating: 0, count: 4096)
        while case let n = read(errorOutput, &chunk, chunk.count), n > 0 { out += chunk[0..<n] }
        return String(decoding: out, as: UTF8.self)
    }

    /// Sends `sig` to the child.
    public func signal(_ sig: Int32) { kill(pid, sig) }

    /// Waits for the child to end; its exit status (128 + n when killed by signal n).
    @discardableResult
    public func wait() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    /// Waits up to `seconds` for the child to end: its exit status, or nil while it still runs.
    public func wait(seconds: Double) -> Int32? {
        if let exitStatus { return exitStatus }
        let deadline = Self.now() + UInt64(seconds * 1e9)
        var status: Int32 = 0
        while Self.now() < deadline {
            let ended = waitpid(pid, &status, WNOHANG)
            if ended == pid {
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                return exitStatus
            }
            usleep(10_000)
        }
        return nil
    }

    private static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }
}

/// The debug `synctable` built beside the test bundle.
public func synctableBinary() throws -> String { try builtProduct("synctable") }
