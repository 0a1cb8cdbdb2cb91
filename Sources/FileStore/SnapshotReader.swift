// Reading the whole file as one consistent state, never a mix of two writes.
#if canImport(Glibc)
import Glibc
#endif

/// What one attempt to read the file found.
enum Snapshot: Sendable {
    /// The file's bytes, unchanged while they were read.
    case bytes([UInt8], FileIdentity)
    /// No file at the path.
    case missing
    /// A file that cannot be read; why.
    case unreadable(String)
    /// The file was written to while being read: the bytes may mix two writes.
    case unstable
}

/// Reads files for the store. Sendable (it holds only an immutable descriptor number), but used by
/// one read at a time: the read worker's serial queue, since reads share the inotify queue.
///
/// A read is consistent when the file (the inode opened) was not modified while it was read.
/// Two checks, because each alone has a gap:
/// - `fstat` before and after (size, mtime) — timestamps may be coarse, so two writes of
///   the same length within one clock tick look the same;
/// - an inotify watch on the opened inode itself (through `/proc/self/fd`), added before the
///   first byte is read: every write to that inode after it queues `IN_MODIFY`, so a write that
///   landed during the read is seen when the queue is checked after the last `fstat`.
/// A writer that replaces the file by rename never touches the inode being read, so its
/// reads stay consistent however fast it writes.
final class SnapshotReader: Sendable {
    /// inotify instance for per-read inode watches; -1 where inotify is unavailable.
    private let inodeWatch: Int32

    init() {
        inodeWatch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    }

    deinit { if inodeWatch >= 0 { close(inodeWatch) } }

    /// Reads `path` completely.
    /// - Complexity: O(file size).
    func read(_ path: String) -> Snapshot {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            return code == ENOENT ? .missing : .unreadable(String(cString: strerror(code)))
        }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { return .unreadable(String(cString: strerror(errno))) }
        if (before.st_mode & S_IFMT) == S_IFDIR { return .unreadable("is a directory, not a JSON file") }
        if (before.st_mode & S_IFMT) != S_IFREG { return .unreadable("not a regular file") }

        let wd = watchInode(fd)
        defer { if wd >= 0 { inotify_rm_watch(inodeWatch, wd) } }
        // The watch exists now; take the "before" stat again so that a write between open and
        // the watch counts as before the read, not during it.
        guard fstat(fd, &before) == 0 else { return .unreadable(String(cString: strerror(errno))) }

        // One byte more than the size: reading it means the file grew during the read.
        let expected = Int(before.st_size)
        let capacity = expected + 1
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            var count = 0
            while count < capacity {
                let n = Glibc.read(fd, buffer.baseAddress! + count, capacity - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                if n == 0 { break }
                count += n
            }
            initialized = count
        }
        if failure != 0 { return .unreadable(String(cString: strerror(failure))) }

        var after = stat()
        guard fstat(fd, &after) == 0 else { return .unreadable(String(cString: strerror(errno))) }
        // ctime is left out: it also changes when a rename replaces the file we are reading
        // (its link count drops), which leaves its content whole.
        let identity = FileIdentity(after), start = FileIdentity(before)
        if identity.inode != start.inode || identity.size != start.size || identity.modified != start.modified
            || bytes.count != expected
        {
            return .unstable
        }
        if wd >= 0 && inodeWasModified(wd) { return .unstable }
        return .bytes(bytes, identity)
    }

    /// Watches the inode open as `fd` for writes; -1 when that is not possible.
    private func watchInode(_ fd: Int32) -> Int32 {
        guard inodeWatch >= 0 else { return -1 }
        drainWatch()  // events of earlier reads' watches
        return inotify_add_watch(inodeWatch, "/proc/self/fd/\(fd)", UInt32(IN_MODIFY))
    }

    /// Whether `IN_MODIFY` (or an overflow) was queued for watch `wd`.
    private func inodeWasModified(_ wd: Int32) -> Bool {
        var modified = false
        forEachQueuedEvent { eventWD, mask in
            if eventWD == wd && mask & UInt32(IN_MODIFY) != 0 { modified = true }
            if mask & UInt32(IN_Q_OVERFLOW) != 0 { modified = true }
        }
        return modified
    }

    private func drainWatch() { forEachQueuedEvent { _, _ in } }

    private func forEachQueuedEvent(_ body: (Int32, UInt32) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            while true {
                let n = Glibc.read(inodeWatch, buffer.baseAddress, buffer.count)
                if n <= 0 { return }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= n {
                    let event = buffer.baseAddress!.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    body(event.wd, event.mask)
                    offset += MemoryLayout<inotify_event>.size + Int(event.len)
                }
            }
        }
    }
}
