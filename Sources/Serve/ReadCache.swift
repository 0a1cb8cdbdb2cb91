// Answers to reads of the current revision, kept until the next one: a popular query is
// evaluated once per revision, not once per request.
import Hummingbird
import Synchronization

/// A read's answer: the response body (nil for `print=silent`) and the value's ETag (when one
/// was asked for).
struct CachedRead: Sendable {
    let body: ByteBuffer?
    let etag: String?
}

/// The answers to reads of one revision, by request (location and URL query). Emptied when a
/// newer revision is read; bounded, so that distinct queries cannot grow it without limit.
final class ReadCache: Sendable {
    private struct State {
        var revision = 0
        var entries: [String: CachedRead] = [:]
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int = 1024) { self.capacity = capacity }

    /// The answer for `key` at `revision`, computed by `make` when not kept.
    func answer(revision: Int, key: String, _ make: () -> CachedRead) -> CachedRead {
        if let kept = state.withLock({ $0.revision == revision ? $0.entries[key] : nil }) { return kept }
        let made = make()
        state.withLock { state in
            guard revision >= state.revision else { return }
            if revision > state.revision || state.entries.count >= capacity {
                state.revision = revision
                state.entries.removeAll(keepingCapacity: true)
            }
            state.entries[key] = made
        }
        return made
    }
}
