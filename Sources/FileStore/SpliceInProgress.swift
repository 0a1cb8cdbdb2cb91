// The new content of a file edited at one value, written while the parse that finds that
// value is still running.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import Synchronization

/// A file's bytes with one value replaced, given to a writer while a parse is still looking
/// for that value: the bytes the parse has passed (they come before it), then, once it has
/// found it, the new value and the rest. Until then the writer waits, offered an empty piece
/// now and then so that it can stop.
final class SpliceInProgress: FileContent, Sendable {
    let base: DocumentBytes
    /// The new value's bytes.
    let bytes: [UInt8]
    private let passed = Atomic<Int>(0)
    private let state = Mutex<(found: Range<Int>?, abandoned: Bool)>((nil, false))

    init(base: DocumentBytes, bytes: [UInt8]) {
        self.base = base
        self.bytes = bytes
    }

    /// What the parse tells it. A value found that already has the new bytes ends the wait:
    /// the write would change nothing.
    var watch: PathWatch {
        PathWatch(passed: { self.passed.store($0, ordering: .releasing) }, found: { range in
            let same = self.base.withUnsafeBufferPointer { $0[range].elementsEqual(self.bytes) }
            self.state.withLock { same ? ($0.abandoned = true) : ($0.found = range) }
        })
    }

    /// The value replaced, once found.
    var found: Range<Int>? { state.withLock { $0.found } }

    /// Ends a wait for a value that will not be found.
    func abandon() { state.withLock { $0.abandoned = true } }

    @discardableResult
    func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Bool) rethrows -> Bool {
        try base.withUnsafeBufferPointer { old in
            let all = UnsafeRawBufferPointer(old)
            var at = 0
            while true {
                let (found, abandoned) = state.withLock { ($0.found, $0.abandoned) }
                if abandoned { return false }
                if let found {
                    return try body(UnsafeRawBufferPointer(rebasing: all[at..<found.lowerBound]))
                        && bytes.withUnsafeBytes { try body($0) }
                        && body(UnsafeRawBufferPointer(rebasing: all[found.upperBound...]))
                }
                let passed = passed.load(ordering: .acquiring)
                if passed > at {
                    guard try body(UnsafeRawBufferPointer(rebasing: all[at..<passed])) else { return false }
                    at = passed
                } else {
                    guard try body(UnsafeRawBufferPointer(rebasing: all[at..<at])) else { return false }
                    usleep(100)
                }
            }
        }
    }
}
