// Replacing a file's content atomically, as a compare-and-swap that never overwrites another
// process's edit.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
import JSONTree
import Synchronization
import StoreInterface

/// The whole content of a file at one moment, with its identity then.
public struct FileSnapshot: Sendable {
    public let bytes: DocumentBytes
    public let identity: FileIdentity

    public init(bytes: DocumentBytes, identity: FileIdentity) {
        self.bytes = bytes
        self.identity = identity
    }
}

/// New content for a file, given piece by piece: a writer copies each piece to the temporary
/// file, so an edit made of the old file's bytes around a new value never needs the whole new
/// file in memory.
public protocol FileContent {
    /// Calls `body` with the content's bytes in order; stops when `body` returns false.
    /// - Returns: whether every piece was given.
    @discardableResult
    func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Bool) rethrows -> Bool
}

extension Array: FileContent where Element == UInt8 {
    @discardableResult
    public func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Bool) rethrows -> Bool {
        try withUnsafeBytes(body)
    }
}

extension DocumentBytes: FileContent {
    @discardableResult
    public func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Bool) rethrows -> Bool {
        try withUnsafeBufferPointer { p -> Bool in try body(UnsafeRawBufferPointer(p)) }
    }
}

/// Atomic, compare-and-swap replacement of a file's content.
///
/// `AtomicFile.modify(path) { snapshot in newBytes }`:
/// 1. resolves symbolic links (the link's final target is written; the link stays);
/// 2. takes an exclusive `flock` on the target file itself (see *Locking*);
/// 3. reads the file completely and consistently, and asks `transform` for the new content;
/// 4. writes it to a new temporary file in the same folder (same permission bits, and owner
///    when allowed) on a thread of its own, handing it to the disk as it goes, and `fsync`s
///    it; a transform may start this before it has finished (`EarlyWrite`);
/// 5. checks that the file still holds the bytes read — a file mapped, or read and watched
///    since before its read (from `kernelCopyThreshold` bytes on a local file system), by its
///    inotify watch; any other by comparing its bytes while the temporary file is written, on
///    whichever thread is free — then (last, a few microseconds before the swap) that it
///    still is the same file: inode, size, mtime. If not, it drops the temporary file and goes
///    back to 3 with the newer content — at most `maxAttempts` times, with a short growing
///    pause — then fails with `.conflict`;
/// 6. swaps the temporary file in with `renameat2(RENAME_EXCHANGE)` (plain `rename` where the
///    file system lacks it), removes the old file and `fsync`s the folder.
///
/// A crash or kill at any moment leaves the old or the new complete file at the path, since
/// the only change to it is one rename.
///
/// *Temporary files.* Each is new: created unnamed (`O_TMPFILE`) and given a unique name
/// (`.NAME.synctable-PID-RANDOM.tmp`, `linkat`) only just before the swap, or, where the file
/// system cannot, created under such a name with `O_EXCL`. A name that exists already is never
/// removed or reused (in a shared folder it may be another user's): the next random name is
/// tried, a bounded number of times. A writer killed between the naming and the removal of
/// the old file (microseconds; without `O_TMPFILE`, while it writes) leaves a name: a command
/// whose write is its last act has a helper remove it as soon as it has exited
/// (`ReplacedFileRelease`), and any later write of the file removes such names of ended
/// processes (`removeLeftovers`).
///
/// *Locking.* Our writers serialise on an advisory `flock` of the file itself, held from the
/// read to the swap, so writers of different files never wait for each other. The swap
/// replaces the file's inode, so a writer that locked the old inode may hold a lock nobody
/// else needs any more: after taking the lock, a writer checks that the path still names the
/// inode it locked, and otherwise locks the new one. Where the file cannot be locked (some
/// network file systems, a file this user cannot open), writes go on without it, protected by
/// the check alone.
///
/// *Guarantees.*
/// - Between writers using this type (threads or processes): every write is applied to the
///   latest content; no update is lost.
/// - Against another program that replaces the file by rename (unlocked read, modify, write a
///   temporary file, rename): our write never loses its edit. If its rename lands before the
///   last check, the check sees it and our change is applied again to its content. If it lands
///   in the microseconds between that check and our swap, the exchange does not destroy its
///   file but hands it to us: we see it is not the file we checked, exchange it back at once
///   (our content, without its edit, was at the path for a few microseconds) and apply our
///   change again to its content. Two hazards remain, both of the other program's unlocked
///   read-modify-write, not something our side alone can close: it may read our content in
///   those microseconds and base its next write on it; and if a second rename of its own lands
///   in the same microseconds, the newest of its files is kept, as it would be without us.
///   Without `RENAME_EXCHANGE` (plain `rename`), a rename landing in that window is overwritten.
/// - A program that writes the file in place (truncate and write) is not atomic: readers can
///   see its half-written file. Its completed writes are seen by the check like any other,
///   except, where the bytes are compared, one of the same size within the same clock tick
///   landing after the comparison, and, where a watch answers, one still running at the swap.
/// - Not kept: extended attributes, ACLs, hard links (a rename gives the path a new inode).
public enum AtomicFile {
    /// Limits of `modify`.
    public struct Options: Sendable {
        /// Attempts before `.conflict` (each after the file changed under the previous one).
        public var maxAttempts: Int
        /// How long to wait for another of our writers holding the folder's lock.
        public var lockTimeoutMilliseconds: Int

