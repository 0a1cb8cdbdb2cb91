// The checks the viewer makes before the screen opens, each ending with a clear message (exit status 2).
#if canImport(Glibc)
import Glibc
#endif
import ViewerCore

/// The controlling terminal, opened for keys while standard input is a pipe.
/// - Throws: `CommandError` when standard input is itself the terminal (nothing is piped), or
///   there is no terminal to read keys from.
public func terminalForKeys() throws(CommandError) -> Int32 {
    if isatty(CommandIO.current.input) == 1 {
        throw CommandError("'-' reads JSON from standard input, which is the terminal: pipe the data in (some-program | synctable view -)")
    }
    let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else {
        throw CommandError("standard input is the data, and there is no terminal (/dev/tty) to read keys from: \(String(cString: strerror(errno)))")
    }
    return fd
}

/// A file that exists must be a readable regular file (or a link to one); a missing file is
/// fine — the viewer waits for it.
public func checkReadable(_ file: String) throws(CommandError) {
    var st = stat()
    guard stat(file, &st) == 0 else {
        if errno == ENOENT { return }
        throw CommandError("\(file): \(String(cString: strerror(errno)))")
    }
    if (st.st_mode & S_IFMT) == S_IFDIR { throw CommandError("\(file): is a directory, not a JSON file") }
    let fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw CommandError("\(file): cannot read: \(String(cString: strerror(errno)))") }
    close(fd)
}

/// The user's configuration (`$XDG_CONFIG_HOME/synctable/config.json`), empty when there is
/// none; a bad one ends the command before the viewer starts.
public func loadConfig() throws(CommandError) -> ViewerConfig {
    var environment: [String: String] = [:]
    for name in ["XDG_CONFIG_HOME", "HOME"] {
        if let value = getenv(name) { environment[name] = String(cString: value) }
    }
    guard let path = ViewerConfig.standardPath(environment: environment) else { return ViewerConfig() }
    do {
        return try ViewerConfig.load(path: path) ?? ViewerConfig()
    } catch {
        throw CommandError("bad configuration: \(error.located) (the viewer did not start)")
    }
}
