// File writes and store waits for the synced array's tests (real files, real store; scratch
// folders are TestSupport's).
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import Synchronization
import Testing
import TestSupport

/// Writes `bytes` to `path` in place.
func writeInPlace(_ path: String, _ bytes: [UInt8]) { writeFileInPlace(path, bytes) }

func writeInPlace(_ path: String, _ text: String) { writeInPlace(path, Array(text.utf8)) }

/// Writes `bytes` beside `path`, then renames over it (as editors and the store save).
func writeByRename(_ path: String, _ bytes: [UInt8]) { writeFileByRename(path, bytes) }

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

extension LiveStore {
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
