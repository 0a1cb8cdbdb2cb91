// Requests to stop a command: the quitting signals the program's edge (the executable) takes,
// as bytes on a pipe that a command's loop polls; a test sends its own.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The quitting signals (SIGINT, SIGTERM, SIGHUP) as something a command's loop polls, so that
/// they end it the way `q` or the input's end does: the terminal restored, the output whole.
///
/// Only the executable turns signals into requests (`deliver`); a command that polls `fd` says
/// so with `listen`. A request no command listens for ends the process as the signal would.
/// A loop that has not taken a request within its grace is stuck (a computation that should
/// not be there, a reader that does not read): its `stuck` action then ends the process, so
/// a quitting signal always quits.
public final class StopRequests: Sendable {
    /// Readable when a request waits: `take()` it.
    public let fd: Int32
    private let writeEnd: Int32
    private let sent = Atomic<Int>(0)
    private let taken = Atomic<Int>(0)
    private let listener = Mutex<Listener?>(nil)

    private struct Listener: Sendable {
        var signals: Set<Int32>
        var grace: Double
        var stuck: @Sendable (Int32) -> Void
    }

    public init() throws(CommandError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw CommandError("cannot make a pipe: \(errnoText())") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        fd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fd)
        close(writeEnd)
    }

    /// Says that the caller's loop polls `fd` for `signals` until `stopListening()`.
    /// - Parameters:
    ///   - grace: how long a request may wait before the loop counts as stuck.
    ///   - stuck: ends the process (on the edge's thread) when the loop is stuck.
    public func listen(for signals: Set<Int32>, grace: Double, whenStuck stuck: @escaping @Sendable (Int32) -> Void) {
        listener.withLock { $0 = Listener(signals: signals, grace: grace, stuck: stuck) }
    }

    public func stopListening() {
        listener.withLock { $0 = nil }
    }

    /// Hands `signal` to the listening loop and waits up to its grace for the loop to take it;
    /// `unheard` runs when no loop listens for it.
    public func deliver(_ signal: Int32, unheard: (Int32) -> Void) {
        guard let listener = listener.withLock({ $0 }), listener.signals.contains(signal) else { return unheard(signal) }
        let number = sent.add(1, ordering: .relaxed).newValue
        var byte = UInt8(truncatingIfNeeded: signal)
        _ = write(writeEnd, &byte, 1)
        for _ in 0..<Int(listener.grace * 100) where taken.load(ordering: .relaxed) < number { usleep(10_000) }
        if taken.load(ordering: .relaxed) < number { listener.stuck(signal) }
    }

    /// The request that arrived, if any (never blocks).
    public func take() -> Int32? {
        var byte: UInt8 = 0
        guard read(fd, &byte, 1) == 1 else { return nil }
        taken.add(1, ordering: .relaxed)
        return Int32(byte)
    }
}
