// Answers computed from the newest revision, shared by every request and stream that needs
// them: bounded by their bytes, and each computed once however many ask at the same moment.
import Hummingbird
import Synchronization

/// A value that knows how many bytes it holds.
protocol ByteSized: Sendable {
    var byteCount: Int { get }
}

/// A read's answer: the response body (nil for `print=silent`) and the value's ETag (when one
/// was asked for).
struct CachedRead: ByteSized {
    let body: ByteBuffer?
    let etag: String?
    var byteCount: Int { (body?.readableBytes ?? 0) + (etag?.utf8.count ?? 0) }
}

/// The answers for one revision by key, emptied when a newer revision is asked about.
///
/// Holds at most `byteLimit` bytes of answers: the oldest go first, and an answer larger than
/// the limit is handed out but not kept. Keys are bytes, so that two keys are one only when
/// they are the same code units. Tasks asking for an answer being computed wait for it rather
/// than computing it again: a hundred streams opened at once serialise the file once.
final class RevisionCache<Value: ByteSized>: Sendable {
    private struct Computing: Hashable {
        let revision: Int
        let key: [UInt8]
    }

    private enum Found {
        case kept(Value), waiting, compute
    }

    private struct State {
        var revision = 0
        var entries: [[UInt8]: Value] = [:]
        /// Keys in the order they were kept, from `oldest` on (earlier ones are gone).
        var order: [[UInt8]] = []
        var oldest = 0
        var bytes = 0
        var computations = 0
        var waiting: [Computing: [CheckedContinuation<Value, Never>]] = [:]
    }

    private let state = Mutex(State())
    let byteLimit: Int

    init(byteLimit: Int) { self.byteLimit = byteLimit }

    /// The bytes of the answers kept.
    var byteCount: Int { state.withLock { $0.bytes } }

    /// How many answers have been computed (not found kept, nor waited for).
    var computations: Int { state.withLock { $0.computations } }

    /// The answer for `key` at `revision`: kept, being computed by another task (then waited
    /// for), or computed now by `make`.
    func answer(revision: Int, key: [UInt8], _ make: () -> Value) async -> Value {
        let computing = Computing(revision: revision, key: key)
        return await withCheckedContinuation { continuation in
            let found = state.withLock { state -> Found in
                if state.revision == revision, let kept = state.entries[key] { return .kept(kept) }
                if state.waiting[computing] != nil {
                    state.waiting[computing]!.append(continuation)
                    return .waiting
                }
                state.waiting[computing] = []
                state.computations += 1
                return .compute
            }
            switch found {
            case .kept(let value):
                continuation.resume(returning: value)
            case .waiting:
                break
            case .compute:
                let made = make()
                let waiters = state.withLock { state in
                    keep(made, key: key, revision: revision, in: &state)
                    return state.waiting.removeValue(forKey: computing) ?? []
                }
                continuation.resume(returning: made)
                for waiter in waiters { waiter.resume(returning: made) }
            }
        }
    }

    private func keep(_ value: Value, key: [UInt8], revision: Int, in state: inout State) {
        guard revision >= state.revision else { return }
        if revision > state.revision {
            state.revision = revision
            state.entries.removeAll()
            state.order.removeAll()
            state.oldest = 0
            state.bytes = 0
        }
        let size = value.byteCount + key.count
        guard size <= byteLimit, state.entries[key] == nil else { return }
        while state.bytes + size > byteLimit, state.oldest < state.order.count {
            let old = state.order[state.oldest]
            state.oldest += 1
            if let gone = state.entries.removeValue(forKey: old) { state.bytes -= gone.byteCount + old.count }
        }
        if state.oldest > 64 && state.oldest * 2 > state.order.count {
            state.order.removeFirst(state.oldest)
            state.oldest = 0
        }
        state.entries[key] = value
        state.order.append(key)
        state.bytes += size
    }
}
