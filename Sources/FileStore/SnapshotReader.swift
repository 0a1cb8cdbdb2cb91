// Reading the whole file as one consistent state, never a mix of two writes.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
import JSONTree
import Synchronization
import StoreInterface

/// What one attempt to read the file found.
enum Snapshot: Sendable {
    /// The file's bytes, unchanged while they were read.
    case bytes(DocumentBytes, FileIdentity)
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
    /// Whether large files are read by two threads (`secondThread`) and mapped (`mappedReads`).
    let tuning: EngineTuning
    /// Files at least this large are read into memory files whose pages the next revision of
    /// the same length shares (`revisionBlock`); tests lower it.
    let sharedPagesSize: Int

    /// A follower's: the file of its last large revision, held until the next is delivered.
    let held: HeldFile?

    /// A revision shares the last one's bytes (`readSharing`) only in at most this many pieces.
    let maximumPieces: Int

    /// Called with the end of each chunk `readSharing` has compared (tests change the file
    /// there), from either of a tuned read's two threads.
    let comparedChunk: (@Sendable (Int) -> Void)?

    /// - Parameter holdsFiles: hold each large revision's file open until `releaseReplaced()`
    ///   after the next read (a store following the file; never a write command's reads).
    /// - Parameter pieces: a revision shares the last one's bytes in at most this many (tests
    ///   lower it).
    init(tuning: EngineTuning = .current, sharedPagesFrom size: Int = splitReadSize, holdsFiles: Bool = false,
         pieces: Int = maximumBytePieces, comparedChunk: (@Sendable (Int) -> Void)? = nil) {
        inodeWatch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        self.tuning = tuning
        sharedPagesSize = size
        maximumPieces = pieces
        self.comparedChunk = comparedChunk
        held = holdsFiles ? HeldFile(tuning: tuning) : nil
    }

    deinit { if inodeWatch >= 0 { close(inodeWatch) } }

    /// Reads `path` completely.
    /// - Complexity: O(file size).
    func read(_ path: String) -> Snapshot { read(path, comparingWith: nil).snapshot }

