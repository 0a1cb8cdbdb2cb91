// Putting the terminal back when the program is killed or crashes: a signal handler that
// only does async-signal-safe things (write(2) of bytes prepared in advance, tcsetattr(3))
// and then re-raises the signal with its default action. It runs on a stack of its own, so
// that a crash from a stack overflow, which leaves no stack to run on, restores it too.
// The handler is process-wide: the program's edge installs it (`restoreOnFatalSignals`); an
// open terminal only arms it.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What the handler needs, prepared while the terminal opens.
struct EmergencyRestore {
    var armed: Int32
    var fd: Int32
    var length: Int
    var shellMode: termios
}

// Raw memory allocated once, so the handler reads it without touching the Swift runtime
// (no allocation, no reference counting). `nonisolated(unsafe)`: the pointers never change;
// the memory is written only by `armEmergencyRestore`/`disarmEmergencyRestore` on the
// thread that owns the terminal, and read by the signal handler, which is the point.
nonisolated(unsafe) private let emergencyState: UnsafeMutablePointer<EmergencyRestore> = {
    let p = UnsafeMutablePointer<EmergencyRestore>.allocate(capacity: 1)
    p.initialize(to: EmergencyRestore(armed: 0, fd: -1, length: 0, shellMode: termios()))
    return p
}()
private let emergencyCapacity = 1024
nonisolated(unsafe) private let emergencyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1024)

// The handler's own stack (`sigaltstack`), allocated once and never freed: a signal may come
// at any moment while it is installed. The handler needs little (two system calls); 64 KiB
// is well over glibc's MINSIGSTKSZ and SIGSTKSZ.
private let alternateStackSize = 64 << 10
nonisolated(unsafe) private let alternateStack = UnsafeMutableRawPointer.allocate(byteCount: alternateStackSize, alignment: 16)

/// Signals that end the program: the terminal is restored, then the signal's default
/// action runs (so a crash still dumps core and the exit status still tells). Every signal
/// whose default action ends the process is here — a `kill -USR1`, a SIGPIPE or an alarm
/// must not leave the shell in raw mode — including the real-time ones.
let fatalSignals: [Int32] = [
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGTRAP,
    SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGSYS, SIGIO, SIGPWR, SIGSTKFLT,
] + Array(__libc_current_sigrtmin()...__libc_current_sigrtmax())

// The handlers `restoreOnFatalSignals` replaced, by signal number: with no terminal armed, a
// signal goes to the one that was there before (allocated once, read by the handler).
private let signalSlots = 128
nonisolated(unsafe) private let replacedActions: UnsafeMutablePointer<sigaction> = {
    let p = UnsafeMutablePointer<sigaction>.allocate(capacity: signalSlots)
    p.initialize(repeating: sigaction(), count: signalSlots)
    return p
}()

private func restoreOnSignal(_ signal: Int32) {
    if writeEmergencyRestore() {
        _ = Glibc.signal(signal, SIG_DFL)
    } else {
        _ = sigaction(signal, replacedActions + Int(signal), nil)
    }
    _ = raise(signal)
}

/// The restoring bytes and tty modes, once, if a terminal is open (async-signal-safe);
/// whether it was.
private func writeEmergencyRestore() -> Bool {
    let state = emergencyState
    guard state.pointee.armed != 0 else { return false }
    state.pointee.armed = 0
    _ = write(state.pointee.fd, emergencyBytes, state.pointee.length)
    _ = tcsetattr(state.pointee.fd, TCSANOW, &state.pointee.shellMode)
    return true
}

private let installed = Mutex(false)

extension Terminal {
    /// Puts the terminal back from any thread, without ncurses, as the signal handler does:
    /// for a process that must end while the thread that owns the terminal is busy (a quitting
    /// signal it did not take in time). Nothing may draw afterwards; end the process.
    public static func restoreFromAnyThread() {
        _ = writeEmergencyRestore()
    }

