// Watching the file's folder with inotify, so that every way of saving the file is seen.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface

/// What the folder watch saw about the file since it was last drained.
struct FileEvents {
    /// The file may have changed: read it.
    var changed = false
    /// The file's content (or which file is at the path) may have changed — not only closed after
    /// writing or touched: a read in flight is then out of date.
    var contentChanged = false
    /// The last event says a writer has finished (close after writing, rename into place,
    /// attributes): a problem found now is the file's state, not a save in progress.
    var complete = false
    /// A watched folder went away (deleted, renamed, unmounted): fall back to polling.
    var folderLost = false
    /// The event queue overflowed: anything may have changed.
    var overflowed = false
}

/// inotify on the folder of the file (and on the folder of its target, when the path is a
/// symbolic link), filtered by name.
///
/// The folder, not the file, is watched because editors replace the file: a watch on the
/// file's inode would follow the old inode into the backup or the trash. In-place writes
/// show as `IN_MODIFY`…`IN_CLOSE_WRITE`, atomic saves as `IN_MOVED_TO`, vim's default save as
/// `IN_MOVED_FROM` then `IN_CREATE`…`IN_CLOSE_WRITE`, deletion as `IN_DELETE`.
final class FolderWatch {
    static let mask = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    private let descriptor: OwnedDescriptor
    /// The file's path (absolute).
    private let path: String
    /// Watched folders: watch descriptor → the names in that folder that matter (two when a
    /// link and its target share a folder).
    private var names: [Int32: [[UInt8]]] = [:]

    /// nil when inotify is not available (`inotify_init1` fails).
    init?(path: String) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        descriptor = OwnedDescriptor(fd)
        self.path = path
    }

    var fd: Int32 { descriptor.raw }

    /// Whether the file's own folder is watched.
    private(set) var isWatching = false

    /// Watches the file's folder, and its link target's folder when the path is a symlink.
    /// - Returns: false when the file's folder cannot be watched (it does not exist).
    @discardableResult
    func watch() -> Bool {
        var wanted = [splitPath(path)]
        if let target = linkTarget(path), target != path { wanted.append(splitPath(target)) }
        var watched: [Int32: [[UInt8]]] = [:]
        var ownFolderWatched = false
        for (i, (folder, name)) in wanted.enumerated() {
            let wd = inotify_add_watch(descriptor.raw, folder, Self.mask)
            guard wd >= 0 else { continue }
            watched[wd, default: []].append(name)
            // The first entry is the path's own folder; without it the file cannot be followed.
            if i == 0 { ownFolderWatched = true }
        }
        for wd in names.keys where watched[wd] == nil { inotify_rm_watch(descriptor.raw, wd) }
        names = watched
        isWatching = ownFolderWatched
        return ownFolderWatched
    }

    /// Stops watching every folder (events already queued are dropped by the next drain).
    func unwatch() {
        for wd in names.keys { inotify_rm_watch(descriptor.raw, wd) }
        names = [:]
        isWatching = false
    }

    /// Reads every queued event.
    /// - Complexity: O(events queued), each compared by name.
    func drain() -> FileEvents {
        var events = FileEvents()
        var linkChanged = false
        withUnsafeTemporaryAllocation(byteCount: 64 * 1024, alignment: 8) { buffer in
            while true {
                let n = read(descriptor.raw, buffer.baseAddress, buffer.count)
                if n <= 0 { return }
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= n {
                    let event = buffer.baseAddress!.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = buffer.baseAddress! + offset + header
                    offset += header + Int(event.len)
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        events.overflowed = true
                        events.changed = true
                        events.contentChanged = true
                        continue
                    }
                    guard let wanted = names[event.wd] else { continue }
                    if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT) != 0 {
                        events.folderLost = true
                        events.changed = true
                        events.contentChanged = true
                        continue
                    }
                    guard event.len > 0, wanted.contains(where: { nameMatches(nameStart, Int(event.len), $0) }) else {
                        continue
                    }
                    events.changed = true
                    events.complete = event.mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_ATTRIB) != 0
                    if event.mask & UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) != 0 {
                        events.contentChanged = true
                    }
                    if event.mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) != 0 {
                        linkChanged = true
                    }
                }
            }
        }
        // The path was replaced: if it is (or was) a symlink, its target's folder may differ now.
        if linkChanged && !events.folderLost { watch() }
        return events
    }

    /// Whether the NUL-padded inotify name equals `name`.
    private func nameMatches(_ p: UnsafeMutableRawPointer, _ length: Int, _ name: [UInt8]) -> Bool {
        let bytes = p.assumingMemoryBound(to: UInt8.self)
        let actual = strnlen(p.assumingMemoryBound(to: CChar.self), length)
        guard actual == name.count else { return false }
        for i in 0..<actual where bytes[i] != name[i] { return false }
        return true
    }
}

/// The folder and the name of a path ("/a/b.json" → ("/a", "b.json")).
func splitPath(_ path: String) -> (folder: String, name: [UInt8]) {
    let bytes = Array(path.utf8)
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return (".", bytes) }
    let folder = slash == 0 ? "/" : String(decoding: bytes[..<slash], as: UTF8.self)
    return (folder, Array(bytes[(slash + 1)...]))
}

/// The fully resolved target when `path` is a symbolic link; nil otherwise (or when it dangles).
func linkTarget(_ path: String) -> String? {
    var st = stat()
    guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return nil }
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

extension FileStore {
/// `path` made absolute against the current directory, so that a later `chdir` cannot redirect it.
static func absolute(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    guard let cwd = getcwd(nil, 0) else { return path }
    defer { free(cwd) }
    let base = String(cString: cwd)
    return (base == "/" ? "" : base) + "/" + path
}
}
