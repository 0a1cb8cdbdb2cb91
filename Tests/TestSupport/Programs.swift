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
    let child = try spawnProgram([path] + arguments, pipes: capture ? [1, 2] : [], devNull: capture ? [0] : [0, 1, 2],
                                 environment: environment)
    var output: [UInt8] = []
    var errors: [UInt8] = []
    if capture {
        // Both pipes at once, so that neither can fill up and stall the program.
        var fds = [pollfd(fd: child.pipes[1]!, events: Int16(POLLIN), revents: 0), pollfd(fd: child.pipes[2]!, events: Int16(POLLIN), revents: 0)]
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
    return ProgramResult(status: waitForExit(child.pid), output: String(decoding: output, as: UTF8.self),
                         errors: String(decoding: errors, as: UTF8.self))
}
