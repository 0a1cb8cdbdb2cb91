import Glibc

/// A file that a swap replaced is freed when its last reference goes, in whichever thread or
/// process lets go of it last. On a file system that discards blocks as it frees them (ext4
/// mounted with `discard`), that thread waits for the device: about 90 ms for 150 MB here. A
/// command whose write is its last act would spend that in its exit, after the new file is in
/// place and durable. `holdUntilExit` hands the last reference to a helper process instead,
/// which lets go once this process has exited.
enum ReplacedFileRelease {
    /// Gives a helper process a descriptor of `fd`'s file, which it closes once this process
    /// has exited (whatever way it exits). The caller may close `fd` at once.
    /// - Returns: false where no helper could be started; the file is then freed as before.
    static func holdUntilExit(_ fd: Int32) -> Bool {
        guard fd > 3, let (readEnd, _) = exitPipe, let helper else { return false }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The helper reads the pipe until its end: this process's exit closes the write end,
        // the only one (close-on-exec, so no other child holds it).
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, fd, 3)
        // Nothing else of ours: a caller reading our output to its end must not wait for it.
        _ = addCloseFrom?(&actions, 4)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("cat"), nil]
        defer { free(argv[0]) }
        let environment: [UnsafeMutablePointer<CChar>?] = [nil]
        var pid = pid_t()
        // Returns once the helper runs `cat`, its descriptors in place.
        return posix_spawn(&pid, helper, &actions, &attributes, argv, environment) == 0
    }

    /// The pipe the helpers read (both ends close-on-exec), made once and never closed.
    private static let exitPipe: (Int32, Int32)? = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        // (Glibc's module map leaves out `pipe2`; a child spawned in between by another
        // thread would only keep a helper a little longer.)
        guard fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0 else {
            close(ends[0])
            close(ends[1])
            return nil
        }
        return (ends[0], ends[1])
    }()

    /// `cat`: it reads its input to the end and exits.
    private static let helper: String? = ["/bin/cat", "/usr/bin/cat"].first { access($0, X_OK) == 0 }
}

/// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), found at run time: Glibc's module
/// map leaves it out. Without it, only close-on-exec keeps our descriptors from the helper.
private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
private let addCloseFrom = cLibraryFunction("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)
