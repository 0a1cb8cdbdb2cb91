// Scratch folders and file writes for the synced array's tests (real files, real store).
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Synchronization
import Testing

/// The package root, found from this file's path.
let packageRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(4)  // Tests/SyncedArrayTests/Support/Files.swift
    return parts.joined(separator: "/")
}()

private let folderCounter = Atomic<Int>(0)

/// A fresh folder under the package's `.build-tests-tmp/`, removed when the value goes away.
final class ScratchFolder {
    let path: String

    init() {
        let n = folderCounter.add(1, ordering: .relaxed).newValue
        let base = packageRoot + "/.build-tests-tmp"
        mkdir(base, 0o755)
        path = base + "/syncedarray-\(getpid())-\(n)"
        removeTree(path)
        mkdir(path, 0o755)
    }

    deinit { removeTree(path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// Removes `path` and everything below it.
func removeTree(_ path: String) {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    if (st.st_mode & S_IFMT) == S_IFDIR, let dir = opendir(path) {
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { removeTree(path + "/" + name) }
        }
        closedir(dir)
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// Writes `bytes` to `path` in place.
func writeInPlace(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "cannot open \(path)")
    bytes.withUnsafeBytes { p in
        var done = 0
        while done < p.count {
            let n = write(fd, p.baseAddress! + done, p.count - done)
            precondition(n > 0, "cannot write \(path)")
            done += n
        }
    }
    close(fd)
}

func writeInPlace(_ path: String, _ text: String) { writeInPlace(path, Array(text.utf8)) }

/// Writes `bytes` beside `path`, then renames over it (as editors and the store save).
func writeByRename(_ path: String, _ bytes: [UInt8]) {
    writeInPlace(path + ".tmp", bytes)
    rename(path + ".tmp", path)
}

func writeByRename(_ path: String, _ text: String) { writeByRename(path, Array(text.utf8)) }

func readText(_ path: String) -> String? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var out = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n == 0 { break }
        out += buffer[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

func path(_ text: String) -> Path { try! Path(text) }

extension FileStore {
    /// Runs the loop until revision `number`; records an issue if it does not come.
    func wait(forRevision number: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try waitForRevision(number, timeoutMilliseconds: 10_000)
        } catch {
            Issue.record("revision \(number) did not arrive: \(error); status \(status)", sourceLocation: sourceLocation)
        }
    }

    /// Runs the loop for `milliseconds` whatever happens, so that late events can arrive.
    func settle(milliseconds: Int = 100) {
        let end = monotonicNanoseconds() + UInt64(milliseconds) * 1_000_000
        while case let now = monotonicNanoseconds(), now < end {
            waitAndProcessChanges(timeoutMilliseconds: Int((end - now) / 1_000_000) + 1)
        }
    }
}
