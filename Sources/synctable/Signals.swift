// The quitting signals, taken in one place for every command, and the descriptor limit.
#if canImport(Glibc)
import Glibc
#endif
import CommandStore
import Headless

/// Blocks SIGINT, SIGTERM, SIGHUP and SIGWINCH and takes the first three on a thread of their
/// own with sigwait(3), handing each to the running command as a request (`StopRequests`).
///
/// Call first, before any thread starts: threads inherit the blocked set, so the signals wait
/// for the command's loop instead of killing the process mid-write. A signal no command listens
/// for ends the process as it would have (after ending a watched command's process group).
/// SIGWINCH stays blocked until the viewer's thread lets it in (ncurses' resize handler).
/// Crash signals go to the handlers `main.swift` installs next: `Terminal`'s, which restores the
/// terminal and lets them take their default action, and for SIGBUS on a mapped file the
/// engine's guard.
func watchQuittingSignals() throws(CommandError) -> StopRequests {
    let requests = try StopRequests()
    var blocked = sigset_t()
    sigemptyset(&blocked)
    for s in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] { sigaddset(&blocked, s) }
    guard pthread_sigmask(SIG_BLOCK, &blocked, nil) == 0 else { throw CommandError("cannot block signals: \(errnoText())") }
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { argument in
        let requests = Unmanaged<StopRequests>.fromOpaque(argument!).takeRetainedValue()
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, s) }
        while true {
            var signal: Int32 = 0
            guard sigwait(&set, &signal) == 0 else { continue }
            requests.deliver(signal, unheard: endAsTheSignalWould)
        }
    }, Unmanaged.passRetained(requests).toOpaque())
    guard started == 0 else { throw CommandError("cannot start the signal thread: \(String(cString: strerror(started)))") }
    pthread_detach(thread)
    return requests
}

/// Ends the process by `signal`'s default action, as if it had never been blocked.
private func endAsTheSignalWould(_ signal: Int32) {
    endRunningCommands()
    Glibc.signal(signal, SIG_DFL)
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signal)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    kill(getpid(), signal)
    _exit(128 + signal)
}

/// Lets the process open as many descriptors as the system allows it: each stream a server
/// holds takes one, and the usual soft limit (1,024) would cap it at about a thousand clients.
func raiseDescriptorLimit() {
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(resource, &limit)
}
