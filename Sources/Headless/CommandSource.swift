// A command as a source: its run interval and bounds from the command line, opened as a store.
import CommandStore
import FileStore
import KeyedStore
import JSONTree
import StoreInterface

/// A command to run as a source (`synctable watch`, `--watch`), checked.
public struct CommandSource: Sendable {
    public var command: [String]
    public var options: CommandStore.Options

    /// - Parameters:
    ///   - every: the rest between runs, as written (`2s`); `everyFlag` names it in errors.
    ///   - timeout: nil for the default (see `CommandStore.Options.timeoutMilliseconds`).
    ///   - maxOutputBytes: nil for the default (256 MiB).
    /// - Throws: `CommandError` (exit status 2) for a duration or a bound that is not one.
    public init(command: [String], every: String, everyFlag: String, timeout: String?, maxOutputBytes: Int?) throws(CommandError) {
        guard !command.isEmpty else { throw CommandError("no command to run: give it after --, as in: synctable watch -- kubectl get pods -o json") }
        self.command = command
        options = CommandStore.Options(everyMilliseconds: try milliseconds(every, flag: everyFlag))
        if let maxOutputBytes { options.maxOutputBytes = maxOutputBytes }
        if let timeout {
            options.timeoutMilliseconds = try milliseconds(timeout, flag: "--timeout")
            guard options.timeoutMilliseconds! > 0 else { throw CommandError("--timeout must be longer than 0, not \(timeout)") }
        }
        guard options.maxOutputBytes > 0 else { throw CommandError("--max-output-bytes must be 1 or more, not \(options.maxOutputBytes)") }
    }
}

/// `2s`, `500ms`, `1.5s`, `1m`, `1h`; a bare number is seconds.
/// - Throws: `CommandError` naming `flag` for anything else.
func milliseconds(_ text: String, flag: String) throws(CommandError) -> Int {
    let units: [(suffix: String, milliseconds: Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
    let unit = units.first { text.hasSuffix($0.suffix) } ?? ("", 1000)
    guard let number = Double(text.dropLast(unit.suffix.count)), number >= 0, number * unit.milliseconds < Double(Int32.max) else {
        throw CommandError("\(flag): \(JSON.string(text).serializedString()) is not a duration (such as 2s, 500ms, 1m)")
    }
    return Int((number * unit.milliseconds).rounded())
}

/// The command's store, its first run started.
/// - Throws: `CommandError` (exit status 2) naming a program that is not there.
public func openCommandStore(_ source: CommandSource) throws(CommandError) -> CommandStore {
    do { return try CommandStore(command: source.command, options: source.options) } catch {
        throw CommandError(error.description)
    }
}

/// The document of the command's first run, which is waited for (`list --watch`).
/// - Throws: `CommandError` (exit status 1) with the failed run in words.
public func documentOfOneRun(_ source: CommandSource) throws(CommandError) -> JSONDocument {
    let store = try openCommandStore(source)
    defer { store.stop() }
    do { try store.run { store.status.lastRun != nil } } catch {
        throw CommandError("\(error)", exitCode: 1)
    }
    guard let revision = store.currentRevision else {
        throw CommandError(store.status.problem?.description ?? "the command printed nothing", exitCode: 1)
    }
    return revision.document
}

/// What `list` prints from a command source (one run; with `--rate` the second, with its rates) or
/// a journal (its last revision); nil for any other source.
/// - Throws: `CommandError`: exit status 1 for a failed run; 2 for `--rate` on a source read once.
public func listedDocument(_ file: String, command: CommandSource?, fold: KeyedFold?, extras: RevisionExtras,
                           location: Path) throws(CommandError) -> JSONDocument? {
    if let command, extras.rates.isEmpty {
        let document = try documentOfOneRun(command)
        return fold?.document(folding: document) ?? document
    }
    guard command != nil || (file != "-" && isJournalFile(file)) else {
        guard extras.rates.isEmpty else {
            throw CommandError("--rate needs two revisions and list reads one: use list --watch (it runs the command twice), events or the viewer")
        }
        return nil
    }
    let store = try openStore(file, credential: nil, file: FileStore.Options(), command: command, keyedBy: fold, extras: extras, location: location)
    defer { stopCommand(under: store) }
    do {
        // Two runs make a rate (the second with the rates of the first).
        try store.run { command == nil ? store.currentRevision != nil : (store.status.lastRun?.number ?? 0) >= 2 }
    } catch {
        throw CommandError("\(error)", exitCode: 1)
    }
    guard let revision = store.currentRevision else {
        throw CommandError(store.status.problem?.description ?? "the command printed nothing", exitCode: 1)
    }
    return revision.document
}
