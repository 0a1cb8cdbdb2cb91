// Writing to a JSON Lines file: one record appended as one line, safe beside other appenders.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import StoreInterface

extension FileStore {
    /// Appends `value` to the JSON Lines file at `path` (created when missing) as one line, with
    /// one `write(2)` on an `O_APPEND` descriptor: the kernel places each such write whole at the
    /// end, so lines of processes appending at the same time never interleave.
    /// - Returns: the new line's index (its key): the lines before it, counted after the write.
    /// - Throws: `WriteError`. A line that does not fit (a full disk, a quota) is not left half
    ///   written: the file is cut back to where the line began, under the lock, and the error
    ///   says why (`No space left on device`) and where.
    /// - Complexity: O(file size) to count the lines before the new one.
    @discardableResult
    public static func appendLine(_ value: JSON, toFile path: String) throws(WriteError) -> Int {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            if code == EACCES || code == EROFS { throw .readOnly(path: path) }
            throw .system("open", path: path, errno: code)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .system("stat", path: path, errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .notAFile(path: path) }
        // Our appenders take turns (the lock of the file itself, as every writer of ours): another
        // one's line half copied in would look like a last line without its newline, and get one.
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        guard fstat(fd, &st) == 0 else { throw .system("stat", path: path, errno: errno) }
        var line = value.serialized()
        line.append(0x0A)
        // A last line without its newline would swallow ours: a whole record (a file ending
        // without one) gets its newline; another writer's record still being written is waited
        // for, briefly, and never split.
        if try !lastLineHasEnded(fd, path: path) { line.insert(0x0A, at: 0) }
        var written = 0
        while written < line.count {
            let n = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                // A short write is followed by one that says why (ENOSPC, EDQUOT, EFBIG).
                let code = n < 0 ? errno : EIO
                if written > 0 { cutBack(fd, by: written) }
                throw .system("append to", path: path, errno: code)
            }
            written += n
        }
        // With O_APPEND the offset is now the end of this write, wherever other appenders put theirs.
        let end = lseek(fd, 0, SEEK_CUR)
        guard end >= 0 else { throw .system("seek", path: path, errno: errno) }
        return try countNewlines(path, before: Int64(end) - Int64(line.count) + (line.first == 0x0A ? 1 : 0))
    }

    /// Appends `value` to this store's JSON Lines file (see `appendLine(_:toFile:)`); the new
    /// record reaches observers with the store's next read.
    /// - Throws: `WriteError.appendOnly` for a pipe or a path other than the root.
    @discardableResult
    public func appendLine(_ path: Path, _ value: JSON) throws(WriteError) -> Int {
        guard !isStream else { throw .appendOnly(path: self.path, what: "standard input cannot be written to") }
        guard path.isRoot else {
            throw .appendOnly(path: self.path, what: "a JSON Lines file takes new records at its root (its end), not at \(path)")
        }
        return try FileStore.appendLine(value, toFile: absolutePath)
    }

    /// The refusal of a rewrite (set, update, remove) of the JSON Lines file at `path`.
    public static func appendOnlyError(_ path: String) -> WriteError {
        .appendOnly(path: path, what: "a JSON Lines file is only appended to: set, update and remove would rewrite "
            + "lines that other programs are appending after; use push to append a record")
    }

    /// Takes back the `count` bytes of a line just written in part, while the lock is held: the
    /// file is cut where the line began, unless a writer that does not take the lock appended
    /// after it meanwhile (its bytes are not ours to cut).
    private static func cutBack(_ fd: Int32, by count: Int) {
        let end = lseek(fd, 0, SEEK_CUR)
        var st = stat()
        guard end >= Int64(count), fstat(fd, &st) == 0, Int64(st.st_size) == end else { return }
        while ftruncate(fd, off_t(end) - off_t(count)) != 0 && errno == EINTR {}
    }

    /// How long an append waits for another program's unfinished last line to end.
    public static let unfinishedLineWait = 500

    /// How long an unfinished last line must have stood unchanged (the file not modified) to be
    /// taken as abandoned (its writer killed mid-line): an append then ends it with a newline, so
    /// it stays as it is, a line of its own (an error row), and the log takes records again.
    public static let abandonedLineSeconds = 10

    /// Whether the file is empty or ends with a newline; false when its last line is a whole
    /// record without one, or an abandoned one. Waits up to `unfinishedLineWait` ms for a last
    /// line that is not valid JSON (another writer's record, half written) to end.
    /// - Throws: `WriteError.unfinishedLine` when it does not end in time.
    private static func lastLineHasEnded(_ fd: Int32, path: String) throws(WriteError) -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(unfinishedLineWait) * 1_000_000
        while true {
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw .system("stat", path: path, errno: errno) }
            guard let last = lastLine(path, size: Int64(st.st_size)) else { return true }
            if last.last == 0x0A { return true }
            // A scalar cut short could still parse (`12` of `123`); a record of a log is an object or
            // an array in practice, which parses only once it is whole.
            if last.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) || (try? JSONDocument(parsing: last)) != nil { return false }
            if isAbandoned(st) { return false }
            guard monotonicNanoseconds() < deadline else { throw .unfinishedLine(path: path, milliseconds: unfinishedLineWait) }
            usleep(5_000)
        }
    }

    /// Whether the file has not been modified for `abandonedLineSeconds` (by the wall clock,
    /// which is what the file's time is kept in).
    private static func isAbandoned(_ st: stat) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now.tv_sec - st.st_mtim.tv_sec >= abandonedLineSeconds
    }

    /// The file's last line (from after the newline before it; with its own newline, if it has
    /// one), at most 16 MiB of it; nil for an empty file.
    private static func lastLine(_ path: String, size: Int64) -> [UInt8]? {
        guard size > 0 else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var byte: UInt8 = 0
        guard pread(fd, &byte, 1, off_t(size - 1)) == 1 else { return nil }
        if byte == 0x0A { return [0x0A] }
        let window = Int(min(size, 16 << 20))
        var bytes = [UInt8](repeating: 0, count: window)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, window, off_t(size - Int64(window))) }
        guard n == window else { return nil }
        guard let newline = bytes.lastIndex(of: 0x0A) else { return bytes }
        return Array(bytes[(newline + 1)...])
    }

    private static func countNewlines(_ path: String, before end: Int64) throws(WriteError) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var count = 0, offset: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while offset < end {
            let want = Int(min(Int64(buffer.count), end - offset))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            for b in buffer[0..<n] where b == 0x0A { count += 1 }
            offset += Int64(n)
        }
        return count
    }
}
