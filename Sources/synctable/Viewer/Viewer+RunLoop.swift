// The run loop: one thread, waiting in poll(2) on the keyboard, the quitting signals and the
// store, with the table's next animation frame as the timeout.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import TableUI

extension Viewer {
    /// Runs until `q`, a quitting signal or the terminal going away.
    /// - Returns: the exit status (0, or 128 + the signal).
    func run() -> Int32 {
        signals.takeOverFromTerminal()
        let storeFDs = store.pollDescriptors
        var fds = [pollfd(fd: terminal.inputFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
        fds += storeFDs.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while running {
            render()
            for i in fds.indices { fds[i].revents = 0 }
            let ready = poll(&fds, nfds_t(fds.count), pollTimeout())
            if ready < 0 && errno != EINTR {
                exitStatus = 1
                break
            }
            if fds[1].revents != 0, let signal = signals.take() {
                exitStatus = 128 + signal
                break
            }
            if fds.dropFirst(2).contains(where: { $0.revents != 0 }) { store.processPendingChanges() }
            // Keys are read after every wake-up: a resize arrives as EINTR, then as a key.
            while running, let key = terminal.readKey() { handle(key) }
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                // The terminal is gone (its window closed): nothing more to show.
                exitStatus = 129
                break
            }
            table.tick(now: TableClock.now())
            loadMoreIfNeeded()
        }
        stop()
        return exitStatus
    }

    /// Milliseconds until the table's next animation frame; -1 (wait for input) when none.
    private func pollTimeout() -> Int32 {
        guard let deadline = table.nextDeadline else { return -1 }
        let ms = (deadline - TableClock.now()) * 1000
        return ms <= 0 ? 0 : Int32(min(ms.rounded(.up), 60_000))
    }
}
