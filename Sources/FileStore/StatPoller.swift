// The fallback watch: `stat` the file every 100 ms.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface

/// Notices changes by comparing `stat` results (inode, size, mtime, ctime) between polls.
///
/// Used where inotify is unavailable and while the file's folder does not exist. It can miss
/// two same-length writes within one timestamp tick; inotify, when present, does not.
struct StatPoller {
    let path: String
    /// The last identity seen; nil when the file was missing.
    private var last: FileIdentity?
    private var started = false

    init(path: String) { self.path = path }

    /// Whether the file looks different from the last poll.
    mutating func poll() -> Bool {
        var st = stat()
        let now = stat(path, &st) == 0 ? FileIdentity(st) : nil
        defer { last = now; started = true }
        return !started || now != last
    }
}
