// Starting the viewer: the checks that end with a clear message (exit status 2) before the
// screen opens, then the store, the terminal and the run loop.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Headless
import KeyedStore
import RemoteStore
import TableUI
import ViewerCore

/// Opens the store and the terminal, runs the viewer, and restores the terminal.
/// - Parameters:
///   - command: the command whose output is shown (`watch`), instead of `options.file`.
/// - Returns: the viewer's exit status.
/// - Throws: `CommandError` when the file cannot be read or the terminal cannot be used.
func runViewer(_ options: ViewerOptions, remote: RemoteOptions?, command: CommandSource?, keyedBy fold: KeyedFold?,
               extras: RevisionExtras) throws(CommandError) -> Int32 {
    let isStream = options.file == "-" && command == nil
    // Keys come from the terminal itself when standard input is the data.
    let keyboard = isStream ? try terminalForKeys() : CommandIO.current.input
    defer { if isStream { close(keyboard) } }
    let isURL = command == nil ? try databaseURL(options.file) != nil : false
    if !isStream && !isURL && command == nil { try checkReadable(options.file) }
    let firstWindow = (try? options.query.makeQuery()).map { (path: options.location, query: $0) }
    var extras = extras
    // A store of rates over any source but a file or a database (whose reads it would slow): R adds them.
    extras.ratesLater = isStream || command != nil || fold != nil || (!isURL && isJournalFile(options.file))
    let store = try openStore(options.file, credential: remote?.credential ?? Credential.resolve(option: nil), file: storeOptions(options), firstWindow: firstWindow,
                              command: command, keyedBy: fold, extras: extras, location: options.location)
    let terminal: Terminal
    do {
        terminal = try Terminal(Terminal.Options(inputFD: keyboard))
    } catch {
        throw CommandError("cannot use the terminal: \(error)")
    }
    let environment = ViewerEnvironment(unicode: terminal.isUTF8, colors: terminal.colorSupport) { effect in
        switch effect {
        case .copyToClipboard(let text): copyToClipboard(text, fd: CommandIO.current.output)
        case .repaintFully: terminal.repaintFully()
        }
    }
    let viewer = Viewer(options: options, store: store, canvas: terminal.canvas, environment: environment)
    let status = runLoop(viewer, store: store, terminal: terminal, stop: CommandIO.current.stop)
    stopCommand(under: store)
    terminal.restore()
    return status
}

/// A large log opens at its newest lines at once (`NewestFirst`: a few pages of them) and follows
/// from there; its older lines are read when the viewer first needs them (an older page, another
/// order or filter, a search: `Viewer.needEveryRecord`).
private func storeOptions(_ options: ViewerOptions) -> FileStore.Options {
    var store = FileStore.Options(format: options.format)
    if options.format == .jsonLines && options.query.tail && options.pageSize > 0 {
        store.newestFirst = FileStore.NewestFirst(records: max(1000, options.pageSize * 5), onlyNewest: true,
                                                  byPriority: options.query.ordering != .key)
    }
    return store
}
