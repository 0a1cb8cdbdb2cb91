// Starting the viewer: the checks that end with a clear message (exit status 2) before the
// screen opens, then the store, the terminal and the run loop.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import TableUI
import ViewerCore

/// Opens the store and the terminal, runs the viewer, and restores the terminal.
/// - Parameter signals: made by the caller before any thread started (see `SignalWatch`).
/// - Returns: the viewer's exit status.
/// - Throws: `CommandError` when the file cannot be read or the terminal cannot be used.
func runViewer(_ options: ViewerOptions, signals: SignalWatch) throws(CommandError) -> Int32 {
    try checkReadable(options.file)
    let store: FileStore
    do {
        store = try FileStore(path: options.file)
    } catch {
        throw CommandError("\(options.file): \(error)")
    }
    let terminal: Terminal
    do {
        terminal = try Terminal()
    } catch {
        throw CommandError("cannot use the terminal: \(error)")
    }
    let environment = ViewerEnvironment(unicode: terminal.isUTF8, colors: terminal.colorSupport) { effect in
        switch effect {
        case .copyToClipboard(let text): copyToClipboard(text, fd: 1)
        case .repaintFully: terminal.repaintFully()
        }
    }
    let viewer = Viewer(options: options, store: store, canvas: terminal.canvas, environment: environment)
    let status = runLoop(viewer, store: store, terminal: terminal, signals: signals)
    terminal.restore()
    return status
}

/// A file that exists must be a readable regular file (or a link to one); a missing file is
/// fine — the viewer waits for it.
func checkReadable(_ file: String) throws(CommandError) {
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
