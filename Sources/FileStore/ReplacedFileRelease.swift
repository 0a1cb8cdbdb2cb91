import EngineMemory
import Glibc
import StoreInterface

/// A file that a swap replaced is freed when its last reference goes, in whichever thread or
/// process lets go of it last. On a file system that discards blocks as it frees them (ext4
/// mounted with `discard`), that thread waits for the device: about 90 ms for 150 MB here. A
/// command whose write is its last act would spend that in its exit, after the new file is in
/// place and durable. `guardUntilExit` hands the last reference to a helper process instead,
/// which lets go once this process has exited.
///
/// The helper is started before the write gives any file a name, and once this process has
/// exited (whatever way: a kill at any instant too) it removes every temporary name of the
/// write that is left: the new file named just before the swap, or the old one the swap put
/// under that name just before it is removed. So a killed command leaves no copy of the file
/// behind.
enum ReplacedFileRelease {
    /// Starts a helper that holds `fd`'s file (the file about to be replaced) until this process
    /// has exited, then removes the names in the folder open as `folderFD` that start with
    /// `prefix` and end with `.tmp` (this process's temporaries of the file). The caller may
    /// close `fd` at once.
    /// - Returns: false where no helper could be started; the file is then freed as before,
    ///   and a killed write's names are removed by a later writer (`WriteSession.removeLeftovers`).
    static func guardUntilExit(holding fd: Int32, folder folderFD: Int32, prefix: String) -> Bool {
        guard let (readEnd, _) = exitPipe, let shell else { return false }
        // Copies above the helper's 0–4, so that placing one never overwrites another.
        let held = fcntl(fd, F_DUPFD_CLOEXEC, 10), folder = fcntl(folderFD, F_DUPFD_CLOEXEC, 10)
        defer {
            if held >= 0 { close(held) }
            if folder >= 0 { close(folder) }
        }
        guard held >= 0, folder >= 0 else { return false }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The helper reads the pipe until its end: this process's exit closes the write end,
        // the only one (close-on-exec, so no other child holds it).
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, held, 3)
        posix_spawn_file_actions_adddup2(&actions, folder, 4)
        // Nothing else of ours: a caller reading our output to its end must not wait for it.
        Posix.closeFrom(5, in: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        // `cat` waits for the end of the pipe without the file or the folder; then the names
        // are removed through the folder's descriptor (`/proc/self/fd/4`: the folder even if it
        // was renamed meanwhile). The prefix is quoted, so that only the `*` matches.
        let script = #"cat 3<&- 4<&- >/dev/null; exec rm -f -- "/proc/self/fd/4/$1"*.tmp"#
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("sh"), strdup("-c"), strdup(script), strdup("sh"), strdup(prefix), nil]
        defer { argv.forEach { free($0) } }
        let environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { environment.forEach { free($0) } }
        var pid = pid_t()
        // Returns once the helper runs, its descriptors in place.
        return posix_spawn(&pid, shell, &actions, &attributes, argv, environment) == 0
    }

    /// The pipe the helpers read (both ends close-on-exec, above the helper's 0–4), made once
    /// and never closed.
    private static let exitPipe: (Int32, Int32)? = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        // (Glibc's module map leaves out `pipe2`; a child spawned in between by another
        // thread would only keep a helper a little longer.)
        let read = fcntl(ends[0], F_DUPFD_CLOEXEC, 10), write = fcntl(ends[1], F_DUPFD_CLOEXEC, 10)
        close(ends[0])
        close(ends[1])
        guard read >= 0, write >= 0 else {
            if read >= 0 { close(read) }
            if write >= 0 { close(write) }
            return nil
        }
        return (read, write)
    }()

    /// The shell that runs the helper.
    private static let shell: String? = ["/bin/sh", "/usr/bin/sh"].first { access($0, X_OK) == 0 }
}
