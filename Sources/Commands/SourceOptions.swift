// The options of every command that follows a location (list, events, history): where its
// rows come from and which of them it takes.
import ArgumentParser
import FileStore
import Headless
import JSONTree
import KeyedStore
import LiveQuery

/// FILE or `--watch`'s command, the query, the input's format, a database's credential, `--key` and
/// the revision extras of the commands that take them all (`SourceCommand`).
struct SourceOptions {
    var query: QueryOptions
    var input: InputOptions
    var remote: RemoteOptions
    var operands: SourceOperands
    var revisions: RevisionOptions

    /// The store `file` names (a file, a command's output, a journal or a database URL), opened
    /// at the query's first window.
    func open(_ file: String, _ options: FileStore.Options, at location: Path, query: Query,
              keyedBy fold: KeyedFold?) throws(CommandError) -> any LiveStore {
        try openStore(file, credential: remote.credential, file: options, firstWindow: (location, query),
                      command: try operands.command(), keyedBy: fold, extras: try revisions.extras(), location: location)
    }
}

/// A command that follows a location: it declares these option groups itself, each one level
/// deep, because a group inside a group makes the argument parser's debug-build checks run
/// five times over for each (a quarter of a second per command in the tests).
protocol SourceCommand {
    var query: QueryOptions { get }
    var input: InputOptions { get }
    var remote: RemoteOptions { get }
    var operands: SourceOperands { get }
    var revisions: RevisionOptions { get }
}

extension SourceCommand {
    var file: String { operands.file }

    var source: SourceOptions {
        SourceOptions(query: query, input: input, remote: remote, operands: operands, revisions: revisions)
    }
}

/// `--exit-after-revisions`, checked where it is parsed.
func validateExitAfterRevisions(_ n: Int?) throws {
    if let n, n < 1 { throw ValidationError("--exit-after-revisions must be a positive integer, not \(n)") }
}

/// `FILE` of `list`, `events` and `history`, or with `--watch 2s [--timeout …] -- COMMAND [ARGS…]` a
/// command's output instead of a file, and the bounds of each run.
struct SourceOperands: ParsableArguments {
    @Argument(help: "The JSON file ('-' for standard input), a database URL (http(s)://…/location), or with --watch a command.")
    var file: String

    @Option(help: ArgumentHelp(
        "Read the output of the command after -- instead of a file (FILE is the command's name), run again "
            + "this long after each run ends (2s, 500ms, 1m); list runs it once.", valueName: "duration"))
    var watch: String?

    @Option(help: ArgumentHelp(
        "With --watch: a run still going after this long fails and is ended (default: the larger of 30s and 10 "
            + "times the interval).", valueName: "duration"))
    var timeout: String?

    @Option(help: ArgumentHelp("With --watch: a run printing more than this fails and is ended (default: 256 MiB).", valueName: "bytes"))
    var maxOutputBytes: Int?

    @Argument(help: "With --watch: the command's arguments.")
    var arguments: [String] = []

    /// The command source --watch asks for, with FILE as its program; nil without --watch.
    func command() throws(CommandError) -> CommandSource? {
        guard let watch else {
            if let first = arguments.first { throw CommandError("unexpected argument '\(first)': only a command (--watch) takes more arguments") }
            return nil
        }
        return try CommandSource(command: [file] + arguments, every: watch, everyFlag: "--watch", timeout: timeout, maxOutputBytes: maxOutputBytes)
    }
}
