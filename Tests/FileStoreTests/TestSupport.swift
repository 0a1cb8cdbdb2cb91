// Helpers for the store's tests: scratch folders, real writer processes, waiting on a store.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

/// Runs `command` with /bin/sh, arguments as $1, $2, …; returns the exit status.
@discardableResult
func shell(_ command: String, _ arguments: String...) -> Int32 {
    spawnAndWait(["/bin/sh", "-c", command, "sh"] + arguments)
}

/// Runs a program (argv[0] is a path) and waits for it; returns its exit status (-1 when it
/// cannot start).
@discardableResult
func spawnAndWait(_ argv: [String]) -> Int32 {
    guard let child = try? spawnProgram(argv) else { return -1 }
    return waitForExit(child.pid)
}

/// Writes `text` to `path` from this process, in place (truncate, write, close).
func writeInPlace(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(fd >= 0, "cannot open \(path)")
    var text = text
    text.withUTF8 { p in _ = write(fd, p.baseAddress, p.count) }
    close(fd)
}

/// Writes `text` to a temporary file beside `path`, then renames it over `path`.
func writeByRename(_ path: String, _ text: String) {
    writeInPlace(path + ".tmp", text)
    rename(path + ".tmp", path)
}

/// A store with a record of what it delivered.
final class RecordingStore {
    let store: FileStore
    private(set) var revisions: [Revision] = []
    private(set) var statuses: [StoreStatus] = []

    init(path: String, options: FileStore.Options = .init()) throws {
        store = try FileStore(path: path, options: options)
        store.observeRevisions { [unowned self] in revisions.append($0) }
        store.observeStatus { [unowned self] in statuses.append($0) }
    }

    /// Runs the loop until `condition` holds; records an issue after `seconds`.
    func run(seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation, until condition: () -> Bool) {
        do {
            try store.run(timeoutMilliseconds: Int(seconds * 1000), until: condition)
        } catch {
            Issue.record("\(error) waiting; status \(store.status), contents \(contents)", sourceLocation: sourceLocation)
        }
    }

    /// Runs the loop until the current revision's bytes are `text`.
    func waitForContent(_ text: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) {
        run(seconds: seconds, sourceLocation: sourceLocation) { currentText == text }
    }

    /// Runs the loop for `milliseconds` whatever happens, so that late events can arrive.
    func settle(milliseconds: Int = 300) {
        let end = monotonicNanoseconds() + UInt64(milliseconds) * 1_000_000
        while case let now = monotonicNanoseconds(), now < end {
            store.waitAndProcessChanges(timeoutMilliseconds: Int((end - now) / 1_000_000) + 1)
        }
    }

    var currentText: String? { store.currentRevision.map { String(decoding: $0.document.bytes, as: UTF8.self) } }
    var contents: [String] { revisions.map { String(decoding: $0.document.bytes, as: UTF8.self) } }
}
