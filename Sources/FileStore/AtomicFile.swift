// Replacing a file's content atomically, as a compare-and-swap that never overwrites another
// process's edit.
#if canImport(Glibc)
import Glibc
#endif

/// The whole content of a file at one moment, with its identity then.
public struct FileSnapshot: Sendable {
    public let bytes: [UInt8]
    public let identity: FileIdentity

    public init(bytes: [UInt8], identity: FileIdentity) {
        self.bytes = bytes
        self.identity = identity
    }
}

/// Atomic, compare-and-swap replacement of a file's content.
///
/// `AtomicFile.modify(path) { snapshot in newBytes }`:
/// 1. resolves symbolic links (the link's final target is written; the link stays);
/// 2. takes an exclusive `flock` on the target's folder (see *Locking*);
/// 3. reads the file completely and consistently, and asks `transform` for the new content;
/// 4. writes it to a temporary file in the same folder (same permission bits, and owner when
///    allowed), `fsync`s it;
/// 5. checks that the file still is the one read (same inode, size and mtime, same bytes); if
///    not, drops the temporary file and goes back to 3 with the newer content (at most
///    `maxAttempts` times, with a short growing pause), then fails with `.conflict`;
/// 6. swaps the temporary file in with `renameat2(RENAME_EXCHANGE)` (plain `rename` where the
///    file system lacks it) and `fsync`s the folder.
///
/// A crash or kill at any moment leaves the old or the new complete file at the path, since
/// the only change to it is one rename. A killed writer may leave its temporary file,
/// `.NAME.synctable-N.tmp`; the next write to the same file removes it.
///
/// *Locking.* Our writers serialise on an advisory `flock` of the folder. A lock on the file
/// itself would not do: the rename replaces the inode, so a writer that opened the new file
/// would not see the old file's lock. A lock file beside it would be litter. The folder is
/// stable across renames and needs no extra file. (The lock serialises our writes to all files
/// of one folder; they are short. Where the folder cannot be locked — some network file
/// systems — writes go on without it, protected by the check alone.)
///
/// *Guarantees.*
/// - Between writers using this type (threads or processes): every write is applied to the
///   latest content; no update is lost.
/// - Against another program that replaces the file by rename: its edit is never lost. If its
///   rename lands before step 5, the check sees it and our change is re-applied to its
///   content. If it lands in the microseconds between the check and our rename, the exchange
///   hands us the file it wrote (now displaced) instead of destroying it: we see it is not the
///   file we checked, and write its content with our change re-applied — its edit is in the
///   file again within the same call. For that moment (about one `fsync`) the file shows our
///   edit without theirs; a third write that reads the file in that moment and writes it back
///   unlocked can lose their edit — the hazard of any unlocked read-modify-write, which no
///   protocol on our side alone can close. Without `RENAME_EXCHANGE` (plain `rename`), a rename
///   landing in those microseconds is overwritten.
/// - A program that writes the file in place (truncate and write) is not atomic: readers can
///   see its half-written file. Its completed writes are seen by the check like any other.
/// - Not kept: extended attributes, ACLs, hard links (a rename gives the path a new inode).
public enum AtomicFile {
    /// Limits of `modify`.
    public struct Options: Sendable {
        /// Attempts before `.conflict` (each after the file changed under the previous one).
        public var maxAttempts: Int
        /// How long to wait for another of our writers holding the folder's lock.
        public var lockTimeoutMilliseconds: Int

        public init(maxAttempts: Int = 20, lockTimeoutMilliseconds: Int = 10_000) {
            self.maxAttempts = max(1, maxAttempts)
            self.lockTimeoutMilliseconds = max(0, lockTimeoutMilliseconds)
        }
    }

    /// What `modify` did.
    public struct Outcome: Sendable {
        /// The file's content now (and its identity); the content `transform` was last given
        /// when it returned nil.
        public let snapshot: FileSnapshot
        /// Whether the file was replaced.
        public let replaced: Bool
        /// How many times `transform` was asked (1 when nothing changed the file meanwhile).
        public let attempts: Int
    }

