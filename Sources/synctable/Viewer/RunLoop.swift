// The run loop: one thread, waiting in poll(2) on the keyboard, the quitting signals and the
// store, with the table's next animation frame as the timeout.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Headless
import TableUI
import ViewerCore

/// Runs `viewer` on `terminal` until `q`, a quitting signal or the terminal going away.
/// - Returns: the exit status (0, or 128 + the signal).
func runLoop(_ viewer: Viewer, store: any LiveStore, terminal: Terminal, signals: SignalWatch) -> Int32 {
    signals.takeOverFromTerminal()
    var fds = [pollfd(fd: terminal.inputFD, events: Int16(POLLIN), revents: 0),
               pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
    fds += store.pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    var status: Int32 = 0
    defer { viewer.stop() }
    while viewer.isRunning {
        viewer.render()
        for i in fds.indices { fds[i].revents = 0 }
        let ready = poll(&fds, nfds_t(fds.count), pollTimeout(viewer.nextDeadline))
        if ready < 0 && errno != EINTR { return 1 }
        // Ctrl-C first stops a search that is running, as Esc does; then it quits.
        if fds[1].revents != 0, let signal = signals.take(), !(signal == SIGINT && viewer.interrupt()) { return 128 + signal }
        if fds.dropFirst(2).contains(where: { $0.revents != 0 }) { store.processPendingChanges() }
        // Keys are read after every wake-up: a resize arrives as EINTR, then as a key.
        while viewer.isRunning, let key = terminal.readKey() { viewer.handle(key) }
        if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
            // The terminal is gone (its window closed): nothing more to show.
            status = 129
            break
        }
        viewer.tick()
    }
    return status
}

/// Milliseconds until `deadline` (the table's next animation frame); -1 (wait for input) when none.
private func pollTimeout(_ deadline: Double?) -> Int32 {
    guard let deadline else { return -1 }
    let ms = (deadline - TableClock.now()) * 1000
    return ms <= 0 ? 0 : Int32(min(ms.rounded(.up), 60_000))
}
