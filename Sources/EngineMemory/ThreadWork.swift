// Work on a thread of its own, waited for by the thread that started it: a large tape's pages
// are faulted in beside its parse; a write's temporary file is written and synced while the
// writer checks the file it replaces.
#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` on a new thread at once; `join()` waits for it and gives its result. Where no
/// thread can be made, `body` runs in `join()` instead, so the work is never lost.
///
/// Not Sendable: the thread that made it joins it (the join orders the result's write before
/// its read).
package final class ThreadWork<Value> {
    private let outcome = Outcome()
    private let start: ThreadStart
    private var thread = pthread_t()
    private let started: Bool
    private var joined = false

    package init(_ body: @escaping () -> Value) {
        let outcome = outcome
        start = ThreadStart { outcome.value = body() }
        let raw = Unmanaged.passRetained(start).toOpaque()
        started = pthread_create(&thread, nil, { raw in
            Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, raw) == 0
        if !started { Unmanaged<ThreadStart>.fromOpaque(raw).release() }
    }

    /// Waits for the work (once) and returns its result.
    package func join() -> Value {
        if !joined {
            joined = true
            if started { pthread_join(thread, nil) } else { start.run() }
        }
        return outcome.value!
    }

    deinit { _ = join() }

    private final class Outcome: @unchecked Sendable {
        var value: Value?
    }
}

/// The body of a thread, passed through `pthread_create`'s argument (a C callback cannot name
/// a generic type).
private final class ThreadStart: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