    /// Reads `path` (completely, unless its revision shares the last one's bytes: `readSharing`)
    /// and, when `old` is given, measures the bytes it shares with `old`
    /// at each end (as `JSONDocument.reparsing` needs them) while each chunk read is still in
    /// the cache: a second pass over both files would cost as much as the read.
    /// - Returns: the snapshot, and for bytes read the shared prefix and suffix (the suffix at
    ///   most the rest of the shorter one).
    /// - Complexity: O(file size).
    /// - Parameter document: the document whose bytes `old` are, when it is one: a large file's
    ///   revision may then share its bytes (`readSharing`).
    func read(_ path: String, comparingWith old: DocumentBytes?, following document: JSONDocument? = nil) -> (snapshot: Snapshot, sharedEnds: SharedEnds?) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { held?.hold(-1) }
            return (code == ENOENT ? .missing : .unreadable(String(cString: strerror(code))), nil)
        }
        var kept = false
        defer { if !kept { close(fd) } }
        var before = stat()
        guard fstat(fd, &before) == 0 else { return (.unreadable(String(cString: strerror(errno))), nil) }
        if (before.st_mode & S_IFMT) == S_IFDIR { return (.unreadable("is a directory, not a JSON file"), nil) }
        if (before.st_mode & S_IFMT) != S_IFREG { return (.unreadable("not a regular file"), nil) }

        let wd = watchInode(fd)
        defer { if wd >= 0 { inotify_rm_watch(inodeWatch, wd) } }
        // The watch exists now; take the "before" stat again so that a write between open and
        // the watch counts as before the read, not during it.
        guard fstat(fd, &before) == 0 else { return (.unreadable(String(cString: strerror(errno))), nil) }

        let expected = Int(before.st_size)
        if let document, let sharing = readSharing(fd, expected: expected, start: FileIdentity(before), following: document) {
            switch sharing {
            case .changed: return (.unstable, nil)
            case .failed(let code): return (.unreadable(String(cString: strerror(code))), nil)
            case .bytes(let bytes, let ends):
                guard let after = fileStat(fd) else { return (.unreadable(String(cString: strerror(errno))), nil) }
                guard let identity = stillAsRead(after, before: before, count: bytes.count, watch: wd) else { return (.unstable, nil) }
                kept = hold(fd, count: bytes.count)
                return (.bytes(bytes, identity), ends)
            }
        }
        // One byte more than the size: reading it means the file grew during the read.
        let capacity = expected + 1
        let split = splitRead(expected)
        let (block, shared) = revisionBlock(capacity: capacity, split: split, following: old)
        // Tuned, a read into shared pages compares the file's pages where they are: copying
        // them into a buffer first was a third of an edit's time (docs/engine/mapped-compare.md).
        // So does a read into a memory file of its own, which writes them from where they are.
        let mapped = (shared != nil || block.sharedPages != nil) && expected > 0
        let source = mapped ? MappedFile(fd, count: expected, populate: false, tuning: tuning) : nil
        defer { source?.unmap() }
        let target = RevisionTarget(base: block.base, shared: shared.map { UnsafePointer($0) },
                                    fresh: shared == nil ? block.sharedPages : nil, source: source,
                                    fingerprints: shared != nil || block.sharedPages != nil ? PageFingerprints(bytes: expected) : nil,
                                    capacity: block.capacity, start: FileIdentity(before))
        let part = readParts(fd, into: target, expected: expected, split: split, comparingWith: old)
        // A writer at work: its file is read again once it has done (a read of half a file
        // is never parsed, nor held on to).
        // A page a truncation took read as zeroes: the file changed.
        if part.changed || source?.lostPages == true {
            // Its size is a half-written file's: no spare for the next revision.
            block.keepsNoSpare()
            return (.unstable, nil)
        }
        if part.failure != 0 { return (.unreadable(String(cString: strerror(part.failure))), nil) }
        if shared != nil { block.noteWritten(part.pages) }
        let revision = rebasedIfDrifted(block, count: part.count, written: part.written)
        revision.noteFingerprints(target.fingerprints)
        let bytes = DocumentBytes(block: revision, count: part.count)
        let comparison = part.comparison

        guard let after = fileStat(fd) else { return (.unreadable(String(cString: strerror(errno))), nil) }
        guard let identity = stillAsRead(after, before: before, count: bytes.count, watch: wd) else {
            revision.keepsNoSpare()
            return (.unstable, nil)
        }
        kept = hold(fd, count: bytes.count)
        return (.bytes(bytes, identity), comparison?.sharedEnds)
    }

    /// The file open as `fd` now; nil when it cannot be asked (`errno`).
    private func fileStat(_ fd: Int32) -> stat? {
        var now = stat()
        return fstat(fd, &now) == 0 ? now : nil
    }

    /// The identity of the file found `after` a read of `count` bytes, when it is as it was
    /// `before` (its size and modification time, and no write seen on the watch `wd`); nil
    /// when it changed.
    private func stillAsRead(_ after: stat, before: stat, count: Int, watch wd: Int32) -> FileIdentity? {
        // ctime is left out: it also changes when a rename replaces the file we are reading
        // (its link count drops), which leaves its content whole.
        let identity = FileIdentity(after), start = FileIdentity(before)
        if identity.inode != start.inode || identity.size != start.size || identity.modified != start.modified
            || count != Int(before.st_size) || wd >= 0 && inodeWasModified(wd)
        {
            return nil
        }
        return identity
    }

    /// The file's `expected` bytes (and one more, if it grew) read into `target`: with `split`
    /// (`splitRead`), by two threads, a half each (copying and comparing 150 MB takes one core
    /// 25 ms; without an old state to compare with, most of it is the kernel zeroing new memory).
    private func readParts(_ fd: Int32, into target: RevisionTarget, expected: Int, split half: Int?,
                           comparingWith old: DocumentBytes?) -> PartRead {
        guard let half else {
            return readPart(fd, into: target, from: 0, to: expected + 1, comparingWith: old)
        }
        let second = ThreadWork { readPart(fd, into: target, from: half, to: expected + 1, comparingWith: old) }
        return readPart(fd, into: target, from: 0, to: half, comparingWith: old).followed(by: second.join(), at: half)
    }

    /// Where a read of a file of `expected` bytes is split between two threads (tuned, a large
    /// file): a huge page boundary near the middle; nil for one thread.
    private func splitRead(_ expected: Int) -> Int? {
        guard tuning.secondThread && expected >= splitReadSize else { return nil }
        return expected / 2 / Posix.hugePageSize * Posix.hugePageSize
    }

    /// A follower holds the file of a large revision it read (`HeldFile`), and lets go of the
    /// one before at `releaseReplaced()`. Returns whether `fd` is held (the caller must not close it).
    private func hold(_ fd: Int32, count: Int) -> Bool {
        guard let held else { return false }
        let large = count >= sharedPagesSize
        held.hold(large ? fd : -1)
        return large
    }

    /// Lets go of the files replaced since the last call (`HeldFile.release`): call once the
    /// revision read after them has been delivered.
    func releaseReplaced() { held?.release() }

    /// Where a read puts a revision of `capacity` bytes: a large file's in a memory file of its
    /// own, or, when it has the length of `old` and `old` shares a memory file's pages, in a
    /// copy-on-write mapping of that file (`SharedPages`), returned too: the read writes only
    /// the pages that differ from it. Else in a `ByteBlock` of its own.
    ///
    /// Plain too: a revision in memory of its own held the file twice during every read (over
    /// the 2.3 × the file a follower may hold), and the kernel zeroing that memory was half of
    /// plain's time per edit. A memory file and its mappings change nothing process-wide.
    /// A memory file of its own is split in two at `split`, where two threads write it.
    private func revisionBlock(capacity: Int, split: Int?, following old: DocumentBytes?) -> (ByteBlock, shared: UnsafeMutablePointer<UInt8>?) {
        guard capacity > sharedPagesSize else { return (ByteBlock(capacity: capacity), nil) }
        if let old, old.count + 1 == capacity, let pages = old.sharedPages, pages.capacity >= capacity,
           let mapping = try? pages.copyOnWrite()
        {
            return (ByteBlock(sharing: pages, mapping: mapping), pages.base)
        }
        guard let pages = try? SharedPages(capacity: capacity, split: split) else {
            return (ByteBlock(capacity: capacity), nil)
        }
        return (ByteBlock(sharing: pages), nil)
    }

    /// `block`, or, when the pieces written into it as a copy-on-write mapping cover more than
    /// a quarter of its pages, its first `count` bytes copied into a memory file of their own:
    /// the pages the mapping shares would be held for few bytes.
    private func rebasedIfDrifted(_ block: ByteBlock, count: Int, written: Int) -> ByteBlock {
        guard written * 4 * Posix.pageSize > count, let pages = try? SharedPages(capacity: block.capacity) else { return block }
        // Written rather than copied into its mapping: no fresh page faulted and zeroed first.
        if (try? pages.write(block.base, count: count, at: 0)) == nil { pages.base.update(from: block.base, count: count) }
        return ByteBlock(sharing: pages)
    }

    /// The identity of the file at `path` when it holds exactly `expected`, unchanged while it
    /// was compared; nil otherwise. Read a chunk at a time, so the check costs no second copy
    /// of the file.
    /// - Complexity: O(file size).
    func identityIfHolding(_ expected: DocumentBytes, at path: String) -> FileIdentity? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0, (before.st_mode & S_IFMT) == S_IFREG else { return nil }
        let wd = watchInode(fd)
        defer { if wd >= 0 { inotify_rm_watch(inodeWatch, wd) } }
        guard fstat(fd, &before) == 0, Int(before.st_size) == expected.count else { return nil }
        let same = expected.withUnsafeBytes { want in
            withUnsafeTemporaryAllocation(byteCount: readChunk, alignment: 16) { chunk -> Bool in
                var count = 0
                while true {
                    let n = Glibc.read(fd, chunk.baseAddress!, chunk.count)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    // The end of the file: it must be the end of the bytes.
                    if n == 0 { return count == want.count }
                    guard count + n <= want.count, memcmp(chunk.baseAddress!, want.baseAddress! + count, n) == 0 else { return false }
                    count += n
                }
            }
        }
        var after = stat()
        guard same, fstat(fd, &after) == 0 else { return nil }
        let identity = FileIdentity(after), start = FileIdentity(before)
        guard identity.inode == start.inode, identity.size == start.size, identity.modified == start.modified else { return nil }
        if wd >= 0 && inodeWasModified(wd) { return nil }
        return identity
    }

    /// Maps the file at `path` instead of reading it, where it holds at least `threshold`
    /// bytes: for a write that keeps nothing of a large file, the copy into fresh memory (the
    /// kernel zeroing it first) costs more than all the rest of its reading.
    ///
    /// The bytes are the file's own pages: they stay the bytes of one state only while no one
    /// writes the file in place. A write (or truncation) queues `IN_MODIFY` on the watch added
    /// before the mapping; a page a truncation took reads as zeroes. So whatever is made of
    /// the bytes is trusted only once `isIntact` says so after their last use.
    /// - Parameter populate: map every page at once: a `write(2)` from a page not yet mapped
    ///   takes a slow path (a fault, then the copy again). Else each is mapped when first read.
    /// - Returns: nil where the file is smaller, not a regular file, cannot be watched or
    ///   mapped, or the tuning maps no file (`read` then reports or reads it).
    func map(_ path: String, from threshold: Int, populate: Bool = true) -> (bytes: DocumentBytes, mapping: FileMapping)? {
        guard tuning.mappedReads, let (fd, wd, size) = openWatched(path, from: threshold) else { return nil }
        defer { close(fd) }
        // Taken again with the watch in place, as `read` does.
        var before = stat()
        guard fstat(fd, &before) == 0, Int(before.st_size) == size,
              let file = MappedFile(fd, count: size, populate: populate, tuning: tuning)
        else {
            inotify_rm_watch(inodeWatch, wd)
            return nil
        }
        let block = ByteBlock(lent: file.base, count: size) { file.unmap() }
        return (DocumentBytes(block: block, count: size), FileMapping(watch: wd, file: file, identity: FileIdentity(before)))
    }

    /// Parses a large file's first revision from its mapping, while another thread copies the
    /// pages the parse has read into memory of the document's own. A read would copy them
    /// before the parse could begin, into memory the kernel zeroes first (50 ms for 150 MB, a
    /// quarter of the parse, and on this machine's fresh memory up to four times that). Copied
    /// pages of the mapping are given back at once, so the file is never held twice. Nothing
    /// of this reaches another process: a writer of the file neither waits nor sees a
    /// difference (a write during the parse is seen on the watch, and the file read again).
    /// - Returns: the document or the parse error, for the file as it was mapped, when it was
    ///   not written to meanwhile; nil when it was, or is smaller than `threshold` or cannot
    ///   be mapped (`read` then reads it).
    /// - Parameter copied: told how many bytes are copied after each piece (tests).
    func parseMapped(_ path: String, from threshold: Int, copied: ((Int) -> Void)? = nil) -> MappedParse? {
        guard let (source, mapping) = map(path, from: threshold, populate: false) else { return nil }
        let size = source.count
        // Tuned, in a memory file: the next revision of the same length shares its pages.
        let pages = tuning.recycledMappings ? try? SharedPages(capacity: size) : nil
        let block = pages.map { ByteBlock(sharing: $0) } ?? ByteBlock(capacity: size)
        let progress = ParseProgress()
        // The next revisions are compared with its pages by fingerprint, made as they are copied.
        let prints = pages.map { _ in PageFingerprints(bytes: size) }
        let copy = CopyBehind(source, of: mapping.file, into: block.base, writing: pages, fingerprints: prints,
                              following: progress, copied: copied)
        let copier = ThreadWork { copy.run() }
        // Once the parse has ended, its thread copies what is left beside the copier.
        func finishCopy() {
            while copy.copyPiece() {}
            copier.join()
        }
        do {
            let document = try JSONDocument.parsing(source, progress: progress, tuning: tuning) {
                finishCopy()
                guard isIntact(mapping, at: path) else { return nil }
                block.noteFingerprints(prints)
                return DocumentBytes(block: block, count: size)
            }
            return document.map { .parsed($0, mapping.identity) }
        } catch {
            finishCopy()
            return isIntact(mapping, at: path) ? .invalid(error) : nil
        }
    }

    /// Whether the file mapped as `mapping` at `path` is unchanged since it was mapped (no write
    /// queued on its watch, no page lost, the same file at the path) — so the bytes read from
    /// the mapping were one state. Asked once, after their last use: it ends the watch.
    func isIntact(_ mapping: FileMapping, at path: String) -> Bool {
        let modified = inodeWasModified(mapping.watch)
        inotify_rm_watch(inodeWatch, mapping.watch)
        var now = stat()
        guard !modified, !mapping.file.lostPages, lstat(path, &now) == 0 else { return false }
        return sameFile(FileIdentity(now), mapping.identity)
    }

    /// Opens the file at `path` for reading and watches its inode for writes, where it is a
    /// regular file of at least `threshold` bytes (and at least one).
    /// - Returns: the descriptor (the caller's to close), the watch and the size; nil otherwise.
    private func openWatched(_ path: String, from threshold: Int) -> (fd: Int32, watch: Int32, size: Int)? {
        guard inodeWatch >= 0 else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        var st = stat()
        let wd = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && Int(st.st_size) >= max(1, threshold) ? watchInode(fd) : -1
        guard wd >= 0 else {
            close(fd)
            return nil
        }
        return (fd, wd, Int(st.st_size))
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

/// A file mapped by `SnapshotReader.map`: the watch on its inode, its mapping, and the file as
/// it was when mapped.
struct FileMapping {
    let watch: Int32
    let file: MappedFile
    let identity: FileIdentity
}

/// What `SnapshotReader.parseMapped` made of a file that stayed the same while it was read.
enum MappedParse {
    /// The document and the file it is.
    case parsed(JSONDocument, FileIdentity)
    case invalid(JSONParseError)
}

/// Copies `source` (a mapping) into `target` up to where the parse reading it has got (while a
/// parse on two threads waits for its second, up to where that one has got), a piece at a
/// time, and gives back the mapping's pages it has copied. (The parse may still read a
/// key behind it, whose page is then read in again from the file's cache.) A copier thread
/// runs behind the parse; when the parse ends, its own thread takes pieces too, so the copy's
/// lag (the kernel zeroing the target's fresh pages) is halved.
final class CopyBehind: @unchecked Sendable {
    // @unchecked: the pointers are to memory each piece of which one thread writes (the piece
    // it claimed), and `told` is called under `copiedCount`'s lock.
    private let source: DocumentBytes
    private let file: MappedFile
    private let target: UnsafeMutablePointer<UInt8>
    /// The memory file `target` maps, when it is one: pieces are written into it.
    private let pages: SharedPages?
    /// Set to the fingerprints of the pages copied, when given.
    private let fingerprints: PageFingerprints?
    private let progress: ParseProgress
    private let told: ((Int) -> Void)?
    /// Where the next piece starts: every piece before it is claimed. A page boundary, or the end.
    private let claimed = Atomic<Int>(0)
    /// Bytes copied so far, told to `told` in order.
    private let copiedCount = Mutex(0)
    private let page = Posix.pageSize

    /// Copies `source`, the bytes of `file`'s mapping, to `target`: with `pages` (the memory
    /// file `target` maps), by writing into it (`SharedPages.write`).
    init(_ source: DocumentBytes, of file: MappedFile, into target: UnsafeMutablePointer<UInt8>, writing pages: SharedPages? = nil,
         fingerprints: PageFingerprints? = nil, following progress: ParseProgress, copied told: ((Int) -> Void)?) {
        (self.source, self.file, self.target, self.pages, self.progress, self.told) = (source, file, target, pages, progress, told)
        self.fingerprints = fingerprints
    }

    /// The copier thread: pieces as the parse passes them, until every piece is claimed.
    func run() {
        while claimed.load(ordering: .relaxed) < source.count {
            if !copyPiece() { usleep(500) }
        }
    }

    /// Claims and copies the next piece the parse has passed: up to `copyStep` bytes, ending on
    /// a page boundary (or the end), at least `copyStep` unless the parse has ended.
    /// - Returns: false when there is none yet (or none left).
    func copyPiece() -> Bool {
        let count = source.count
        var start = claimed.load(ordering: .relaxed)
        while true {
            let read = min(count, progress.readUpTo)
            // Pieces of at least `copyStep`, so that each call is worth its time.
            guard read - start >= copyStep || (read == count && start < count) else { return false }
            let end = read == count && count - start <= copyStep ? count : (start + copyStep) / page * page
            let (exchanged, original) = claimed.compareExchange(expected: start, desired: end, ordering: .relaxed)
            guard exchanged else {
                start = original
                continue
            }
            source.withUnsafeBufferPointer { from in
                // A page of the mapping a truncation took fails the write (EFAULT): the copy then
                // meets it as the parse does, and it reads as zeroes (`lostPages`).
                if (try? pages?.write(from.baseAddress! + start, count: end - start, at: start)) == nil {
                    _ = memcpy(target + start, from.baseAddress! + start, end - start)
                }
                // Of the bytes kept, not of the mapping, which may change between two reads of it.
                fingerprints?.set(UnsafeRawBufferPointer(start: target + start, count: end - start), at: start)
            }
            file.giveBack(start..<end)
            copiedCount.withLock { copied in
                copied += end - start
                told?(copied)
            }
            return true
        }
    }
}

/// The least a copy behind a parse takes at a time.
let copyStep = 2 << 20


/// Files at least this large are read by two threads at once, a half each; a store's first
/// read of one parses its mapping instead (`SnapshotReader.parseMapped`).
let splitReadSize = 16 << 20

/// The bytes two states of a file share at each end: `prefix` leading bytes, and `suffix`
/// trailing bytes (at most the rest of the shorter state).
typealias SharedEnds = (prefix: Int, suffix: Int)

/// The shared ends of an old state and a new one read chunk by chunk, in order.
struct EndsComparison {
    let oldCount: Int
    let newCount: Int
    /// Leading bytes equal so far; when less than the bytes compared, the prefix is final.
    private var prefix = 0
    private var prefixFinal = false
    /// The last new byte that differs from the old byte as far from the end; -1 for none.
    private var lastDifference = -1

    init(oldCount: Int, newCount: Int) {
        self.oldCount = oldCount
        self.newCount = newCount
    }

    /// Compares new bytes `from..<from + count` (read just now, at `new`) with `old`.
    mutating func add(_ new: UnsafePointer<UInt8>, from: Int, count: Int, old: DocumentBytes) {
        var prefixCovered = false
        if !prefixFinal {
            let same = old.matching(prefixOf: UnsafeBufferPointer(start: new, count: count), at: from)
            prefix += same
            if same < count { prefixFinal = true } else { prefixCovered = true }
        }
        // The same comparison, when the two states have the same length and it found no difference.
        let shift = newCount - oldCount
        if prefixCovered && shift == 0 { return }
        // New position p sits at old position p - shift, as far from the end.
        let first = max(from, shift)
        guard first < from + count else { return }
        let compared = from + count - first
        let same = old.matching(suffixOf: UnsafeBufferPointer(start: new + (first - from), count: compared), endingAt: from + count - shift)
        if same < compared { lastDifference = from + count - 1 - same }
    }

    /// Notes a piece of the new state (`new`, its bytes) found equal to the old state's bytes
    /// at the same offset, or not: for states of the same length, compared page by page where
    /// the pages to write were chosen (`writeDifferingPages`). Pieces come in order.
    mutating func add(_ piece: PieceCompared, _ new: UnsafePointer<UInt8>, old: UnsafePointer<UInt8>) {
        assert(oldCount == newCount, "pieces compare states of one length")
        guard piece.differs else {
            if !prefixFinal { prefix += piece.count }
            return
        }
        if !prefixFinal {
            prefix += matchingPrefix(new, old + piece.offset, piece.count)
            prefixFinal = true
        }
        // None only if the file changed under the read (which is then dropped) or a fingerprint
        // was not of its page's bytes: the piece's start only shortens the shared suffix.
        lastDifference = piece.offset + (lastMismatch(new, old + piece.offset, piece.count) ?? 0)
    }

    /// The comparison of a read made of this part and `later`, the bytes right after it
    /// (compared by another thread, from where this part ends).
    /// - Precondition: every byte of this part was added.
    func followed(by later: EndsComparison) -> EndsComparison {
        var whole = self
        if !prefixFinal {
            whole.prefix += later.prefix
            whole.prefixFinal = later.prefixFinal
        }
        whole.lastDifference = max(lastDifference, later.lastDifference)
        return whole
    }

    var sharedEnds: SharedEnds {
        let limit = min(oldCount, newCount) - prefix
        return (prefix, min(limit, newCount - 1 - lastDifference))
    }
}

/// The offset of the last byte where `a` and `b` differ, of `count`; nil when they are equal.
private func lastMismatch(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Int? {
    var end = count
    while end > 0 {
        let n = min(compareBlock, end)
        if memcmp(a + end - n, b + end - n, n) != 0 {
            var k = end
            while a[k - 1] == b[k - 1] { k -= 1 }
            return k - 1
        }
        end -= n
    }
    return nil
}

private let compareBlock = 4096
