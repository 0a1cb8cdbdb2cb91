import ArgumentParser
import FileStore
import Headless
import JSONTree

#if canImport(Glibc)
import Glibc
#endif

/// `synctable`: a live table of a JSON file, and headless subcommands for scripts.
/// `synctable FILE` runs the viewer (`view`, the default subcommand).
@main
struct SyncTable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synctable",
        abstract: "A live table of a JSON file, updated as another process edits it.",
        version: "0.1.0",
        subcommands: [
            View.self, Watch.self, Replay.self, Demo.self, Validate.self, List.self, Events.self, History.self, Plot.self, ServeFile.self,
            SetValue.self, UpdateValues.self, PushValue.self, RemoveValue.self,
        ],
        defaultSubcommand: View.self
    )

    /// Runs the command; the one place errors are printed, as `synctable: error: MESSAGE`.
    /// A usage error (an unknown or malformed flag, a bad value) exits with status 2, as every
    /// error of ours about the command line does, rather than the argument parser's 64; help
    /// and version still exit 0, and `ExitCode` (the viewer's 130 after Ctrl-C) passes through.
    static func main() {
        engineTuning().adopt()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as CommandError {
            printError(error.line)
            Glibc.exit(error.exitCode)
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError("synctable: error: \(message(for: error))")
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// What the engine runs with: every tactic (`EngineTuning.tuned`, docs/engine/), or the
/// library's plain default where `SYNCTABLE_ENGINE=plain` says so (the bench's plain rows).
func engineTuning() -> EngineTuning {
    getenv("SYNCTABLE_ENGINE").map { String(cString: $0) } == "plain" ? .plain : .tuned
}
