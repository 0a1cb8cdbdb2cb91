import ArgumentParser

/// `synctable`: a live table of a JSON file, and headless subcommands for scripts.
/// `synctable FILE` runs the viewer (`view`, the default subcommand).
@main
struct SyncTable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synctable",
        abstract: "A live table of a JSON file, updated as another process edits it.",
        subcommands: [View.self, Demo.self, Validate.self],
        defaultSubcommand: View.self
    )
}
