// The file calls of the write path, checked as the memory calls are: an interrupted call is
// made again here, once for all callers, and a failure names its call (`PosixError`).
#if canImport(Glibc)
import Glibc
#endif

extension Posix {
    /// `body`'s result, made again while it fails with EINTR.
    /// - Throws: `PosixError` naming `call` when it fails otherwise.
    @discardableResult
    package static func retrying(_ call: String, _ body: () -> Int) throws(PosixError) -> Int {
        while true {
            let result = body()
            if result >= 0 { return result }
            if Glibc.errno != EINTR { throw PosixError(call: call, errno: Glibc.errno) }
        }
    }

    /// Opens `name` in the folder open as `folderFD`.
    package static func open(_ name: String, in folderFD: Int32, _ flags: Int32, mode: mode_t = 0) throws(PosixError) -> Int32 {
        Int32(try retrying("openat(\(name))") { Int(openat(folderFD, name, flags, mode)) })
    }

    /// Writes all of `bytes` to `fd`.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(PosixError) {
        var offset = 0
        while offset < bytes.count {
            offset += try retrying("write") { Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
        }
    }

    /// Makes `fd`'s file durable.
    package static func fsync(_ fd: Int32) throws(PosixError) {
        try retrying("fsync") { Int(Glibc.fsync(fd)) }
    }

    /// Renames `from` to `to`, both in the folder open as `folderFD`.
    package static func rename(_ from: String, to: String, in folderFD: Int32) throws(PosixError) {
        try retrying("renameat(\(from), \(to))") { Int(renameat(folderFD, from, folderFD, to)) }
    }
}
