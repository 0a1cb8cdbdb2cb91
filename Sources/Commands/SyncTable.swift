import ArgumentParser
import Headless

/// `synctable`: a live table of a JSON file, and headless subcommands for scripts.
/// `synctable FILE` runs the viewer (`view`, the default subcommand).
public struct SyncTable: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "synctable",
        abstract: "A live table of a JSON file, updated as another process edits it.",
        version: "0.1.0",
        subcommands: [
            View.self, Watch.self, Replay.self, Demo.self, Validate.self, List.self, Events.self, History.self, Plot.self, ServeFile.self,
            SetValue.self, UpdateValues.self, PushValue.self, RemoveValue.self,
        ],
        defaultSubcommand: View.self
    )

    public init() {}

    /// Parses `arguments` (without the program's name) and runs the command, reading and writing
    /// through `io`; the one place errors are printed, as `synctable: error: MESSAGE`.
    /// - Parameter prepare: the program's edge, given the parsed command before it runs (its
    ///   process-wide settings: `streamsUntilStopped`).
    /// - Returns: the exit status. A usage error (an unknown or malformed flag, a bad value) is
    ///   2, as every error of ours about the command line is, rather than the argument parser's
    ///   64; help and version 0, and `ExitCode` (the viewer's 130 after Ctrl-C) passes through.
    public static func run(_ arguments: [String], io: CommandIO = CommandIO(),
                           prepare: (any ParsableCommand) -> Void = { _ in }) -> Int32 {
        CommandIO.$current.withValue(io) {
            do {
                var command = try parseAsRoot(arguments)
                prepare(command)
                try command.run()
                return 0
            } catch let error as CommandError {
                printError(error.line)
                return error.exitCode
            } catch {
                return report(error)
            }
        }
    }

    /// Whether `command` prints until it is stopped or its reader goes away (`events`,
    /// `history`): a reader that leaves should end it quietly, not by SIGPIPE.
    public static func streamsUntilStopped(_ command: any ParsableCommand) -> Bool {
        command is Events || command is History
    }

    /// Prints an error of the argument parser (or help, or the version) as `exit(withError:)`
    /// would; its exit status.
    private static func report(_ error: any Error) -> Int32 {
        let code = exitCode(for: error)
        if code == .validationFailure {
            printError("synctable: error: \(message(for: error))")
            return 2
        }
        let text = fullMessage(for: error)
        if !text.isEmpty {
            if code == .success { writeOut(Array((text + "\n").utf8)) } else { printError(text) }
        }
        return code.rawValue
    }
}
