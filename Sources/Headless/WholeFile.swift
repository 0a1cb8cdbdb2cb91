// Writing a command's output file whole: the demo's data, a chart's SVG.
#if canImport(Glibc)
import Glibc
#endif

/// Writes `bytes` as the whole of the file at `path`: a new file, or (`replacing`) one that
/// may exist already and is truncated first.
public func writeWholeFile(_ path: String, _ bytes: [UInt8], replacing: Bool) throws(CommandError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (replacing ? O_TRUNC : O_EXCL), 0o644)
    guard fd >= 0 else { throw CommandError("cannot create \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))") }
        done += n
    }
}
