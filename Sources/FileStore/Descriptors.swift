// The loop's wake-ups: a pipe any thread can signal, and timers that signal it when due.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// A file descriptor closed when the last reference goes away.
///
/// Sendable: the descriptor number is immutable, and what is done with it (writing a byte to
/// a pipe, reading an inotify queue from its one owner) is safe from any thread.
final class OwnedDescriptor: Sendable {
    let raw: Int32
    init(_ raw: Int32) { self.raw = raw }
    deinit { close(raw) }
}

/// A pipe used as a wake-up: any thread may `signal()`; the loop polls `fd` and `drain()`s it.
package final class WakeSignal: Sendable {
    private let readEnd: OwnedDescriptor
    private let writeEnd: OwnedDescriptor

    package init() throws(FileStoreError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .system("pipe", errno) }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = OwnedDescriptor(fds[0])
        writeEnd = OwnedDescriptor(fds[1])
    }

    /// The end to poll for `POLLIN`.
    package var fd: Int32 { readEnd.raw }

    /// Makes `fd` readable. A full pipe is already readable, so a failed write loses nothing.
    package func signal() {
        var one: UInt8 = 1
        _ = write(writeEnd.raw, &one, 1)
    }

    /// Clears the signal; returns whether it was set.
    @discardableResult
    package func drain() -> Bool {
        var signalled = false
        withUnsafeTemporaryAllocation(byteCount: 256, alignment: 1) { buffer in
            while read(readEnd.raw, buffer.baseAddress, buffer.count) > 0 { signalled = true }
        }
        return signalled
    }
}

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
