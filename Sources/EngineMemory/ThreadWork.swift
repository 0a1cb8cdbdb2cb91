// Work on a thread of its own, waited for by the thread that started it: the second half of a
// large parse, read, child list or window, a large tape's pages faulted in beside its parse, a
// write's temporary file written while the writer checks the file it replaces. Only tuned
// (`secondThread`): a plain caller asks for none, or for the work to run when it is waited for.
#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` on a new thread at once (`onThread`); `join()` waits for it and gives its result.
/// Otherwise, or where no thread can be made, `body` runs in `join()` instead, so the work is
/// never lost: a caller must not wait for the work's progress before it joins unless
/// `startsThread`.
///
/// Not Sendable: the thread that made it joins it (the join orders the result's write before
/// its read).
package final class ThreadWork<Value> {
    private let outcome = Outcome()
    private let start: ThreadStart
    private var thread = pthread_t()
    /// Whether the work runs on a thread of its own (else in `join()`).
    package let startsThread: Bool
    private var joined = false

    package init(onThread: Bool = true, _ body: @escaping () -> Value) {
        let outcome = outcome
        start = ThreadStart { outcome.value = body() }
        guard onThread else {
            startsThread = false
            return
        }
        let raw = Unmanaged.passRetained(start).toOpaque()
        startsThread = Posix.startThread(&thread, { raw in
            Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, raw)
        if !startsThread { Unmanaged<ThreadStart>.fromOpaque(raw).release() }
    }

    /// Waits for the work (once) and returns its result.
    package func join() -> Value {
        if !joined {
            joined = true
            if startsThread { Posix.join(thread) } else { start.run() }
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
