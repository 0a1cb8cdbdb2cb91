// Writing off the loop thread: writes run one after another on their own queue, and their
// results are handed back through the loop's wake-up.
import Dispatch
import JSONTree
import Synchronization
import StoreInterface

/// A write's result, waiting for the loop.
struct FinishedWrite: Sendable {
    let id: Int
    let result: Result<WatchedWrite, WriteError>
}

/// Runs writes on a serial queue (in the order started) and signals `wake` when one finishes.
/// A write may wait for another writer's lock or `fsync` a large file: neither blocks the loop.
final class WriteWorker: Sendable {
    private let queue = DispatchQueue(label: "FileStore.write", qos: .userInitiated)
    private let finished = Mutex<[FinishedWrite]>([])
    private let wake: WakeSignal

    init(wake: WakeSignal) {
        self.wake = wake
    }

    /// Runs `write` on the queue; its result waits in `takeFinished()` under `id`.
    func start(id: Int, _ write: @escaping @Sendable () throws(WriteError) -> WatchedWrite) {
        queue.async { [self] in
            let result = Result { () throws(WriteError) in try write() }
            finished.withLock { $0.append(FinishedWrite(id: id, result: result)) }
            wake.signal()
        }
    }

    func takeFinished() -> [FinishedWrite] {
        finished.withLock { results in
            defer { results.removeAll() }
            return results
        }
    }
}
