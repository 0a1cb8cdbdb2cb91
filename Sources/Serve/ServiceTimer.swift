// The server's periodic services (keep-alives, the unfinished messages' sweep) timed on an event
// loop: a `Task.sleep` wakes on a thread of the concurrency pool, and so does the end of
// ServiceLifecycle's `cancelWhenGracefulShutdown`; a server embedded in a process whose pool is
// busy (a test process's blocking tests hold both threads of a 2-core machine) would not tick.
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Runs a body every period on an event loop's timer until the server shuts down (gracefully or
/// by cancellation), resuming on the caller's executor.
final class ServiceTimer: Sendable {
    private let loop: any EventLoop
    private let state = Mutex<(stopped: Bool, pending: Scheduled<Void>?)>((false, nil))

    init(loop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()) { self.loop = loop }

    /// Calls `body` every `period` until the server stops; returns then.
    func every(_ period: TimeAmount, _ body: () async -> Void) async {
        await withTaskCancellationOrGracefulShutdownHandler {
            while await wait(period) { await body() }
        } onCancelOrGracefulShutdown: { [self] in
            stop()
        }
    }

    /// Waits `period`; false once stopped.
    private func wait(_ period: TimeAmount) async -> Bool {
        let scheduled = state.withLock { state -> Scheduled<Void>? in
            guard !state.stopped else { return nil }
            state.pending = loop.scheduleTask(in: period) {}
            return state.pending
        }
        guard let scheduled else { return false }
        do {
            try await scheduled.futureResult.get()
            return true
        } catch {
            return false
        }
    }

    private func stop() {
        let pending = state.withLock { state in
            state.stopped = true
            defer { state.pending = nil }
            return state.pending
        }
        pending?.cancel()
    }
}
