// Child processes for the conformance tests: the Admin SDK's Python scripts and `synctable`.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FileStore
import JSONTree
import Testing
import TestSupport

/// A child process with pipes to its standard input and output; killed when the value goes away.
final class Child {
    let pid: pid_t
    private var input: Int32
    private let output: Int32
    private let errorOutput: Int32
    private var buffer = [UInt8]()
    private var exitStatus: Int32?

    init(_ argv: [String], environment: [String: String] = [:]) throws {
        var pipes = [[Int32]](repeating: [-1, -1], count: 3)
        for i in 0..<3 { try #require(pipe(&pipes[i]) == 0) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipes[0][0], 0)
        posix_spawn_file_actions_adddup2(&actions, pipes[1][1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipes[2][1], 2)
        for p in pipes { for fd in p { posix_spawn_file_actions_addclose(&actions, fd) } }
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let cArgs = argv.map { strdup($0) } + [nil]
        defer {
            cArgs.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, envp)
        close(pipes[0][0])
        close(pipes[1][1])
        close(pipes[2][1])
        try #require(rc == 0, "cannot start \(argv[0])")
        self.pid = pid
        input = pipes[0][1]
        output = pipes[1][0]
        errorOutput = pipes[2][0]
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

    /// Writes a line to the child's standard input.
    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Closes the child's standard input (end of its commands).
    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// The next line of standard output; nil at its end or after `seconds`.
    func readLine(seconds: Double = 60) -> String? {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return line
            }
            let now = monotonicNanoseconds()
            guard now < deadline else { return nil }
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(output, &chunk, chunk.count)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// The next line of standard output as JSON; records an issue (with the child's standard
    /// error) when there is none.
    func readJSON(seconds: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) -> JSON? {
        guard let line = readLine(seconds: seconds) else {
            Issue.record("no output from the child; its standard error: \(standardError())", sourceLocation: sourceLocation)
            return nil
        }
        guard let value = try? JSONDocument(parsing: line).root.json else {
            Issue.record("not JSON: \(line)", sourceLocation: sourceLocation)
            return nil
        }
        return value
    }

    /// What the child wrote to standard error so far.
    func standardError() -> String {
        var out = [UInt8](), chunk = [UInt8](repeating: 0, count: 4096)
        while case let n = read(errorOutput, &chunk, chunk.count), n > 0 { out += chunk[0..<n] }
        return String(decoding: out, as: UTF8.self)
    }

    /// Waits for the child to end; its exit status (128 + n when killed by signal n).
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

/// The Python of the virtual environment `scripts/ensure-firebase-admin.sh` makes (`make test`
/// runs it) with the Admin SDK installed.
func firebasePython() throws -> String {
    let root = packageRoot()
    let python = root + "/.build/firebase-venv/bin/python"
    guard access(python, X_OK) == 0 else {
        throw HTTPTestError(description: "the Firebase Admin SDK is not installed: run scripts/ensure-firebase-admin.sh (make test does)")
    }
    return python
}

/// The package's folder (this file is Tests/ServeTests/Support/Processes.swift in it).
func packageRoot() -> String {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(4)
    return parts.joined(separator: "/")
}

/// Starts one of the Admin SDK scripts of Tests/ServeTests/Python against `port`.
func adminSDK(_ script: String, port: Int, _ arguments: [String] = []) throws -> Child {
    let folder = packageRoot() + "/Tests/ServeTests/Python"
    return try Child([try firebasePython(), folder + "/" + script, String(port)] + arguments,
                     environment: ["PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"])
}

/// Runs `synctable ARGUMENTS` to its end; its standard output.
func synctable(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> (status: Int32, output: String) {
    let child = try Child([try builtProduct("synctable")] + arguments)
    child.closeInput()
    var lines = [String]()
    while let line = child.readLine() { lines.append(line) }
    let status = child.wait()
    if status != 0 { Issue.record("synctable \(arguments): \(child.standardError())", sourceLocation: sourceLocation) }
    return (status, lines.joined(separator: "\n"))
}
