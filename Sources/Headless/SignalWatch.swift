// SIGINT, SIGTERM and SIGHUP as something the run loop polls, so that they end the viewer
// the way `q` does: the terminal restored, the demo's folder removed.
#if canImport(Glibc)
import Glibc
#endif
import CommandStore
import Synchronization
import TableUI

/// Signals written to the pipe, and signals the loop took from it.
private let signalsSent = Atomic<Int>(0)
private let signalsTaken = Atomic<Int>(0)

/// Blocks the quitting signals and turns them into bytes on a pipe the run loop polls.
///
/// Create it first, on the main thread, before any other thread starts (the store's reader,
/// the demo writer): threads inherit the blocked set, so the signals wait for the loop instead
/// of killing the process; a small thread takes them with `sigwait(3)` and writes each to the
/// pipe. A loop that has not taken a signal within a second is stuck (a computation that
/// should not be there): that thread then puts the terminal back and ends the process with
/// status 128 + the signal, so a quitting signal always quits.
/// SIGWINCH is blocked too, until the loop's thread calls `takeOverFromTerminal()`:
/// ncurses learns of a resize from its SIGWINCH handler, and the signal must interrupt the
/// loop's poll(2), not land on another thread. Crash signals are left to `Terminal`, which
/// restores the terminal and lets them take their default action.
public final class SignalWatch {
    /// Readable when a quitting signal arrived.
    public let fd: Int32

    public static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    public init() throws(CommandError) {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for s in SignalWatch.signals + [SIGWINCH] { sigaddset(&blocked, s) }
        guard pthread_sigmask(SIG_BLOCK, &blocked, nil) == 0 else {
            throw CommandError("cannot block signals: \(String(cString: strerror(errno)))")
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw CommandError("cannot make a pipe: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        fd = ends[0]
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { argument in
            // Only the pipe's descriptor crosses over, as the pointer's bits.
            let out = Int32(Int(bitPattern: argument))
            var set = sigset_t()
            sigemptyset(&set)
            for s in SignalWatch.signals { sigaddset(&set, s) }
            while true {
                var signal: Int32 = 0
                guard sigwait(&set, &signal) == 0 else { continue }
                var byte = UInt8(truncatingIfNeeded: signal)
                let sent = signalsSent.add(1, ordering: .relaxed).newValue
                _ = write(out, &byte, 1)
                for _ in 0..<100 where signalsTaken.load(ordering: .relaxed) < sent { usleep(10_000) }
                if signalsTaken.load(ordering: .relaxed) < sent {
                    Terminal.restoreFromAnyThread()
                    // _exit skips atexit: a watched command's group is ended here.
                    endRunningCommands()
                    _exit(128 + signal)
                }
            }
        }, UnsafeMutableRawPointer(bitPattern: Int(ends[1])))
        guard started == 0 else { throw CommandError("cannot start the signal thread: \(String(cString: strerror(started)))") }
        pthread_detach(thread)
    }

    /// Call on the loop's thread once the terminal is open: lets SIGWINCH reach this thread,
    /// and blocks the quitting signals again (`Terminal` unblocks them for its own emergency
    /// restore, which would end the process without the viewer's clean-up).
    public func takeOverFromTerminal() {
        var resize = sigset_t()
        sigemptyset(&resize)
        sigaddset(&resize, SIGWINCH)
        _ = pthread_sigmask(SIG_UNBLOCK, &resize, nil)
        var quitting = sigset_t()
        sigemptyset(&quitting)
        for s in SignalWatch.signals { sigaddset(&quitting, s) }
        _ = pthread_sigmask(SIG_BLOCK, &quitting, nil)
    }

    /// The signal that arrived, if any (non-blocking).
    public func take() -> Int32? {
        var byte: UInt8 = 0
        guard read(fd, &byte, 1) == 1 else { return nil }
        signalsTaken.add(1, ordering: .relaxed)
        return Int32(byte)
    }
}