        /// Tests only: called between the check and the swap, to put another writer's rename
        /// in that window.
        var beforeSwap: (@Sendable () -> Void)?
        /// Tests only: called with the attempt's number once the file is read (or mapped), to
        /// change it while its bytes are in use.
        var afterRead: (@Sendable (Int) -> Void)?
        /// Tests only: called with the attempt's number just before a file not mapped is read
        /// (once it is open and watched for the kernel's copy), to replace it there.
        var beforeRead: (@Sendable (Int) -> Void)?
        /// Tests only: false makes temporary files named from the start (as on file systems
        /// without `O_TMPFILE`).
        var unnamedTemporaries = true
        /// Tests only: told, for each temporary file, how many of its bytes the kernel copied
        /// from the old file (`copy_file_range`).
        var copiedByKernel: (@Sendable (Int) -> Void)?
        /// Tests only: called before each piece the kernel copies, to change the file under it.
        var beforeKernelCopy: (@Sendable () -> Void)?
        /// Files read rather than mapped have their unchanged bytes copied by the kernel from
        /// this size on, in pieces of at least this size or 4 KiB, whichever is less
        /// (`KernelCopySource`); tests lower it.
        var kernelCopyThreshold = 1 << 20
        /// Files this large or larger are mapped, not read (`SnapshotReader.map`); nil: never.
        /// Only for a write whose caller keeps nothing of the content it was given, since
        /// those bytes change if the file is later written in place.
        var mappingThreshold: Int?
        /// Whether the file a swap replaced is freed by a helper process once this process
        /// has exited (`ReplacedFileRelease`), not as this one lets go of it: for a command
        /// whose write is its last act, so that it does not wait for the file system to free
        /// the old file's blocks. Only where the tuning has the helper (`replacedFileHelper`).
        public var freesReplacedFileAfterExit = false
        /// What the write may use beyond one thread and `read(2)`: a second thread writing the
        /// temporary file while this one checks the file (`secondThread`), a mapping of a large
        /// file (`mappedReads`), the helper above. The process's, unless a test says otherwise.
        var tuning = EngineTuning.current

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

    /// What `modify(_:options:writing:)` did.
    public struct ContentOutcome<Content: FileContent> {
        /// The content `transform` was last given.
        public let base: FileSnapshot
        /// What it returned then: the file's content now; nil when the file was left as it was.
        public let written: Content?
        /// The file's identity now.
        public let identity: FileIdentity
        /// How many times `transform` was asked.
        public let attempts: Int
        /// Whether the file written is the one `transform` started early (`EarlyWrite`).
        public var wroteEarly = false
    }

    /// Replaces the content of the file at `path` with `transform(current content)`, as
    /// `modify(_:options:_:)` does, with the new content given piece by piece (`FileContent`).
    /// - Throws: `WriteError` (the file is untouched).
    public static func modify<Content: FileContent>(
        _ path: String, options: Options = Options(),
        writing transform: (FileSnapshot) throws(WriteError) -> Content?
    ) throws(WriteError) -> ContentOutcome<Content> {
        try modify(path, options: options) { snapshot, _ throws(WriteError) in try transform(snapshot) }
    }

    /// Replaces the content of the file at `path` with `transform(current content)`, as
    /// `modify(_:options:writing:)` does, where `transform` may start writing the content it
    /// expects to return before it has finished (`EarlyWrite`).
    /// - Throws: `WriteError` (the file is untouched).
    public static func modify<Content: FileContent>(
        _ path: String, options: Options = Options(),
        writingEarly transform: (FileSnapshot, EarlyWrite) throws(WriteError) -> Content?
    ) throws(WriteError) -> ContentOutcome<Content> {
        let session = try WriteSession(path: path, options: options)
        defer { session.close() }
        return try session.run(transform)
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
        let outcome = try modify(path, options: options, writing: transform)
        let snapshot = outcome.written.map { FileSnapshot(bytes: DocumentBytes($0), identity: outcome.identity) } ?? outcome.base
        return Outcome(snapshot: snapshot, replaced: outcome.written != nil, attempts: outcome.attempts)
    }

    /// Reads the whole file as one consistent state (retrying while a writer is busy).
    /// - Throws: `.missing`, `.notAFile`, `.unreadable`, `.conflict` (never stable while read).
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

extension AtomicFile.ContentOutcome: Sendable where Content: Sendable {}

/// A head start for a write: the content a transform expects to return, written to the
/// temporary file (and synced) on a thread of its own while the transform goes on. A writer
/// that checks the whole file before it changes one value can know that value's new bytes
/// long before it has finished checking the rest, and the disk then works meanwhile.
///
/// After `start(content)`, the transform returns that same content, or calls `cancel()`
/// first (the guess was wrong) and returns whatever it likes: the write started is dropped.
public final class EarlyWrite {
    private let begin: (any FileContent) -> ThreadWork<WriteSession.WrittenTemporary>
    private let stop = OnceFlag()
    private(set) var work: ThreadWork<WriteSession.WrittenTemporary>?

    fileprivate init(begin: @escaping (any FileContent, OnceFlag) -> ThreadWork<WriteSession.WrittenTemporary>) {
        let stop = stop
        self.begin = { begin($0, stop) }
    }

    /// Starts writing `content` (once; later calls are ignored).
    public func start(_ content: some FileContent) {
        guard work == nil else { return }
        work = begin(content)
    }

    /// Whether a write was started and not cancelled.
    public var isStarted: Bool { work != nil && !stop.isSet }

