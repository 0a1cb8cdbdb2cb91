// The few file operations the first-page cache needs: read, write atomically, make folders, stat.
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface

enum ReadFailure: Error {
    case missing
    case tooLarge
    case system(String)
}

private func errnoText() -> String { String(cString: strerror(errno)) }

/// The bytes of the file at `path`, up to `limit` bytes.
func readFile(_ path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return .failure(errno == ENOENT || errno == ENOTDIR ? .missing : .system(errnoText())) }
    defer { close(fd) }
    var bytes = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return .failure(.system(errnoText()))
        }
        if n == 0 { break }
        bytes += chunk[0..<n]
        if bytes.count > limit { return .failure(.tooLarge) }
    }
    return .success(bytes)
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
/// - Returns: why it failed, or nil.
func writeAtomically(_ bytes: [UInt8], to path: String) -> String? {
    let temporary = path + ".\(getpid()).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return errnoText() }
    var written = 0
    var failure: String?
    bytes.withUnsafeBytes { p in
        while written < p.count {
            let n = write(fd, p.baseAddress! + written, p.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                failure = errnoText()
                return
            }
            written += n
        }
    }
    if close(fd) != 0 && failure == nil { failure = errnoText() }
    if failure == nil && rename(temporary, path) != 0 { failure = errnoText() }
    if failure != nil { unlink(temporary) }
    return failure
}

/// Creates `path` and its missing parents (mode 0700, as caches are private).
/// - Returns: why it failed, or nil.
func makeDirectories(_ path: String) -> String? {
    var prefix = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
        prefix += "/" + part
        if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return "cannot create \(prefix): \(errnoText())" }
    }
    var st = stat()
    guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return "\(path) is not a folder" }
    return nil
}

/// `path` made absolute and resolved (symlinks, `..`) as far as it exists.
func resolvedPath(_ path: String) -> String {
    if let resolved = realpath(path, nil) {
        defer { free(resolved) }
        return String(cString: resolved)
    }
    // The file is missing: resolve its folder.
    let absolute: String
    if path.hasPrefix("/") {
        absolute = path
    } else if let cwd = getcwd(nil, 0) {
        defer { free(cwd) }
        absolute = String(cString: cwd) + "/" + path
    } else {
        absolute = path
    }
    guard let slash = absolute.lastIndex(of: "/") else { return absolute }
    let folder = String(absolute[..<slash]), name = absolute[absolute.index(after: slash)...]
    if !folder.isEmpty, let resolved = realpath(folder, nil) {
        defer { free(resolved) }
        return String(cString: resolved) + "/" + name
    }
    return absolute
}

/// The identity of the file at `path` now, or nil when it cannot be `stat`ed.
func currentIdentity(_ path: String) -> FileIdentity? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return FileIdentity(
        device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
        modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
        changed: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
}

/// The process environment as a dictionary.
func processEnvironment() -> [String: String] {
    var result = [String: String]()
    var p = environ
    while let entry = p.pointee {
        let text = String(cString: entry)
        if let eq = text.firstIndex(of: "=") {
            result[String(text[..<eq])] = String(text[text.index(after: eq)...])
        }
        p += 1
    }
    return result
}