    /// Installs, process-wide and once, the handler that puts an open terminal back when a
    /// signal ends the program (`fatalSignals`) and then lets the signal take its default
    /// action; with no terminal open, a signal goes to the handler that was there before.
    /// A signal the program ignores (SIGHUP under nohup, SIGINT in a background job) stays
    /// ignored. For the program's edge, before any thread starts; a terminal opened without
    /// it (`Options.catchSignals` or not) leaves every signal as it was.
    public static func restoreOnFatalSignals() {
        installed.withLock { done in
            guard !done else { return }
            done = true
            installRestoreHandler()
        }
    }
}

/// What `armEmergencyRestore` changed, for `disarmEmergencyRestore` to put back.
struct ArmedHandlers {
    /// The thread whose alternate stack was installed (a thread's alternate stack is its own),
    /// when it had none before.
    var stackThread: pthread_t?
}

/// Arms the handler (where the program installed it): `bytes` (the terminal's own "leave the
/// alternate screen, show the cursor, reset attributes" strings) go to `fd`, then `shellMode`
/// is set back. The handler runs on an alternate stack on this thread (the one that owns the
/// terminal and runs the viewer), unless the thread has one already.
func armEmergencyRestore(fd: Int32, bytes: [UInt8], shellMode: termios) -> ArmedHandlers {
    let n = min(bytes.count, emergencyCapacity)
    bytes.withUnsafeBufferPointer { emergencyBytes.update(from: $0.baseAddress!, count: n) }
    emergencyState.pointee = EmergencyRestore(armed: 1, fd: fd, length: n, shellMode: shellMode)
    var armed = ArmedHandlers()
    var current = stack_t()
    if sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) != 0 {
        var stack = stack_t(ss_sp: alternateStack, ss_flags: 0, ss_size: alternateStackSize)
        if sigaltstack(&stack, nil) == 0 { armed.stackThread = pthread_self() }
    }
    return armed
}

/// Takes every fatal signal the program does not ignore, keeping the handler it replaces.
private func installRestoreHandler() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = restoreOnSignal
    sigemptyset(&action.sa_mask)
    // SA_RESTART as signal(3) gives: a read interrupted by an ignored-for-now signal goes on.
    action.sa_flags = SA_ONSTACK | SA_RESTART
    for signal in fatalSignals where Int(signal) < signalSlots {
        var previous = sigaction()
        guard sigaction(signal, &action, &previous) == 0 else { continue }
        if previous.sa_flags & SA_SIGINFO == 0, unsafeBitCast(previous.__sigaction_handler.sa_handler, to: Int.self) == 1 {  // SIG_IGN
            sigaction(signal, &previous, nil)
        } else {
            replacedActions[Int(signal)] = previous
        }
    }
}

/// Unblocks `signals` on this thread (a parent may have started us with them blocked,
/// and then ncurses would never see a resize nor we a SIGTERM); returns the old mask.
func unblock(_ signals: [Int32]) -> sigset_t {
    var set = sigset_t()
    var old = sigset_t()
    sigemptyset(&set)
    for s in signals { sigaddset(&set, s) }
    pthread_sigmask(SIG_UNBLOCK, &set, &old)
    return old
}

/// Puts back a signal mask saved by `unblock`.
func restoreSignalMask(_ mask: sigset_t) {
    var mask = mask
    pthread_sigmask(SIG_SETMASK, &mask, nil)
}

/// Disarms the handler (it stays installed) and puts back the stack `armEmergencyRestore` replaced.
func disarmEmergencyRestore(_ armed: ArmedHandlers) {
    emergencyState.pointee.armed = 0
    if let thread = armed.stackThread, pthread_equal(thread, pthread_self()) != 0 {
        var off = stack_t(ss_sp: nil, ss_flags: Int32(SS_DISABLE), ss_size: 0)
        sigaltstack(&off, nil)
    }
}
