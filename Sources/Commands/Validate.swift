import ArgumentParser
import FileStore
import Headless
import JSONTree

/// `synctable validate FILE…`: exit 0 when every file is valid JSON (or JSON Lines).
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that files are valid JSON (or JSON Lines).",
        discussion: """
            Prints FILE:LINE:COLUMN: error: MESSAGE for each invalid file, and for each invalid line \
            of a JSON Lines file (.jsonl, .ndjson, or --input jsonl). Exit status: 0 when all are \
            valid, 1 when any is invalid, 2 when a file cannot be read. '-' reads standard input.
            """
    )

    @Argument(help: "JSON files to check ('-' for standard input).")
    var files: [String]

    @Option(help: ArgumentHelp("Refuse input longer than this many bytes (a file, standard input or a pipe).", valueName: "bytes"))
    var maxSize: Int = defaultMaxInputBytes

    @OptionGroup var input: InputOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one FILE (or '-' for standard input)") }
        if maxSize < 0 { throw ValidationError("--max-size must be at least 0") }
    }

    func run() throws {
        var status: Int32 = 0
        for file in files {
            let bytes: [UInt8]
            do {
                bytes = try readInput(file, maxBytes: maxSize)
            } catch {
                printError("\(file): error: \(error)")
                status = 2
                continue
            }
            let name = file == "-" ? "<stdin>" : file
            // Standard input has no file name to tell JSON Lines by: only --input says so.
            let lines = file == "-" ? input.input == .jsonl : input.format(of: file) == .jsonLines
            let problems = lines ? linesValidationErrors(bytes, name: name) : validationError(bytes, name: name).map { [$0] } ?? []
            for problem in problems { printError(problem) }
            if !problems.isEmpty { status = max(status, 1) }
        }
        if status != 0 { throw ExitCode(status) }
    }
}

/// `FILE:LINE:COLUMN: error: MESSAGE` when `bytes` are not valid JSON; nil when they are.
func validationError(_ bytes: [UInt8], name: String) -> String? {
    do {
        _ = try JSONDocument(parsing: bytes)
        return nil
    } catch {
        return error.diagnostic(file: name)
    }
}

/// `FILE:LINE:COLUMN: error: MESSAGE` for each line of JSON Lines `bytes` that is not valid JSON
/// (blank lines are allowed); empty when every line is valid.
func linesValidationErrors(_ bytes: [UInt8], name: String) -> [String] {
    var lines = JSONLinesBuilder(mode: .lines)
    lines.append(bytes)
    lines.finish()
    return lines.errors.map { "\(name):\($0.line):\($0.column): error: \($0.message)" }
}
