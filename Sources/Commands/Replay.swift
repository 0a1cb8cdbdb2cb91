// `synctable replay FILE`: a journal in the viewer.
import ArgumentParser
import Headless

/// `synctable replay FILE [viewer flags] [--since T] [--until T]`.
struct Replay: ParsableCommand, ViewerCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a journal (written by --record) in the viewer at its last revision.",
        discussion: """
            Every revision of the journal (and of FILE.1, its older part after a rotation) is in the \
            time machine ([ ] { } P), the change log (C), the timelines (T), sparklines (~) and rates \
            (--rate, R), with the times and writers it recorded. synctable FILE opens a journal the same \
            way. Exit status: 2 when FILE is not a journal (its line and column named).
            """
    )

    @Argument(help: "The journal to open.")
    var file: String

    @OptionGroup var query: QueryOptions
    @OptionGroup var revisions: RevisionOptions
    @OptionGroup var flags: ViewerFlags
    @OptionGroup var computed: ComputedOptions

    func run() throws {
        try requireJournal(file)
        var options = try viewerOptions(file: file, format: .json, cacheable: false, config: try loadConfig())
        options.edit = false
        try launchViewer(options, keyedBy: try revisions.fold(), extras: try revisions.extras())
    }
}
