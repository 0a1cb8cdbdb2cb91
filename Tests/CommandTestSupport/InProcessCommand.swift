// Running a command in-process, as `synctable ARGUMENTS` would run it (argument-parser's
// AssertExecuteCommand, without a process): its standard input given, its output and errors
// captured, its exit status returned.
#if canImport(Glibc)
import Glibc
#endif
import Commands
import Foundation
import Headless
import TestSupport

/// What a command printed and returned.
public struct CommandResult {
    public var status: Int32
    public var output: String
    public var errors: String
}

/// Runs `synctable arguments` in this process.
/// - Parameters:
///   - stdin: its standard input (a pipe that ends after it); an empty one when nil.
///   - folder: a folder whose path, and the slash after it, is left out of the output (as a
///     command run there on a relative path would print it; a process has one working folder,
///     shared by the tests running at once, so every path given is absolute).
public func synctable(_ arguments: [String], stdin: String? = nil, folder: String? = nil) throws -> CommandResult {
    let output = try CapturedOutput(), errors = try CapturedOutput()
    let input = try InputPipe(stdin ?? "")
    let status = SyncTable.run(arguments, io: CommandIO(input: input.fd, output: output.fd, errors: errors.fd))
    var result = CommandResult(status: status, output: output.text(), errors: errors.text())
    if let folder {
        result.output = result.output.replacingOccurrences(of: folder + "/", with: "")
        result.errors = result.errors.replacingOccurrences(of: folder + "/", with: "")
    }
    return result
}

/// An unnamed temporary file that takes what a command writes (a pipe could fill up while the
/// command, on this thread, waits for room).
private final class CapturedOutput {
    let fd: Int32

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/synctable-output-XXXXXX").utf8CString)
        fd = closeOnExecTemporaryFile(&template)
        guard fd >= 0 else { throw ChildProcessError(description: "cannot make a file for the output: errno \(errno)") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }

    deinit { close(fd) }

    /// Everything written so far.
    func text() -> String {
        var bytes = [UInt8](), chunk = [UInt8](repeating: 0, count: 65536)
        var offset: off_t = 0
        while case let n = pread(fd, &chunk, chunk.count, offset), n > 0 {
            bytes += chunk[0..<n]
            offset += off_t(n)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A pipe holding `text` and then its end, as a shell's `printf … | synctable` gives.
private final class InputPipe {
    let fd: Int32

    /// - Throws: for more than the pipe holds (64 KiB), which would wait for the command to read.
    init(_ text: String) throws {
        guard let ends = closeOnExecPipe() else { throw ChildProcessError(description: "cannot make a pipe: errno \(errno)") }
        fd = ends[0]
        defer { close(ends[1]) }
        let bytes = Array(text.utf8)
        guard bytes.count <= 65536, bytes.withUnsafeBytes({ write(ends[1], $0.baseAddress, $0.count) }) == bytes.count else {
            throw ChildProcessError(description: "standard input of \(bytes.count) bytes does not fit in a pipe")
        }
    }

    deinit { close(fd) }
}
