// Reading files and standard input, and writing to standard error, without Foundation.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TableUI

/// Why a file could not be read.
public struct InputError: Error, CustomStringConvertible {
    public let description: String
}

/// The most a command reads from a file or a stream unless `--max-size` says otherwise: a
/// bound the user can see and raise, so that `/dev/zero` or an endless pipe cannot fill memory.
public let defaultMaxInputBytes = 2 << 30

/// Reads a whole regular file, or a stream: standard input for "-", or a pipe (`<(command)`).
/// - Parameter maxBytes: more than this is an error (see `defaultMaxInputBytes`).
/// - Throws: `InputError` for a missing or unreadable file, a directory, a device or other
///   file that is neither regular nor a pipe, and input longer than `maxBytes`.
public func readInput(_ path: String, maxBytes: Int = defaultMaxInputBytes) throws -> [UInt8] {
    let fd: Int32 = path == "-" ? CommandIO.current.input : open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw InputError(description: "cannot open: \(errnoText())") }
    defer { if path != "-" { close(fd) } }
    var st = stat()
    guard fstat(fd, &st) == 0 else { throw InputError(description: "cannot read: \(errnoText())") }
    let type = st.st_mode & S_IFMT
    if type == S_IFDIR { throw InputError(description: "is a directory, not a JSON file") }
    if path != "-" && type != S_IFREG && type != S_IFIFO {
        throw InputError(description: "not a regular file (nor a pipe)")
    }
    let tooLong = InputError(description: "longer than \(maxBytes) bytes (raise the limit with --max-size)")
    if type == S_IFREG && Int(st.st_size) > maxBytes { throw tooLong }
    var bytes = [UInt8]()
    if type == S_IFREG { bytes.reserveCapacity(Int(st.st_size) + 1) }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw InputError(description: "cannot read: \(errnoText())")
        }
        if n == 0 { break }
        guard bytes.count + n <= maxBytes else { throw tooLong }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return bytes
}

public func errnoText() -> String { String(cString: strerror(errno)) }

/// Writes a line to standard error (`CommandIO.current`), made safe for the terminal (`terminalSafe`).
public func printError(_ line: String) {
    _ = writeAll(Array((terminalSafe(line) + "\n").utf8), to: CommandIO.current.errors)
}

/// Text for the terminal outside the viewer (messages naming files, keys, values from the
/// command line or a file), sanitised as the viewer's cells are: control and bidirectional
/// characters show as escapes. Line breaks between lines stay line breaks.
public func terminalSafe(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { sanitize($0) }.joined(separator: "\n")
}
