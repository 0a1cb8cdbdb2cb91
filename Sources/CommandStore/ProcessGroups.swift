// The process groups of commands running now, ended however this process ends.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Every command a `CommandStore` runs leads a process group of its own; this holds the groups
/// that are running, so that an exit that skips `CommandStore.stop()` (`exit`, a signal's
/// handler that ends the process) still ends them: a watched command must not outlive its viewer.
enum ProcessGroups {
    private static let running = Mutex<Set<pid_t>>([])
    private static let hooked = Atomic<Bool>(false)

    static func add(_ group: pid_t) {
        if !hooked.exchange(true, ordering: .relaxed) { atexit { ProcessGroups.endAll() } }
        _ = running.withLock { $0.insert(group) }
    }

    /// Ends `group` and every process in it, at once (SIGKILL: a command blocked on its
    /// output, or one that ignores SIGTERM, must not keep the group alive).
    static func end(_ group: pid_t) {
        _ = kill(-group, SIGKILL)
    }

    static func remove(_ group: pid_t) {
        _ = running.withLock { $0.remove(group) }
    }

    /// Ends every group still running.
    static func endAll() {
        for group in running.withLock({ $0 }) { end(group) }
    }
}

/// Ends the process groups of every command source's runs in progress (for a program about to
/// end the process with `_exit`, which skips `atexit`).
public func endRunningCommands() {
    ProcessGroups.endAll()
}
