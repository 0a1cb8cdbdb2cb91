// The run loop: one thread, waiting in poll(2) on the keyboard, the quitting signals and the
// store, with the table's next animation frame as the timeout.
#if canImport(Glibc)
import Glibc
#endif
import CommandStore
import FileStore
import Headless
import TableUI
import ViewerCore

/// The quitting signals, which end the viewer the way `q` does (the terminal restored, the
/// demo's folder removed); SIGINT first stops a search.
private let quittingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

/// Runs `viewer` on `terminal` until `q`, a quitting signal or the terminal going away.
/// - Parameter stop: the quitting signals, from the program's edge (none in a test).
/// - Returns: the exit status (0, or 128 + the signal).
func runLoop(_ viewer: Viewer, store: any LiveStore, terminal: Terminal, stop: StopRequests?) -> Int32 {
    takeOverFromTerminal()
    // A loop that has not taken a signal within a second is stuck: the terminal is put back
    // from the edge's thread, and the process ends with the signal's status.
    stop?.listen(for: Set(quittingSignals), grace: 1) { signal in
        Terminal.restoreFromAnyThread()
        // _exit skips atexit: a watched command's group is ended here.
        endRunningCommands()
        _exit(128 + signal)
    }
    defer { stop?.stopListening() }
    let heldKeys = HeldLoopKeys(inputFD: terminal.inputFD) {
        Terminal.restoreFromAnyThread()
        endRunningCommands()
        _exit(0)
    }
    defer { heldKeys.end() }
    var fds = [pollfd(fd: terminal.inputFD, events: Int16(POLLIN), revents: 0),
               pollfd(fd: stop?.fd ?? -1, events: Int16(POLLIN), revents: 0)]
    fds += store.pollDescriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    var status: Int32 = 0
    defer { viewer.stop() }
    while viewer.isRunning {
        viewer.render()
        for i in fds.indices { fds[i].revents = 0 }
        let typedMeanwhile = heldKeys.waiting()
        terminal.pushBack(typedMeanwhile)
        let ready = poll(&fds, nfds_t(fds.count), typedMeanwhile.isEmpty ? pollTimeout(viewer.nextDeadline) : 0)
        heldKeys.working()
        if ready < 0 && errno != EINTR { return 1 }
        // Ctrl-C first stops a search that is running, as Esc does; then it quits.
        if fds[1].revents != 0, let signal = stop?.take(), !(signal == SIGINT && viewer.interrupt()) { return 128 + signal }
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

/// Lets SIGWINCH reach this thread (ncurses learns of a resize from its handler, and the
/// signal must interrupt this loop's poll(2), not land on another thread), and blocks the
/// quitting signals again: the program's edge takes them (`Terminal` unblocks them for its own
/// emergency restore, which would end the process without the viewer's clean-up).
private func takeOverFromTerminal() {
    var resize = sigset_t()
    sigemptyset(&resize)
    sigaddset(&resize, SIGWINCH)
    _ = pthread_sigmask(SIG_UNBLOCK, &resize, nil)
    var quitting = sigset_t()
    sigemptyset(&quitting)
    for s in quittingSignals { sigaddset(&quitting, s) }
    _ = pthread_sigmask(SIG_BLOCK, &quitting, nil)
}

/// Milliseconds until `deadline` (the table's next animation frame); -1 (wait for input) when none.
private func pollTimeout(_ deadline: Double?) -> Int32 {
    guard let deadline else { return -1 }
    let ms = (deadline - TableClock.now()) * 1000
    return ms <= 0 ? 0 : Int32(min(ms.rounded(.up), 60_000))
}
