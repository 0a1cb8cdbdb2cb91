// Driving the store without a loop of one's own: wait, process, until a condition holds.
#if canImport(Glibc)
import Glibc
#endif

extension FileStore {
    /// Waits up to `timeoutMilliseconds` (-1: forever) for the store to have work, then processes
    /// it (observers are called on this thread).
    /// - Returns: whether there was work.
    @discardableResult
    public func waitAndProcessChanges(timeoutMilliseconds: Int = -1) -> Bool {
        var fds = pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&fds, nfds_t(fds.count), Int32(clamping: timeoutMilliseconds))
        guard ready > 0 else { return false }
        processPendingChanges()
        return true
    }

    /// Runs the store's loop on this thread until `condition` holds (checked first, then after
    /// each round of work).
    /// - Throws: `FileStoreError.timedOut` when `timeoutMilliseconds` pass first.
    public func run(timeoutMilliseconds: Int? = nil, until condition: () -> Bool) throws(FileStoreError) {
        let start = monotonicNanoseconds()
        while !condition() {
            var wait = -1
            if let timeoutMilliseconds {
                let elapsed = Int((monotonicNanoseconds() - start) / 1_000_000)
                guard elapsed < timeoutMilliseconds else { throw .timedOut(milliseconds: timeoutMilliseconds) }
                wait = timeoutMilliseconds - elapsed
            }
            waitAndProcessChanges(timeoutMilliseconds: wait)
        }
    }

    /// Runs the loop until revision `number` (or a later one) is current.
    /// - Returns: the current revision then.
    /// - Throws: `FileStoreError.timedOut` when `timeoutMilliseconds` pass first.
    @discardableResult
    public func waitForRevision(_ number: Int, timeoutMilliseconds: Int? = nil) throws(FileStoreError) -> Revision {
        try run(timeoutMilliseconds: timeoutMilliseconds) { (currentRevision?.number ?? 0) >= number }
        return currentRevision!
    }
}
