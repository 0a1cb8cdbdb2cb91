// The plain writer: what `AtomicFile.modify` does, one step after another on one thread, with
// none of its tactics — the twin the tuned writer (`WriteSession.run`) is tested against.
#if canImport(Glibc)
import Glibc
#endif
import EngineMemory
import StoreInterface

extension AtomicFile {
    /// Replaces the content of the file at `path` with `transform(current content)`, leaving the
    /// same bytes as `modify(_:options:writing:)`: read, splice, write a temporary file, fsync,
    /// compare and swap, rename. No second thread, mapping, early write, helper process or
    /// rename exchange (a rename by another writer in the microseconds between the check and
    /// the swap is overwritten).
    /// - Throws: `WriteError` (the file is untouched).
    static func modifyPlainly<Content: FileContent>(
        _ path: String, options: Options = Options(),
        writing transform: (FileSnapshot) throws(WriteError) -> Content?
    ) throws(WriteError) -> ContentOutcome<Content> {
        let session = try WriteSession(path: path, options: options)  // the path resolved, the file locked
        defer { session.close() }
        for attempt in 1...options.maxAttempts {
            // 1. Read the file: one consistent state (nil while a writer is busy with it).
            guard let (base, _, _) = try session.readTarget(attempt, watching: false) else { continue }
            options.afterRead?(attempt)
            // 2. Splice: the new content, or nil to leave the file as it is.
            guard let content = try transform(base) else {
                return ContentOutcome(base: base, written: nil, identity: base.identity, attempts: attempt)
            }
            guard faccessat(session.folderFD, session.name, W_OK, AT_EACCESS) == 0 || errno != EACCES else {
                throw .readOnly(path: path)
            }
            // 3. Write it to a new file beside the file, and make that durable.
            let (temporary, written) = try session.writePlainTemporary(content, like: base)
            // 4. Compare: the file still holds the bytes read, and still is the same file ...
            guard session.hasBytes(base), session.isFile(session.name, base.identity) else {
                session.discard(temporary)
                pause(attempt)
                continue
            }
            options.beforeSwap?()
            // 5. ... and swap: the new file renamed over it, the rename made durable.
            do { try Posix.rename(temporary, to: session.name, in: session.folderFD) } catch {
                session.discard(temporary)
                throw .system("replace the file", path: path, errno: error.errno)
            }
            _ = try? Posix.fsync(session.folderFD)
            return ContentOutcome(base: base, written: content, identity: written, attempts: attempt)
        }
        throw .conflict(path: path, attempts: options.maxAttempts)
    }
}

extension WriteSession {
    /// A new named file in the folder holding `content`, with the mode and owner of `base`'s
    /// file, synced to disk: its name and identity.
    func writePlainTemporary(_ content: some FileContent, like base: FileSnapshot) throws(WriteError) -> (String, FileIdentity) {
        let temporary = temporaryName()
        let fd: Int32
        do { fd = try Posix.open(temporary, in: folderFD, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode: 0o600) } catch {
            throw .system("create a temporary file in \(folder)", path: path, errno: error.errno)
        }
        defer { Glibc.close(fd) }
        do throws(PosixError) {
            var st = stat()
            if fstatat(folderFD, name, &st, 0) == 0 {
                // As `writeTemporary`: the owner first (chown may clear set-id bits), then the mode.
                if fchown(fd, st.st_uid, st.st_gid) != 0 { _ = fchown(fd, uid_t.max, st.st_gid) }
                try Posix.retrying("fchmod") { Int(fchmod(fd, st.st_mode & 0o7777)) }
            }
            var failure: PosixError?
            content.forEachPiece { piece in
                do throws(PosixError) { try Posix.writeAll(fd, piece) } catch { failure = error }
                return failure == nil
            }
            if let failure { throw failure }
            try Posix.fsync(fd)
            try Posix.retrying("fstat") { Int(fstat(fd, &st)) }
            return (temporary, FileIdentity(st))
        } catch {
            discard(temporary)
            throw .system("write or sync a temporary file in \(folder)", path: path, errno: error.errno)
        }
    }
}
