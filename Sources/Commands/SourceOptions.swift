// The options of every command that follows a location (list, events, history): where its
// rows come from and which of them it takes.
import ArgumentParser
import FileStore
import Headless
import JSONTree
import KeyedStore
import LiveQuery

/// The query, the input's format, a database's credential, `--watch`, `--key` and the revision
/// extras, declared once for the commands that take them all.
struct SourceOptions: ParsableArguments {
    @OptionGroup var query: QueryOptions
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions
    @OptionGroup var watch: WatchOption
    @OptionGroup var keyed: KeyOptions
    @OptionGroup var revisions: RevisionOptions

    /// The store `file` names (a file, a command's output, a journal or a database URL), opened
    /// at the query's first window.
    func open(_ file: String, _ options: FileStore.Options, at location: Path, query: Query,
              keyedBy fold: KeyedFold?) throws(CommandError) -> any LiveStore {
        try openStore(file, credential: remote.credential, file: options, firstWindow: (location, query),
                      command: try watch.source(file), keyedBy: fold, extras: try revisions.extras(), location: location)
    }
}

/// `--exit-after-revisions`, checked where it is parsed.
func validateExitAfterRevisions(_ n: Int?) throws {
    if let n, n < 1 { throw ValidationError("--exit-after-revisions must be a positive integer, not \(n)") }
}
