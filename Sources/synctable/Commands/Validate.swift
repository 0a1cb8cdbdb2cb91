import ArgumentParser
import JSONTree

/// `synctable validate FILE…`: exit 0 when every file is valid JSON.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that files are valid JSON.",
        discussion: """
            Prints FILE:LINE:COLUMN: error: MESSAGE for each invalid file. Exit status: 0 when all \
            are valid, 1 when any is invalid, 2 when a file cannot be read. '-' reads standard input.
            """
    )

    @Argument(help: "JSON files to check ('-' for standard input).")
    var files: [String]

    @Option(help: ArgumentHelp("Refuse input longer than this many bytes (a file, standard input or a pipe).", valueName: "bytes"))
    var maxSize: Int = defaultMaxInputBytes

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
            if let problem = validationError(bytes, name: file == "-" ? "<stdin>" : file) {
                printError(problem)
                status = max(status, 1)
            }
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
