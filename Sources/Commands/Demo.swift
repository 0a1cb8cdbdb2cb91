// `synctable demo`: the viewer on a leaderboard that a writer thread keeps editing.
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Headless
import JSONTree
import LiveQuery
import ViewerCore

/// `synctable demo` (what `make demo` runs).
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The viewer on a live leaderboard that keeps changing (what make demo runs).",
        discussion: """
            Copies the demo leaderboard (built into the binary) to a new folder under $TMPDIR \
            (or /tmp), starts a writer that edits it continuously — score changes that reorder \
            rows, new players, departures, saves in place and by rename — and shows /players \
            sorted by score, highest first. Quitting removes the folder.
            """
    )

    @Flag(help: "Show each change at once, without animations.")
    var noAnimation = false

    func run() throws {
        let folder = try makeDemoFolder()
        let file = folder + "/leaderboard.json"
        let writer = DemoWriter(path: file)
        defer {
            writer.stopAndWait()
            unlink(file)
            unlink(file + ".demo-tmp")
            rmdir(folder)
        }
        try writeWholeFile(file, PackageResources.leaderboard_json, replacing: false)
        writer.start()

        var query = ViewQuery(flags: try Query().orderByChild(Path("score")), pageSize: 200)
        query.fromEnd = true
        let columns = try ["name", "score", "level", "country", "online", "metrics/views"].map { try Path($0) }
        var options = ViewerOptions(
            file: file, location: try Path("/players"), query: query, columns: columns, pageSize: 200,
            animations: !noAnimation)
        // The file is the demo's own copy, made to be played with: the write keys work on it.
        options.edit = true
        try launchViewer(options)
    }
}

/// A new, empty folder for the demo's file.
private func makeDemoFolder() throws(CommandError) -> String {
    let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array((base + "/synctable-demo-XXXXXX").utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw CommandError("cannot make a folder in \(base): \(String(cString: strerror(errno)))")
    }
    return String(cString: made)
}
