// The new content of a file, written while the parse that decides the edit is still running.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
import Synchronization
import StoreInterface

/// A file's new bytes, given to a writer while a parse still reads the old ones: first the
/// old bytes the parse has passed, then the rest, in one of two ways.
/// - A change foreseen (`Foreseen`): once the parse has found the bytes it replaces (a value,
///   or a member removed), the new bytes and the old bytes after them. The edit made when the
///   parse ends must be exactly that.
/// - Any edit: once the parse has ended and the edit is made (`finish(with:)`), the edited
///   bytes from where the copy got to. That needs the edit to change nothing before the last
///   position the parse passed, which stops at the path it reads: a value replaced or removed
///   there, a child added at the end of a large object.
///
/// Until then the writer waits, offered an empty piece now and then so that it can stop.
final class EditInProgress: FileContent, Sendable {
    /// A change guessed before the parse has ended.
    enum Foreseen {
        /// The value at the path read, a number, string or boolean, replaced with these bytes.
        case value([UInt8])
        /// The member at the path read removed, with the separator after it (it is not the
        /// last in its object).
        case removal
    }

    let base: DocumentBytes
    let foreseen: Foreseen?
    private let passed = Atomic<Int>(0)

    private enum Rest {
        case found(Range<Int>)
        case edit(JSONEdit)
        case abandoned
    }

    private let rest = Mutex<Rest?>(nil)

    init(base: DocumentBytes, foreseeing foreseen: Foreseen?) {
        self.base = base
        self.foreseen = foreseen
    }

    /// The bytes that replace the range found, for a change foreseen.
    var bytes: [UInt8]? {
        switch foreseen {
        case .value(let bytes): bytes
        case .removal: []
        case nil: nil
        }
    }

    /// What the parse tells it. A foreseen value found that already has the new bytes ends the
    /// wait: the write would change nothing.
    var watch: PathWatch {
        PathWatch(passed: { self.passed.store($0, ordering: .releasing) }, found: { range in
            guard case .value(let bytes) = self.foreseen else { return }
            let same = self.base.withUnsafeBufferPointer { $0[range].elementsEqual(bytes) }
            self.rest.withLock { $0 = same ? .abandoned : .found(range) }
        }, followed: { range in
            guard case .removal = self.foreseen else { return }
            self.rest.withLock { $0 = .found(range) }
        })
    }

    /// The old range of the change foreseen, once found.
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