    /// Replaces the content of the file at `path` with `transform(current content)`.
    ///
    /// `transform` may be called several times, each time with newer content; it returns nil
    /// to leave the file as it is. Whatever it throws is rethrown (wrapped as needed by the
    /// caller's error type), with the file untouched.
    /// - Throws: `WriteError` (the file is untouched).
    public static func modify(
        _ path: String, options: Options = Options(),
        _ transform: (FileSnapshot) throws(WriteError) -> [UInt8]?
    ) throws(WriteError) -> Outcome {
        var session = try WriteSession(path: path, options: options)
        defer { session.close() }
        return try session.run(transform)
    }

    /// Reads the whole file as one consistent state (retrying while a writer is busy).
    /// - Throws: `.missing`, `.notAFile`, `.system` (unreadable), `.conflict` (never stable).
    public static func read(_ path: String, attempts: Int = 20) throws(WriteError) -> FileSnapshot {
        let reader = SnapshotReader()
        for attempt in 1...max(1, attempts) {
            switch reader.read(path) {
            case .bytes(let bytes, let identity): return FileSnapshot(bytes: bytes, identity: identity)
            case .missing: throw .missing(path: path)
            case .unreadable(let why): throw unreadable(path, why)
            case .unstable: pause(attempt)
            }
        }
        throw .conflict(path: path, attempts: attempts)
    }
}

/// The error for a file `SnapshotReader` found unreadable.
private func unreadable(_ path: String, _ why: String) -> WriteError {
    why.hasPrefix("is a directory") || why.hasPrefix("not a regular") ? .notAFile(path: path) : .unreadable(path: path, reason: why)
}

/// Sleeps a little longer after each failed attempt: 1, 2, 4 … up to 32 ms, with jitter so
/// that two writers do not keep colliding.
func pause(_ attempt: Int) {
    let base = 1_000 << min(attempt - 1, 5)
    usleep(UInt32(base + Int.random(in: 0..<base)))
}

/// Same file, same content as far as `stat` can tell (ctime left out: a rename of the file
/// changes it without changing the content).
func sameFile(_ a: FileIdentity, _ b: FileIdentity) -> Bool {
    a.device == b.device && a.inode == b.inode && a.size == b.size && a.modified == b.modified
}

/// One call of `AtomicFile.modify`: the resolved path, the locked folder, temporary files.
private struct WriteSession {
    let path: String
    let options: AtomicFile.Options
    /// The symlink-resolved file: its folder and name.
    let folder: String
    let name: String
    let folderFD: Int32
    let locked: Bool
    let reader = SnapshotReader()
    /// Names of temporary files to remove at the end (displaced old versions).
    var leftovers: [String] = []
    var nextTemporary = 0

    init(path: String, options: AtomicFile.Options) throws(WriteError) {
        self.path = path
        self.options = options
        guard let resolved = realpath(path, nil) else {
            throw errno == ENOENT ? .missing(path: path) : .system("resolve the path", path: path, errno: errno)
        }
        let target = String(cString: resolved)
        free(resolved)
        let slash = target.utf8.lastIndex(of: UInt8(ascii: "/"))!
        folder = slash == target.utf8.startIndex ? "/" : String(target[..<slash])
        name = String(target[target.utf8.index(after: slash)...])
        folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderFD >= 0 else { throw .system("open the folder", path: folder, errno: errno) }
        do {
            locked = try WriteSession.lock(folderFD, path: path, timeout: options.lockTimeoutMilliseconds)
        } catch {
            Glibc.close(folderFD)
            throw error
        }
    }