    /// Drops the write started, if any: it stops at its next step, and its file is removed.
    public func cancel() {
        guard let work, !stop.isSet else { return }
        stop.set()
        if case .success(let temporary) = work.join().temporary { temporary.drop() }
    }
}

/// A flag set once, by whichever thread comes first, and read by the others.
final class OnceFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    /// Sets it.
    /// - Returns: whether this call was the one that set it.
    @discardableResult
    func set() -> Bool { flag.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged }
    var isSet: Bool { flag.load(ordering: .acquiring) }
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

/// One call of `AtomicFile.modify`: the resolved path, the locked file, temporary files.
struct WriteSession {
    let path: String
    let options: AtomicFile.Options
    /// The symlink-resolved file: its folder and name.
    let folder: String
    let name: String
    let folderFD: Int32
    /// The file, open and locked; -1 where it could not be locked.
    let lockFD: Int32
    let reader: SnapshotReader

    init(path: String, options: AtomicFile.Options) throws(WriteError) {
        self.path = path
        self.options = options
        reader = SnapshotReader(tuning: options.tuning)
        guard let resolved = realpath(path, nil) else {
            throw errno == ENOENT ? .missing(path: path) : .system("resolve the path", path: path, errno: errno)
        }
        let target = String(cString: resolved)
        free(resolved)
        let slash = target.utf8.lastIndex(of: UInt8(ascii: "/"))!
        folder = slash == target.utf8.startIndex ? "/" : String(target[..<slash])
        name = String(target[target.utf8.index(after: slash)...])
        folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderFD >= 0 else { throw .system("open the folder \(folder)", path: path, errno: errno) }
        do {
            lockFD = try WriteSession.lock(name, in: folderFD, path: path, timeout: options.lockTimeoutMilliseconds)
        } catch {
            Glibc.close(folderFD)
            throw error
        }
        removeLeftovers()
    }

