// The new content of a file, written while the parse that decides the edit is still running.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import Synchronization

/// A file's new bytes, given to a writer while a parse still reads the old ones: first the
/// old bytes the parse has passed, then the rest, in one of two ways.
/// - A value foreseen (`bytes`): once the parse has found the value it replaces, the new value
///   and the old bytes after it. The edit made when the parse ends must be exactly that.
/// - Any edit: once the parse has ended and the edit is made (`finish(with:)`), the edited
///   bytes from where the copy got to. That needs the edit to change nothing before the last
///   position the parse passed, which stops at the path it reads: a value replaced or removed
///   there, a child added at the end of a large object.
///
/// Until then the writer waits, offered an empty piece now and then so that it can stop.
final class EditInProgress: FileContent, Sendable {
    let base: DocumentBytes
    /// The foreseen value's new bytes; nil when none is foreseen.
    let bytes: [UInt8]?
    private let passed = Atomic<Int>(0)

    private enum Rest {
        case found(Range<Int>)
        case edit(JSONEdit)
        case abandoned
    }

    private let rest = Mutex<Rest?>(nil)

    init(base: DocumentBytes, foreseeing bytes: [UInt8]?) {
        self.base = base
        self.bytes = bytes
    }

    /// What the parse tells it. A foreseen value found that already has the new bytes ends the
    /// wait: the write would change nothing.
    var watch: PathWatch {
        PathWatch(passed: { self.passed.store($0, ordering: .releasing) }, found: { range in
            guard let bytes = self.bytes else { return }
            let same = self.base.withUnsafeBufferPointer { $0[range].elementsEqual(bytes) }
            self.rest.withLock { $0 = same ? .abandoned : .found(range) }
        })
    }

    /// The foreseen value's old range, once found.
    var found: Range<Int>? {
        rest.withLock { if case .found(let range) = $0 { return range } else { return nil } }
    }

    /// Keeps the write going with `edit`, the edit made once the parse has ended, when the
    /// bytes copied so far are still its bytes; otherwise (or after a value was found) it does
    /// nothing.
    /// - Returns: whether the write goes on with `edit`.
    func finish(with edit: JSONEdit) -> Bool {
        guard let first = edit.firstChange, first >= passed.load(ordering: .acquiring) else { return false }
        return rest.withLock {
            guard $0 == nil else { return false }
            $0 = .edit(edit)
            return true
        }
    }

    /// Ends a wait that will not end well.
    func abandon() { rest.withLock { $0 = .abandoned } }

    @discardableResult
    func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Bool) rethrows -> Bool {
        try base.withUnsafeBufferPointer { old in
            let all = UnsafeRawBufferPointer(old)
            var at = 0
            while true {
                switch rest.withLock({ $0 }) {
                case .abandoned:
                    return false
                case .found(let range):
                    return try body(UnsafeRawBufferPointer(rebasing: all[at..<range.lowerBound]))
                        && bytes!.withUnsafeBytes { try body($0) }
                        && body(UnsafeRawBufferPointer(rebasing: all[range.upperBound...]))
                case .edit(let edit):
                    // Its first `at` bytes are the old ones copied already.
                    var skip = at
                    return try edit.forEachPiece { piece in
                        guard skip < piece.count else {
                            skip -= piece.count
                            return true
                        }
                        defer { skip = 0 }
                        return try body(UnsafeRawBufferPointer(rebasing: piece[skip...]))
                    }
                case nil:
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
}
