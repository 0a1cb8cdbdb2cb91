// Scratch folders and whole-file writes for every test target that works on real files.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The package root, found from this file's path (Tests/TestSupport/ScratchFolder.swift).
public let packageRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

private let folderCounter = Atomic<Int>(0)

/// A fresh, empty folder, removed with everything in it when the value goes away. Under the
/// package's `.build-tests-tmp/` by default (editors save differently under /tmp), or under /tmp.
public final class ScratchFolder {
    public let path: String

    /// - Parameter prefix: names the folder after the tests that use it.
    public init(_ prefix: String = "test", underTmp: Bool = false) {
        let n = folderCounter.add(1, ordering: .relaxed).newValue
        let base = underTmp ? "/tmp" : packageRoot + "/.build-tests-tmp"
        mkdir(base, 0o755)
        path = base + "/\(prefix)-\(getpid())-\(n)"
        removeTree(path)
        mkdir(path, 0o755)
    }

    deinit { removeTree(path) }

    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` by rename, as an editor saves; returns the file's path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        writeFileByRename(file(name), Array(text.utf8))
        return file(name)
    }

    /// The text of `name`; empty when it cannot be read.
    public func read(_ name: String) -> String { readFileText(file(name)) ?? "" }
}

/// Removes `path` and everything below it (symbolic links are removed, not followed).
public func removeTree(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    guard (st.st_mode & S_IFMT) == S_IFDIR, let dir = opendir(path) else {
        unlink(path)
        return
    }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { removeTree(path + "/" + name) }
    }
    closedir(dir)
    rmdir(path)
}

/// Writes `bytes` to `path` in place (create or truncate, write, close).
public func writeFileInPlace(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "cannot open \(path)")
    bytes.withUnsafeBytes { p in
        var done = 0
        while done < p.count {
            let n = write(fd, p.baseAddress! + done, p.count - done)
            if n < 0 && errno == EINTR { continue }
            precondition(n > 0, "cannot write \(path)")
            done += n
        }
    }
    close(fd)
}

/// Writes `bytes` beside `path`, then renames it over the file (as editors and the store save).
public func writeFileByRename(_ path: String, _ bytes: [UInt8]) {
    writeFileInPlace(path + ".tmp", bytes)
    rename(path + ".tmp", path)
}

/// The whole text of a file, or nil when it cannot be read.
public func readFileText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n < 0 && errno == EINTR { continue }
        guard n >= 0 else { return nil }
        if n == 0 { break }
        out += buffer[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
}
