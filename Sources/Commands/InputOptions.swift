// `--input`: how a file's bytes are read (one JSON document, or JSON Lines).
import ArgumentParser
import FileStore

/// `--input json|jsonl`, shared by every command that reads or writes a file. Without it, a
/// file ending in `.jsonl` or `.ndjson` is JSON Lines and any other is one JSON document;
/// standard input (`-`) is a JSON document when it holds one value, else a stream of values.
struct InputOptions: ParsableArguments {
    enum Input: String, ExpressibleByArgument, CaseIterable {
        case json, jsonl
    }

    @Option(help: ArgumentHelp(
        "How to read the file: json (one document) or jsonl (JSON Lines: line N is the child N). "
            + "Default: jsonl for .jsonl and .ndjson files, else json.",
        valueName: "json|jsonl"))
    var input: Input?

    /// How to read `file`.
    func format(of file: String) -> FileStore.Format {
        switch input {
        case .json: .json
        case .jsonl: .jsonLines
        case nil: FileStore.Format(path: file)
        }
    }
}