    /// Opens and locks the file `name` in the folder, making sure the lock is on the inode the
    /// name still holds (another writer's swap may have replaced it while we waited).
    /// - Returns: the locked descriptor; -1 where the file cannot be locked (the check alone
    ///   protects the write then).
    static func lock(_ name: String, in folderFD: Int32, path: String, timeout: Int) throws(WriteError) -> Int32 {
        let start = monotonicNanoseconds()
        var attempt = 0
        while true {
            // Non-blocking: opening a FIFO for reading would wait for a writer.
            let fd = openat(folderFD, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
            guard fd >= 0 else {
                if errno == ENOENT { throw .missing(path: path) }
                return -1
            }
            var locked = flock(fd, LOCK_EX | LOCK_NB) == 0
            while !locked {
                let code = errno
                guard code == EWOULDBLOCK || code == EINTR else {
                    Glibc.close(fd)
                    return -1
                }
                attempt += 1
                if monotonicNanoseconds() - start > UInt64(timeout) * 1_000_000 {
                    Glibc.close(fd)
                    throw .lockTimeout(path: path, milliseconds: timeout)
                }
                usleep(UInt32(min(attempt, 20) * 250))
                locked = flock(fd, LOCK_EX | LOCK_NB) == 0
            }
            var held = stat(), named = stat()
            if fstat(fd, &held) == 0, fstatat(folderFD, name, &named, AT_SYMLINK_NOFOLLOW) == 0,
                held.st_dev == named.st_dev, held.st_ino == named.st_ino
            {
                return fd
            }
            // Replaced while we waited (or gone): lock whatever the name holds now.
            Glibc.close(fd)
            if monotonicNanoseconds() - start > UInt64(timeout) * 1_000_000 {
                throw .lockTimeout(path: path, milliseconds: timeout)
            }
        }
    }

    /// Closing the descriptor releases the lock.
    func close() {
        if lockFD >= 0 { Glibc.close(lockFD) }
        Glibc.close(folderFD)
    }

    /// What one attempt of `run` came to.
    enum Step<Content: FileContent> {
        /// The file changed under the attempt (or a writer was busy with it): try again.
        case again
        case done(AtomicFile.ContentOutcome<Content>)
    }

    /// What an attempt read: the file's content, and its mapping when mapped rather than read.
    struct Read {
        let base: FileSnapshot
        let mapping: FileMapping?
        /// The file, for the kernel to copy the content's unchanged bytes from; nil: written.
        let source: KernelCopySource?
        /// Set by whichever thread makes the slow half of the check (`hasBytes`), or at once
        /// where no such check is made (mapped, `isWatched`).
        let checking = OnceFlag()

        /// Whether the file read is watched for writes since before the read (a read file's
        /// source always is): then the watch, asked at the swap, answers for the bytes, and no
        /// check reads them again.
        var isWatched: Bool { mapping == nil && source != nil }
    }

    /// The tuned writer (`AtomicFile.modifyPlainly` is its plain twin, which must leave the
    /// same bytes): attempts until one is done, or `maxAttempts` found the file changing.
    func run<Content: FileContent>(
        _ transform: (FileSnapshot, EarlyWrite) throws(WriteError) -> Content?
    ) throws(WriteError) -> AtomicFile.ContentOutcome<Content> {
        // Whether a helper holds the file for after this process's exit (`guardUntilExit`).
        var guarded = false
        for attempt in 1...options.maxAttempts {
            guard let (base, mapping, watched) = try readTarget(attempt, watching: true) else { continue }
            if !guarded && options.freesReplacedFileAfterExit && options.tuning.replacedFileHelper { guarded = guardUntilExit() }
            options.afterRead?(attempt)
            let read = Read(base: base, mapping: mapping, source: copySource(base, mapped: mapping != nil, watched: watched))
            // A mapped file's check is quick, and made once the writer is done; a file watched
            // since before its read needs none (`Read.isWatched`).
            if mapping != nil || read.isWatched { read.checking.set() }
            if case .done(let outcome) = try attemptWrite(read, attempt, transform) { return outcome }
        }
        throw .conflict(path: path, attempts: options.maxAttempts)
    }

    /// One attempt: the transform on what was read, the temporary file written while the file
    /// is checked, then the swap.
    func attemptWrite<Content: FileContent>(
        _ read: Read, _ attempt: Int, _ transform: (FileSnapshot, EarlyWrite) throws(WriteError) -> Content?
    ) throws(WriteError) -> Step<Content> {
        let early = earlyWrite(read)
        let transformed: Content?
        do { transformed = try transform(read.base, early) } catch {
            early.cancel()
            if changedMeanwhile(read) { pause(attempt); return .again }
            throw error
        }
        guard let content = transformed else {
            early.cancel()
            if changedMeanwhile(read) { pause(attempt); return .again }
            return .done(AtomicFile.ContentOutcome(base: read.base, written: nil, identity: read.base.identity, attempts: attempt))
        }
        if faccessat(folderFD, name, W_OK, AT_EACCESS) != 0 && errno == EACCES {
            early.cancel()
            throw .readOnly(path: path)
        }
        let wroteEarly = early.isStarted
        let created: Temporary, holds: Bool
        do { (created, holds) = try writeWhileChecking(content, read, early: wroteEarly ? early.work : nil) } catch {
            if changedMeanwhile(read) { pause(attempt); return .again }
            throw error
        }
        defer { Glibc.close(created.fd) }
        guard holds else {
            if let name = created.name { discard(name) }
            pause(attempt)
            return .again
        }
        guard try swapIn(created, replacing: read.base, source: read.source, attempt) else { return .again }
        return .done(AtomicFile.ContentOutcome(base: read.base, written: content, identity: created.identity, attempts: attempt,
                                               wroteEarly: wroteEarly))
    }

    /// Bytes mapped rather than read were one state only if the file is intact after their
    /// last use; an error or a "nothing to change" made from them may come from another
    /// process's write and is checked too.
    func changedMeanwhile(_ read: Read) -> Bool {
        read.mapping.map { !reader.isIntact($0, at: folder + "/" + name) } ?? false
    }

    /// The head start a transform may take (`EarlyWrite`): the temporary file written on a
    /// thread of its own, which then makes the slow half of the check too when it is done
    /// before the transform (it sets `checking` first).
    func earlyWrite(_ read: Read) -> EarlyWrite {
        EarlyWrite { content, stop in
            ThreadWork(onThread: self.options.tuning.secondThread) {
                let temporary = Result { () throws(WriteError) in
                    try self.writeTemporary(content, like: read.base, source: read.source, stop: stop)
                }
                let checks = (try? temporary.get()) != nil && !stop.isSet && read.checking.set()
                return WrittenTemporary(temporary: temporary, holds: checks ? self.hasBytes(read.base) : nil)
            }
        }
    }

    /// The temporary file written and synced on a thread of its own (started early by the
    /// transform, or now) while this one makes the slow half of the check: whether the file
    /// still holds the bytes read.
    func writeWhileChecking(_ content: some FileContent, _ read: Read, early: ThreadWork<WrittenTemporary>?)
        throws(WriteError) -> (Temporary, holds: Bool)
    {
        let writing = early ?? ThreadWork(onThread: options.tuning.secondThread) {
            WrittenTemporary(
                temporary: Result { () throws(WriteError) in
                    try self.writeTemporary(content, like: read.base, source: read.source)
                },
                holds: nil)
        }
        let checkedHere = read.checking.set() ? hasBytes(read.base) : nil
        let done = writing.join()
        let created = try done.temporary.get()
        let holds = read.mapping != nil ? !changedMeanwhile(read)
            : read.isWatched || (done.holds ?? checkedHere ?? hasBytes(read.base))
        return (created, holds)
    }

    /// The fast half of the check, last — the file still is the same file (the window for
    /// another writer's rename before our swap is a few microseconds) — then the swap. An
    /// unnamed temporary file gets its name in between.
    /// - Returns: false when the file changed, or another writer's rename landed in the window
    ///   (its file is put back): the attempt is to be made again.
    func swapIn(_ created: Temporary, replacing base: FileSnapshot, source: KernelCopySource?, _ attempt: Int) throws(WriteError) -> Bool {
        let temporary: String
        if let named = created.name { temporary = named } else { temporary = try name(created.fd) }
        // A read file's watch, last, after the copy: the file not written since before its read
        // (a write is queued on it only once it has returned).
        guard isFile(name, base.identity), source?.isUnchanged() != false else {
            discard(temporary)
            pause(attempt)
            return false
        }
        options.beforeSwap?()
        if try swap(temporary) == .exchanged {
            // The temporary name now holds the file we replaced. Was it the one we checked?
            guard isFile(temporary, base.identity) else {
                // Another writer renamed its file in just then. Put it back at once, so our
                // content (without its edit) is visible only for microseconds, and apply
                // ours again to its content.
                try restore(temporary, ours: created.identity)
                return false
            }
            discard(temporary)
        }
        // The swap is done; a folder that cannot be synced (some file systems) changes
        // nothing about it.
        _ = fsync(folderFD)
        return true
    }

    /// After an exchange displaced another writer's file to `temporary`: swaps it back.
    /// If yet another writer replaced our file in the meantime, its file (the newest) is left
    /// in place, as it would have replaced the displaced one without us.
    func restore(_ temporary: String, ours: FileIdentity) throws(WriteError) {
        guard renameExchange!(folderFD, temporary, folderFD, name, renameExchangeFlag) == 0 else {
            throw .system("put back another writer's file (kept as \(folder)/\(temporary))", path: path, errno: errno)
        }
        if !isFile(temporary, ours) {
            _ = renameExchange!(folderFD, temporary, folderFD, name, renameExchangeFlag)
        }
        discard(temporary)
    }

    /// The file `base` was taken from, for the kernel to copy from: a mapped file's, or a read
    /// file's watched since before its read (`watched`); nil where it is not to be or cannot
    /// be (then a read file is checked byte for byte).
    func copySource(_ base: FileSnapshot, mapped: Bool, watched: SourceFile?) -> KernelCopySource? {
        let file = mapped ? SourceFile(folderFD, name, watched: false) : watched
        return file.flatMap { KernelCopySource($0, base, mapped: mapped, smallest: min(options.kernelCopyThreshold, 4096)) }
    }

    /// The file's current content; nil (after a pause) when a writer was busy with it. Mapped
    /// where the options allow (`SnapshotReader.map`): then with the mapping to check. Read,
    /// and `watching`, from `kernelCopyThreshold` bytes: with the file open and watched for
    /// writes from before the read (`SourceFile`), for the kernel's copy.
    func readTarget(_ attempt: Int, watching: Bool) throws(WriteError) -> (FileSnapshot, FileMapping?, SourceFile?)? {
        if let threshold = options.mappingThreshold, let (bytes, mapping) = reader.map(folder + "/" + name, from: threshold) {
            return (FileSnapshot(bytes: bytes, identity: mapping.identity), mapping, nil)
        }
        // Watched before the read, not after: a write before the watch is in the bytes read, one
        // after it on the watch, so no moment between the two goes unseen.
        var st = stat()
        let watched = watching && fstatat(folderFD, name, &st, 0) == 0 && Int(st.st_size) >= options.kernelCopyThreshold
            ? SourceFile(folderFD, name, watched: true) : nil
        options.beforeRead?(attempt)
        switch reader.read(folder + "/" + name) {
        case .bytes(let bytes, let identity): return (FileSnapshot(bytes: bytes, identity: identity), nil, watched)
        case .missing: throw .missing(path: path)
        case .unreadable(let why): throw unreadable(path, why)
        case .unstable:
            pause(attempt)
            return nil
        }
    }

    /// Whether `name` in the folder is the file `identity` describes (inode, size, mtime).
    func isFile(_ name: String, _ identity: FileIdentity) -> Bool {
        var st = stat()
        return fstatat(folderFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && sameFile(FileIdentity(st), identity)
    }

    /// Whether the file at the path still holds `snapshot`'s bytes. Timestamps can be coarse:
    /// a same-size write in place within one clock tick keeps them, so compare the bytes (as
    /// they are read, not as a second copy of the file).
    func hasBytes(_ snapshot: FileSnapshot) -> Bool {
        guard let identity = reader.identityIfHolding(snapshot.bytes, at: folder + "/" + name) else { return false }
        return sameFile(identity, snapshot.identity)
    }

    /// A writer thread's work: the temporary file, and whether the file still held the bytes
    /// read when checked after it was written (nil: not checked there).
    struct WrittenTemporary {
        let temporary: Result<Temporary, WriteError>
        let holds: Bool?
    }

    /// A temporary file written and synced: open, unnamed (`O_TMPFILE`) or named.
    struct Temporary {
        let fd: Int32
        let name: String?
        let identity: FileIdentity
        let folderFD: Int32

        /// Closes and removes it (a write not made).
        func drop() {
            Glibc.close(fd)
            if let name { _ = unlinkat(folderFD, name, 0) }
        }
    }

    /// How many fresh random names are tried before giving up (each one taken already).
    static let nameAttempts = 32

    /// A name for a temporary file of ours that no other file has (it is random).
    func temporaryName() -> String {
        temporaryPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".tmp"
    }

    /// What every temporary name of this process for the file starts with.
    var temporaryPrefix: String { ".\(name).synctable-\(getpid())-" }

    /// Creates a new temporary file holding `content`, with the mode and owner of `like`'s
    /// file, synced to disk: unnamed where the file system allows it, else under a new name.
    /// - Parameters:
    ///   - stop: once set, the write stops at its next step (it is not needed).
    ///   - source: the file `like` was read from, for pieces of content that lie in its bytes:
    ///     copied by the kernel (`KernelCopySource`), not through `write`.
    func writeTemporary(_ content: some FileContent, like base: FileSnapshot, source: KernelCopySource? = nil, stop: OnceFlag? = nil)
        throws(WriteError) -> Temporary
    {
        var st = stat()
        let haveStat = fstatat(folderFD, name, &st, 0) == 0
        let (fd, temporary) = try createTemporary()
        var ok = false
        defer {
            if !ok {
                Glibc.close(fd)
                if let temporary { discard(temporary) }
            }
        }
        if haveStat {
            // Owner first: chown by a non-root user clears set-id bits, which chmod then
            // restores. Another owner is kept only where allowed (root); the group where we
            // belong to it; otherwise the file becomes ours, as any editor's would.
            if fchown(fd, st.st_uid, st.st_gid) != 0 { _ = fchown(fd, uid_t.max, st.st_gid) }
            guard fchmod(fd, st.st_mode & 0o7777) == 0 else {
                throw .system("set the mode of a temporary file in \(folder)", path: path, errno: errno)
            }
        }
        let writer = PieceWriter(fd: fd, source: source, beforeCopy: options.beforeKernelCopy)
        let complete = content.forEachPiece { piece in
            // Checked for every piece, empty ones too: a content that waits offers those.
            if stop?.isSet == true {
                writer.failure = ECANCELED
                return false
            }
            return writer.take(piece)
        } && writer.flush()
        if writer.failure != 0 { throw .system("write or sync a temporary file in \(folder)", path: path, errno: writer.failure) }
        // A content that stopped by itself (an early write abandoned) is not a file to keep.
        if !complete || stop?.isSet == true { throw .system("write a temporary file in \(folder)", path: path, errno: ECANCELED) }
        options.copiedByKernel?(writer.copiedByKernel)
        guard fsync(fd) == 0 else { throw .system("sync a temporary file in \(folder)", path: path, errno: errno) }
        var synced = stat()
        guard fstat(fd, &synced) == 0 else { throw .system("stat a temporary file in \(folder)", path: path, errno: errno) }
        ok = true
        return Temporary(fd: fd, name: temporary, identity: FileIdentity(synced), folderFD: folderFD)
    }

    /// A new, empty temporary file in the folder: unnamed (nil) where the file system and
    /// `/proc` allow, else under a new random name made with `O_EXCL`.
    func createTemporary() throws(WriteError) -> (Int32, String?) {
        if options.unnamedTemporaries && canNameUnnamedFiles {
            let fd = openat(folderFD, ".", oTmpfile | O_WRONLY | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, nil) }
            let code = errno
            // Not supported here: fall back to a named file. Anything else is a real failure.
            guard code == EOPNOTSUPP || code == EISDIR || code == EINVAL || code == ENOENT else {
                throw .system("create a temporary file in \(folder)", path: path, errno: code)
            }
        }
        for _ in 0..<WriteSession.nameAttempts {
            let temporary = temporaryName()
            let fd = openat(folderFD, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 { return (fd, temporary) }
            let code = errno
            guard code == EEXIST else { throw .system("create a temporary file in \(folder)", path: path, errno: code) }
        }
        throw .system("create a temporary file in \(folder) (every new name was taken)", path: path, errno: EEXIST)
    }

    /// Gives the unnamed temporary file `fd` a new random name in the folder.
    func name(_ fd: Int32) throws(WriteError) -> String {
        for _ in 0..<WriteSession.nameAttempts {
            let temporary = temporaryName()
            if linkat(AT_FDCWD, "/proc/self/fd/\(fd)", folderFD, temporary, AT_SYMLINK_FOLLOW) == 0 { return temporary }
            let code = errno
            guard code == EEXIST else { throw .system("name a temporary file in \(folder)", path: path, errno: code) }
        }
        throw .system("name a temporary file in \(folder) (every new name was taken)", path: path, errno: EEXIST)
    }

    /// Removes a temporary file of ours. Should that fail, the file stays as litter; the
    /// write's outcome does not depend on it.
    func discard(_ temporary: String) {
        _ = unlinkat(folderFD, temporary, 0)
    }

    /// Starts the helper that holds the file now at the path (the one about to be replaced)
    /// until this process has exited, then removes any temporary name this process left
    /// (`ReplacedFileRelease`). Before any temporary file of the write has a name.
    func guardUntilExit() -> Bool {
        let fd = openat(folderFD, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        return ReplacedFileRelease.guardUntilExit(holding: fd, folder: folderFD, prefix: temporaryPrefix)
    }

    /// Removes the temporary names of this file that writers killed mid-write left in the
    /// folder: those of a process that has ended, last written a minute ago or more (a writer
    /// in another PID namespace looks ended, but its temporary file is new). Any other name is
    /// left as it is.
    func removeLeftovers() {
        let prefix = Array(temporaryPrefix.utf8.dropLast(String(getpid()).utf8.count + 1))
        let copy = fcntl(folderFD, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0, let dir = fdopendir(copy) else {
            if copy >= 0 { Glibc.close(copy) }
            return
        }
        defer { closedir(dir) }
        let now = time(nil)
        while let entry = readdir(dir) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard entryName.starts(with: prefix), entryName.count > prefix.count + 4, entryName.suffix(4).elementsEqual(".tmp".utf8),
                  let dash = entryName[prefix.count...].firstIndex(of: UInt8(ascii: "-")),
                  let pid = pid_t(String(decoding: entryName[prefix.count..<dash], as: UTF8.self)), pid > 0
            else { continue }
            let leftover = String(decoding: entryName, as: UTF8.self)
            var st = stat()
            guard kill(pid, 0) != 0 && errno == ESRCH, fstatat(folderFD, leftover, &st, AT_SYMLINK_NOFOLLOW) == 0,
                  (st.st_mode & S_IFMT) == S_IFREG, now - st.st_mtim.tv_sec >= 60
            else { continue }
            discard(leftover)
        }
    }

    enum Swap { case renamed, exchanged }

    /// Puts the temporary file at the path: exchanged (the old file now under the temporary
    /// name) or renamed over it.
    func swap(_ temporary: String) throws(WriteError) -> Swap {
        if let exchange = renameExchange {
            if exchange(folderFD, temporary, folderFD, name, renameExchangeFlag) == 0 { return .exchanged }
            let code = errno
            guard code == EINVAL || code == ENOSYS || code == EOPNOTSUPP else {
                discard(temporary)
                throw .system("replace the file", path: path, errno: code)
            }
        }
        guard renameat(folderFD, temporary, folderFD, name) == 0 else {
            let code = errno
            discard(temporary)
            throw .system("replace the file", path: path, errno: code)
        }
        return .renamed
    }
}

extension AtomicFile {
    /// A temporary file is handed to the disk this many bytes at a time while it is written.
    static let writebackStep = 8 << 20
    /// How many bytes of small pieces are written at once.
    static let gatheredPieces = 1 << 16
}

/// Starts the disk writing `count` bytes of `fd` from `offset`, without waiting for it
/// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`). Only a head start for `fsync`, which still
/// makes the file durable and reports any error; nothing where the call is missing.
private func startWriteback(_ fd: Int32, from offset: Int, count: Int) {
    _ = syncFileRange?(fd, Int64(offset), Int64(count), 2)  // SYNC_FILE_RANGE_WRITE
}

/// Writes a content's pieces at the end of a temporary file: small ones gathered, those that lie
/// in the old file's bytes copied by the kernel, and each 8 MiB handed to the disk as soon as
/// it is in the file, so that the sync at the end waits for the last piece only.
private final class PieceWriter {
    let fd: Int32
    let source: KernelCopySource?
    let beforeCopy: (@Sendable () -> Void)?
    /// The `errno` of the call that failed; 0 while none has.
    var failure: Int32 = 0
    var written = 0, handedToDisk = 0, durable = 0, copiedByKernel = 0
    /// Small pieces (an edit of 100k values gives 200k of them) are gathered and written
    /// together: one system call each would cost more than the edit.
    var gathered = [UInt8]()

    init(fd: Int32, source: KernelCopySource?, beforeCopy: (@Sendable () -> Void)?) {
        self.fd = fd
        self.source = source
        self.beforeCopy = beforeCopy
        gathered.reserveCapacity(AtomicFile.gatheredPieces)
    }

    /// Takes the content's next piece; false (and `failure` set) when a write failed.
    func take(_ piece: UnsafeRawBufferPointer) -> Bool {
        let copied = source?.copies(piece, at: written + gathered.count) ?? false
        if !piece.isEmpty && piece.count < AtomicFile.gatheredPieces / 16 && !copied {
            if gathered.count + piece.count > AtomicFile.gatheredPieces && !flush() { return false }
            gathered.append(contentsOf: piece)
            return true
        }
        guard flush() else { return false }
        // An empty piece: the content waits (for a parse). The time goes to making what is
        // written durable, so that the sync at the end has little left. (An error here is
        // the write's: a later fsync would not report it again.)
        if piece.isEmpty && written - durable >= AtomicFile.writebackStep {
            guard fdatasync(fd) == 0 else {
                failure = errno
                return false
            }
            durable = written
            handedToDisk = written
        }
        return put(piece)
    }

    /// Writes the gathered pieces.
    func flush() -> Bool {
        defer { gathered.removeAll(keepingCapacity: true) }
        return gathered.isEmpty || gathered.withUnsafeBytes { put($0) }
    }

    /// Writes `piece` at the end of the file; false (and `failure` set) when that fails.
    private func put(_ piece: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < piece.count {
            let step = min(piece.count - offset, AtomicFile.writebackStep)
            let part = UnsafeRawBufferPointer(start: piece.baseAddress! + offset, count: step)
            if let beforeCopy, source?.copies(part, at: written) == true { beforeCopy() }
            var n = source?.copy(part.baseAddress!, count: step, to: fd, at: written) ?? -1
            if n > 0 { copiedByKernel += n } else { n = Glibc.write(fd, part.baseAddress!, step) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                return false
            }
            offset += n
            written += n
            if written - handedToDisk >= AtomicFile.writebackStep {
                startWriteback(fd, from: handedToDisk, count: written - handedToDisk)
                handedToDisk = written
            }
        }
        return true
    }
}

/// The file a snapshot was taken from, open for `copy_file_range`: pieces of content that lie in
/// the snapshot's bytes are copied from the file by the kernel, not through `write`
/// (docs/engine/kernel-copied-writes.md).
///
/// - A mapped snapshot's bytes are the file's pages, kept honest by the mapping's own watch.
///   Only the pieces that keep their place in a page are copied: for bytes that move within
///   their pages, `write` from the mapping costs less (the sync at the end 70 ms less for 150 MB
///   here).
/// - A read snapshot's bytes are a copy, and the kernel copies the file as it is when it copies.
///   So the file is watched for writes from before its read (`SourceFile`), and the attempt
///   holds only if the watch saw none by the swap, once the copy is done (`isUnchanged`): then
///   the file still holds the bytes read, and no check reads it again. Every piece of 4 KiB or
///   more is copied, moved or not: `write` from a read copy into a new file took 0.08–0.6 s for
///   150 MB here, the kernel's copy 0.05 s, or 0.11 s for bytes that moved within their pages.
final class KernelCopySource: @unchecked Sendable {
    let file: SourceFile
    let bytes: UnsafeRawBufferPointer
    let mapped: Bool
    /// A read snapshot's smallest piece to copy: smaller ones are gathered and written.
    let smallest: Int

    /// nil when `file` is no longer the file `snapshot` was taken from, or (read) is not
    /// watched, or the C library lacks the call.
    init?(_ file: SourceFile, _ snapshot: FileSnapshot, mapped: Bool, smallest: Int) {
        var st = stat()
        // Not the file read (replaced between its opening and the read), or written since the
        // read: the kernel would copy other bytes.
        // Bytes in pieces have no one address to copy from (a write's own reads never make them).
        guard copyFileRange != nil, mapped || file.watch >= 0, snapshot.bytes.pieces == nil, fstat(file.fd, &st) == 0,
              sameFile(FileIdentity(st), snapshot.identity)
        else { return nil }
        self.file = file
        self.mapped = mapped
        self.smallest = smallest
        bytes = snapshot.bytes.withUnsafeBufferPointer { UnsafeRawBufferPointer($0) }
    }

    /// Whether no write of the file was queued since it was watched (any event, an overflow
    /// too, counts as a write); true for a mapping, which its own watch answers for.
    func isUnchanged() -> Bool { mapped || file.isUnchanged() }

    /// Copies `count` bytes of the file, those at `address` in the snapshot's bytes, to the end
    /// of `target`, which is `at` bytes long: how many it copied, or 0 or -1 when `copies` says
    /// no or the call failed. The caller then writes them itself.
    func copy(_ address: UnsafeRawPointer, count: Int, to target: Int32, at: Int) -> Int {
        guard copies(UnsafeRawBufferPointer(start: address, count: count), at: at), let start = bytes.baseAddress else { return -1 }
        var offset = Int64(address - start)
        while true {
            let n = copyFileRange!(file.fd, &offset, target, nil, count, 0)
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }

    /// Whether `copy` copies `piece` to a file `at` bytes long: it is in the bytes and, from a
    /// mapping, at the same place in its page; from a read copy, at least `smallest` bytes
    /// (a call each for an edit's many small pieces would cost more than writing them together).
    func copies(_ piece: UnsafeRawBufferPointer, at: Int) -> Bool {
        guard let start = bytes.baseAddress, let address = piece.baseAddress,
              address >= start && address + piece.count <= start + bytes.count
        else { return false }
        return mapped ? (address - start - at) % pageSize == 0 : piece.count >= smallest
    }
}

/// The file a write copies from: open for reading and, for a file to be read, watched for
/// writes by an inotify instance of its own (not the reader's: its reads and checks add and
/// remove their own watch on the same inode, and drain that instance's queue). Watched only on
/// local file systems, where inotify reports every `write`; not on network or FUSE ones, where
/// another machine's write raises no event. A write that raises no event at all (through
/// another process's shared mapping, for one) is not seen: the limit of tuned's mapped writes.
final class SourceFile: Sendable {
    let fd: Int32
    /// The inotify instance; -1: not watched.
    let watch: Int32

    /// nil when `name` cannot be opened, or (`watched`) not watched.
    init?(_ folderFD: Int32, _ name: String, watched: Bool) {
        let fd = openat(folderFD, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        let instance = watched && localFileSystems.contains(Posix.fileSystemType(fd) ?? -1) ? inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) : -1
        guard !watched || (instance >= 0 && inotify_add_watch(instance, "/proc/self/fd/\(fd)", UInt32(IN_MODIFY)) >= 0) else {
            Glibc.close(fd)
            if instance >= 0 { Glibc.close(instance) }
            return nil
        }
        self.fd = fd
        self.watch = instance
    }

    deinit {
        Glibc.close(fd)
        if watch >= 0 { Glibc.close(watch) }
    }

    /// Whether no write of the file was queued since it was watched (any event, an overflow
    /// too, counts as a write); false when it is not watched. Asked once: reading drains the
    /// queue.
    func isUnchanged() -> Bool {
        watch >= 0 && withUnsafeTemporaryAllocation(byteCount: 256, alignment: 8) {
            Glibc.read(watch, $0.baseAddress, $0.count) < 0 && errno == EAGAIN
        }
    }
}

/// `statfs.f_type` of the file systems whose every write inotify reports (<linux/magic.h>):
/// ext2–4, XFS, btrfs, tmpfs, F2FS, bcachefs.
private let localFileSystems: Set<Int> = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0xF2F5_2010, 0xCA45_1A4E]

private let pageSize = Posix.pageSize

private typealias CopyFileRange = @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
/// `copy_file_range` from the C library (Glibc's module map leaves it out: `_GNU_SOURCE`).
private let copyFileRange = Posix.cLibraryFunction("copy_file_range", as: CopyFileRange.self)

private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
/// `sync_file_range` from the C library (Glibc's module map leaves it out: `_GNU_SOURCE`).
private let syncFileRange = Posix.cLibraryFunction("sync_file_range", as: SyncFileRange.self)

/// `renameat2` from the C library, found at run time: Glibc's module map does not declare it
/// (it needs `_GNU_SOURCE`). nil where the library lacks it.
private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
private let renameExchangeFlag: UInt32 = 1 << 1  // RENAME_EXCHANGE in <linux/fs.h>
/// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY` in <fcntl.h>; Glibc's module map leaves it out).
private let oTmpfile: Int32 = 0o20000000 | O_DIRECTORY
/// Whether an unnamed file can be linked into a folder: through `/proc/self/fd` (the other
/// way, `AT_EMPTY_PATH`, needs a capability).
private let canNameUnnamedFiles = access("/proc/self/fd", X_OK) == 0
private let renameExchange = Posix.cLibraryFunction("renameat2", as: RenameAt2.self)
