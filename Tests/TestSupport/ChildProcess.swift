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
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        let child = try spawnProgram(argv, pipes: [0, 1, 2], environment: env)
        pid = child.pid
        input = child.pipes[0]!
        output = child.pipes[1]!
        errorOutput = child.pipes[2]!
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
        exitStatus = waitForExit(pid)
        return exitStatus!
    }

    /// Waits up to `seconds` for the child to end: its exit status, or nil while it still runs.
    public func wait(seconds: Double) -> Int32? {
        if let exitStatus { return exitStatus }
        exitStatus = waitForExit(pid, seconds: seconds)
        return exitStatus
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

/// The `synctable` built beside the test bundle.
public func synctableBinary() throws -> String { try builtProduct("synctable") }
