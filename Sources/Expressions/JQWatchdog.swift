// The bound on a libjq run: one that goes on too long on a child is halted, and says so.
import CJQ
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Halts libjq runs that go past `limit` on one input.
///
/// jq 1.6 cannot be interrupted from outside, but its interpreter checks `jq_halted` before
/// each instruction: a thread of its own looks at the running states every `period` and calls
/// `jq_halt` on one whose run started more than `limit` ago (`[range(1e9)] | length`,
/// `until(false; .)`). A regular expression runs inside one instruction; Oniguruma's own
/// retry limit (ten million steps a match, Debian's default) bounds it instead.
///
/// A run halts under its state's lock and reads whether it was halted under the same lock, so
/// that `jq_halt`'s writes are finished before the run reads them or starts again.
final class JQWatchdog: Sendable {
    static let shared = JQWatchdog()
    /// How long one run on one input may take: about the most a viewer's key may wait for a row.
    static let limit: UInt64 = 500_000_000
    static let period: UInt64 = 50_000_000

    private let watched = Mutex<[ObjectIdentifier: Unmanaged<JQState>]>([:])
    private let started = Mutex(false)

    /// Watches `state` from now until `forget`.
    func watch(_ state: JQState) {
        watched.withLock { $0[ObjectIdentifier(state)] = Unmanaged.passUnretained(state) }
        startOnce()
    }

    /// Stops watching `state` (before it is torn down).
    func forget(_ state: JQState) {
        _ = watched.withLock { $0.removeValue(forKey: ObjectIdentifier(state)) }
    }

    private func startOnce() {
        let first = started.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // Without the thread no run is bounded, which is how jq itself runs.
        _ = pthread_create(&thread, &attributes, { _ in
            JQWatchdog.shared.loop()
            return nil
        }, nil)
        pthread_attr_destroy(&attributes)
    }

    private func loop() -> Never {
        while true {
            var pause = timespec(tv_sec: 0, tv_nsec: Int(Self.period))
            nanosleep(&pause, nil)
            let now = monotonicNanoseconds()
            // The registry's lock is held throughout: a state leaves it before it is torn down.
            watched.withLock { states in
                for state in states.values { state.takeUnretainedValue().haltIfOverdue(now: now) }
            }
        }
    }
}

/// The clock runs are timed by, in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// When a state's run started (0: none is running), and whether the watchdog halted it.
struct RunClock {
    var since: UInt64 = 0
    var halted = false
}
