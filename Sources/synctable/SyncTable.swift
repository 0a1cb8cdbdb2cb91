#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser

/// `synctable`: a live table of a JSON file, and headless subcommands for scripts.
/// `synctable FILE` runs the viewer (`view`, the default subcommand).
@main
struct SyncTable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synctable",
        abstract: "A live table of a JSON file, updated as another process edits it.",
        subcommands: [
            View.self, Demo.self, Validate.self, List.self, Events.self,
            SetValue.self, UpdateValues.self, PushValue.self, RemoveValue.self,
        ],
        defaultSubcommand: View.self
    )

    /// Runs the command line. A malformed command line (an unknown flag, a missing or
    /// unparsable value) exits with status 2 like every other bad argument, rather than
    /// ArgumentParser's 64.
    static func main() {
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            printError(fullMessage(for: error))
            Glibc.exit(2)
        }
        do {
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
