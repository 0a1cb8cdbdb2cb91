// The options of every command that follows a location (list, events, history): where its
// rows come from and which of them it takes.
import ArgumentParser
import FileStore
import Headless
import JSONTree
import KeyedStore
import LiveQuery

/// The query, the input's format, a database's credential, `--watch`, `--key` and the revision
/// extras of the commands that take them all (`SourceCommand`).
struct SourceOptions {
    var query: QueryOptions
    var input: InputOptions
    var remote: RemoteOptions
    var watch: WatchOption
    var bounds: RunBounds
    var keyed: KeyOptions
    var revisions: RevisionOptions

    /// The store `file` names (a file, a command's output, a journal or a database URL), opened
    /// at the query's first window.
    func open(_ file: String, _ options: FileStore.Options, at location: Path, query: Query,
              keyedBy fold: KeyedFold?) throws(CommandError) -> any LiveStore {
        try openStore(file, credential: remote.credential, file: options, firstWindow: (location, query),
                      command: try watch.source(file, bounds: bounds), keyedBy: fold, extras: try revisions.extras(), location: location)
    }
}

/// A command that follows a location: it declares these option groups itself, each one level
/// deep, because a group inside a group makes the argument parser's debug-build checks run
/// five times over for each (a quarter of a second per command in the tests).
protocol SourceCommand {
    var query: QueryOptions { get }
    var input: InputOptions { get }
    var remote: RemoteOptions { get }
    var watch: WatchOption { get }
    var bounds: RunBounds { get }
    var keyed: KeyOptions { get }
    var revisions: RevisionOptions { get }
}

extension SourceCommand {
    var source: SourceOptions {
        SourceOptions(query: query, input: input, remote: remote, watch: watch, bounds: bounds, keyed: keyed, revisions: revisions)
    }
}

/// `--exit-after-revisions`, checked where it is parsed.
func validateExitAfterRevisions(_ n: Int?) throws {
    if let n, n < 1 { throw ValidationError("--exit-after-revisions must be a positive integer, not \(n)") }
}
