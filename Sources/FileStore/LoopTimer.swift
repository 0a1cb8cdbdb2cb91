// The loop's timers, which signal its wake-up (`WakeSignal`) when due.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import StoreInterface

/// A one-shot or periodic deadline on the loop. When due it signals the loop's wake-up (from
/// a Dispatch timer); the loop then asks `fired()`. Early or extra wake-ups are harmless.
final class LoopTimer {
    private static let queue = DispatchQueue(label: "FileStore.timer")
    private let wake: WakeSignal
    /// When it is due, in `CLOCK_MONOTONIC` nanoseconds; nil when disarmed.
    private var deadline: UInt64?
    private var period: UInt64?

    init(wake: WakeSignal) { self.wake = wake }

    var isArmed: Bool { deadline != nil }

    /// Due after `milliseconds`, then every `repeating` milliseconds when given.
    func arm(milliseconds: Int, repeating: Int? = nil) {
        period = repeating.map { UInt64($0) * 1_000_000 }
        schedule(monotonicNanoseconds() + UInt64(milliseconds) * 1_000_000)
    }

    func disarm() {
        deadline = nil
        period = nil
    }

    /// Whether the deadline has passed (a periodic timer then moves to its next deadline).
    /// Within a millisecond counts as passed: the Dispatch timer and this clock may disagree
    /// slightly, and a wake-up judged early would not come again.
    func fired() -> Bool {
        let now = monotonicNanoseconds()
        guard let due = deadline, now + 1_000_000 >= due else { return false }
        if let period { schedule(max(due + period, now + period / 2)) } else { deadline = nil }
        return true
    }

    private func schedule(_ due: UInt64) {
        deadline = due
        let delay = Int(due &- min(due, monotonicNanoseconds()))
        Self.queue.asyncAfter(deadline: .now() + .nanoseconds(delay)) { [wake] in wake.signal() }
    }
}
