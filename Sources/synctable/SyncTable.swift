import ArgumentParser

/// `synctable`: a live table of a JSON file, and headless subcommands for scripts.
@main
struct SyncTable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synctable",
        abstract: "A live table of a JSON file, updated as another process edits it.",
        subcommands: [Validate.self, List.self, Events.self, SetValue.self, UpdateValues.self, PushValue.self, RemoveValue.self]
    )
}
