// A value shared between threads behind a mutex.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a mutex (the package supports macOS 13, before `Synchronization.Mutex`).
final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only read or written inside `withLock`, while `mutex` is held, so the
    // box may be shared between threads; the mutex lives on the heap so it never moves.
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