    /// Takes the folder's lock; false where the file system cannot lock folders.
    static func lock(_ fd: Int32, path: String, timeout: Int) throws(WriteError) -> Bool {
        let start = monotonicNanoseconds()
        var attempt = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            switch errno {
            case EWOULDBLOCK, EINTR:
                attempt += 1
                if monotonicNanoseconds() - start > UInt64(timeout) * 1_000_000 {
                    throw .lockTimeout(path: path, milliseconds: timeout)
                }
                usleep(UInt32(min(attempt, 20) * 250))
            default:
                return false
            }
        }
        return true
    }

    mutating func close() {
        for leftover in leftovers { unlinkat(folderFD, leftover, 0) }
        leftovers = []
        if locked { flock(folderFD, LOCK_UN) }
        Glibc.close(folderFD)
    }

    /// What must be at the path for our swap to be right: the snapshot we transformed, or
    /// (after a swap displaced another writer's file) the file we wrote.
    struct Expected {
        var identity: FileIdentity
        var bytes: [UInt8]
    }

    mutating func run(_ transform: (FileSnapshot) throws(WriteError) -> [UInt8]?) throws(WriteError) -> AtomicFile.Outcome {
        var displaced: (content: FileSnapshot, ours: Expected)?
        /// Temporary names holding other writers' displaced files, until their edits are back.
        var rescues: [String] = []
        var attempt = 0
        while true {
            attempt += 1
            // Putting a displaced file's edit back may take a few more attempts than the limit.
            guard attempt <= options.maxAttempts || (displaced != nil && attempt <= 2 * options.maxAttempts) else {
                throw .conflict(path: path, attempts: options.maxAttempts)
            }
            let base: FileSnapshot, expected: Expected
            if let d = displaced {
                base = d.content
                expected = d.ours
            } else {
                guard let snapshot = try readTarget(attempt) else { continue }
                base = snapshot
                expected = Expected(identity: snapshot.identity, bytes: snapshot.bytes)
            }
            var content: [UInt8]
            var failure: WriteError?
            do {
                if let new = try transform(base) {
                    content = new
                } else if displaced != nil {
                    // After a displacement the other writer's content must go back anyway.
                    content = base.bytes
                } else {
                    return AtomicFile.Outcome(snapshot: base, replaced: false, attempts: attempt)
                }
            } catch {
                // Our change does not apply to the displaced content: put it back, then fail.
                guard displaced != nil else { throw error }
                content = base.bytes
                failure = error
            }
            if displaced == nil && faccessat(folderFD, name, W_OK, AT_EACCESS) != 0 && errno == EACCES {
                throw .readOnly(path: path)
            }
            let (temporary, written) = try writeTemporary(content, like: base)
            // The check: is the file still the one our content is based on?
            guard isCurrent(expected) else {
                unlinkat(folderFD, temporary, 0)
                // Someone replaced the file we wrote (after a displacement): start again from
                // what is there now.
                displaced = nil
                pause(attempt)
                continue
            }
            let swapped = try swap(temporary)
            if swapped == .exchanged {
                // The temporary name now holds the file we replaced. Was it the one we checked?
                let old = try readSnapshot(folder + "/" + temporary)
                guard sameFile(old.identity, expected.identity) && old.bytes == expected.bytes else {
                    // Another writer replaced the file between our check and our swap: its
                    // file is the one displaced. Put its content back with our change
                    // re-applied. Until then it stays on disk under the temporary name.
                    rescues.append(temporary)
                    displaced = (old, Expected(identity: written, bytes: content))
                    continue
                }
                leftovers.append(temporary)
            }
            leftovers += rescues
            fsync(folderFD)
            if let failure { throw failure }
            return AtomicFile.Outcome(snapshot: FileSnapshot(bytes: content, identity: written), replaced: true, attempts: attempt)
        }
    }

    /// The file's current content; nil (after a pause) when a writer was busy with it.
    func readTarget(_ attempt: Int) throws(WriteError) -> FileSnapshot? {
        switch reader.read(folder + "/" + name) {
        case .bytes(let bytes, let identity): return FileSnapshot(bytes: bytes, identity: identity)
        case .missing: throw .missing(path: path)
        case .unreadable(let why): throw unreadable(path, why)
        case .unstable:
            pause(attempt)
            return nil
        }
    }

    func readSnapshot(_ path: String) throws(WriteError) -> FileSnapshot {
        switch reader.read(path) {
        case .bytes(let bytes, let identity): return FileSnapshot(bytes: bytes, identity: identity)
        case .unreadable(let why): throw unreadable(path, why)
        default: throw .unreadable(path: path, reason: "it changed while being read")
        }
    }

    /// Whether the file at the path is still `expected` (same inode, size, mtime and bytes).
    func isCurrent(_ expected: Expected) -> Bool {
        var st = stat()
        guard fstatat(folderFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0, sameFile(FileIdentity(st), expected.identity) else {
            return false
        }
        // Timestamps can be coarse: a same-size write in place within one tick keeps them.
        guard case .bytes(let bytes, let identity) = reader.read(folder + "/" + name) else { return false }
        return sameFile(identity, expected.identity) && bytes == expected.bytes
    }

    /// Creates `.NAME.synctable-N.tmp` holding `content`, with the mode and owner of `like`'s
    /// file, synced to disk. Returns its name and identity.
    mutating func writeTemporary(_ content: [UInt8], like base: FileSnapshot) throws(WriteError) -> (String, FileIdentity) {
        var st = stat()
        let haveStat = fstatat(folderFD, name, &st, 0) == 0
        var fd: Int32 = -1
        var temporary = ""
        while fd < 0 {
            // Under the lock no other writer of ours is mid-write, so an existing temporary
            // file is a leftover of a killed one. Without the lock, names must be unique.
            temporary = locked
                ? ".\(name).synctable-\(nextTemporary).tmp"
                : ".\(name).synctable-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
            fd = openat(folderFD, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                let code = errno
                guard code == EEXIST else { throw .system("create a temporary file", path: folder + "/" + temporary, errno: code) }
                if locked && !leftovers.contains(temporary) {
                    unlinkat(folderFD, temporary, 0)
                } else {
                    nextTemporary += 1
                }
            }
        }
        nextTemporary += 1
        var ok = false
        defer {
            Glibc.close(fd)
            if !ok { unlinkat(folderFD, temporary, 0) }
        }
        if haveStat {
            // Owner first: chown by a non-root user clears set-id bits, which chmod then restores.
            if fchown(fd, st.st_uid, st.st_gid) != 0 { _ = fchown(fd, uid_t.max, st.st_gid) }
            _ = fchmod(fd, st.st_mode & 0o7777)
        }
        var offset = 0
        while offset < content.count {
            let n = content.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("write a temporary file", path: folder + "/" + temporary, errno: errno)
            }
            offset += n
        }
        guard fsync(fd) == 0 else { throw .system("sync a temporary file", path: folder + "/" + temporary, errno: errno) }
        var written = stat()
        guard fstat(fd, &written) == 0 else { throw .system("stat a temporary file", path: folder + "/" + temporary, errno: errno) }
        ok = true
        return (temporary, FileIdentity(written))
    }

    enum Swap { case renamed, exchanged }

    /// Puts the temporary file at the path: exchanged (the old file now under the temporary
    /// name) or renamed over it.
    func swap(_ temporary: String) throws(WriteError) -> Swap {
        if let exchange = renameExchange {
            if exchange(folderFD, temporary, folderFD, name, renameExchangeFlag) == 0 { return .exchanged }
            let code = errno
            guard code == EINVAL || code == ENOSYS || code == EOPNOTSUPP else {
                unlinkat(folderFD, temporary, 0)
                throw .system("replace the file", path: path, errno: code)
            }
        }
        guard renameat(folderFD, temporary, folderFD, name) == 0 else {
            let code = errno
            unlinkat(folderFD, temporary, 0)
            throw .system("replace the file", path: path, errno: code)
        }
        return .renamed
    }
}

/// `renameat2` from the C library, found at run time: Glibc's module map does not declare it
/// (it needs `_GNU_SOURCE`). nil where the library lacks it.
private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
private let renameExchangeFlag: UInt32 = 1 << 1  // RENAME_EXCHANGE in <linux/fs.h>
private let renameExchange: RenameAt2? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
    return unsafeBitCast(symbol, to: RenameAt2.self)
}()
