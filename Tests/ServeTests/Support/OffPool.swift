// Waits off the concurrency pool, for what an in-process server does from its own threads.
import Foundation

/// Whether the server closed each of `connections` within `seconds`, waited for off the pool.
func closedByServer(_ connections: [HTTPConnection], seconds: Double) async -> [Bool] {
    await offPool { connections.map { $0.isClosedByServer(seconds: seconds) } }
}

/// `wait` run on a thread of its own: a blocking wait on the concurrency pool would hold a
/// thread that what it waits for may need (an in-process server's close of a WebSocket whose
/// client does not answer times out on a `Task.sleep`), and a full parallel run keeps the
/// pool's two threads busy.
func offPool<T: Sendable>(_ wait: @escaping () -> T) async -> T {
    let box = WaitBox(wait)
    return await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: box.wait()) }.start()
    }
}

/// A wait (and the connections it holds) handed to the one thread that runs it.
private final class WaitBox<T>: @unchecked Sendable {
    let wait: () -> T
    init(_ wait: @escaping () -> T) { self.wait = wait }
}
