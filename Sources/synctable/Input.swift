// Reading files and standard input, and writing to standard error, without Foundation.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TableUI

/// Why a file could not be read.
struct InputError: Error, CustomStringConvertible {
    let description: String
}

/// Reads a whole file, or standard input for "-".
/// - Throws: `InputError` for a missing or unreadable file, or a directory.
func readInput(_ path: String) throws -> [UInt8] {
    let fd: Int32 = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw InputError(description: "cannot open: \(errnoText())") }
    defer { if fd != 0 { close(fd) } }
    var st = stat()
    if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
        throw InputError(description: "is a directory, not a JSON file")
    }
    var bytes = [UInt8]()
    if (st.st_mode & S_IFMT) == S_IFREG { bytes.reserveCapacity(Int(st.st_size) + 1) }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw InputError(description: "cannot read: \(errnoText())")
        }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return bytes
}

func errnoText() -> String { String(cString: strerror(errno)) }

/// Writes a line to standard error, made safe for the terminal (`terminalSafe`).
func printError(_ line: String) {
    var text = terminalSafe(line) + "\n"
    text.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
}

/// Text for the terminal outside the viewer (messages naming files, keys, values from the
/// command line or a file), sanitised as the viewer's cells are: control and bidirectional
/// characters show as escapes. Line breaks between lines stay line breaks.
func terminalSafe(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { sanitize($0) }.joined(separator: "\n")
}
