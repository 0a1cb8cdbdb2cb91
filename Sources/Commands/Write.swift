// `synctable set | update | push | remove`: one atomic, minimal write to a JSON file.
import ArgumentParser
import FileStore
import Headless
import JSONTree
import LiveQuery

private let writeDiscussion = """
    The write is atomic (a temporary file, fsync, rename; the file's permission bits are kept; a \
    symbolic link's target is written) and minimal: only the bytes of the values that change are \
    rewritten. When another process changes the file meanwhile, the write is applied again to its \
    new content. Writing null removes, and an object left empty goes too. Server values work: \
    {".sv":"timestamp"}, {".sv":{"increment":1}}.

    With a database URL instead of a file (http(s)://HOST/location; --auth-token or \
    $SYNCTABLE_AUTH_TOKEN), PATH is below the URL's location and the write is one REST request \
    (PUT, PATCH, POST, DELETE); a refusal or an unreachable server is exit status 1.

    Exit status: 0 on success; 1 when the file is not valid JSON (FILE:LINE:COLUMN: error: MESSAGE) \
    or the write cannot be applied to it (a path through a number, …); 2 for an invalid argument \
    or a file that cannot be read. On any error the file is untouched.
    """

/// `synctable set FILE PATH JSON`.
struct SetValue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Replace the value at a path (null removes it).", discussion: writeDiscussion)

    @Argument(help: "The JSON file to write, or a database URL (http(s)://…).") var file: String
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions
    @Argument(help: "Where: a path such as /users/alice ('/' is the root).") var path: String
    // Parsed as "all unrecognized" so that a negative number is a value, not an option.
    @Argument(parsing: .allUnrecognized, help: "The new value, as JSON (quote strings: '\"Bob\"'); '-' reads it from standard input.")
    var value: [String] = []

    func validate() throws { try validateOneValue(value) }

    func run() throws {
        let path = try parsePathArgument(path), content = try parseJSONArgument(value[0])
        if let url = try databaseURL(file) {
            let target = url.location.appending(path)
            return _ = try remoteRequest(url, remote.credential) { rest in try await rest.set(target, content) }
        }
        try performWrite(file, JSONWrite.set(path, content), format: input.format(of: file))
    }
}

/// `synctable update FILE PATH JSON-OBJECT`.
struct UpdateValues: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Replace several values below a path in one write.",
        discussion: "Each key of the object is a path relative to PATH ({\"a/b\": 1, \"c\": null}); "
            + "other values are kept.\n\n" + writeDiscussion)

    @Argument(help: "The JSON file to write, or a database URL (http(s)://…).") var file: String
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions
    @Argument(help: "The base path, such as /users/alice ('/' is the root).") var path: String
    @Argument(help: "A JSON object of relative paths and their new values; '-' reads it from standard input.")
    var values: String

    func run() throws {
        let base = try parsePathArgument(path)
        guard case .object(let object) = try parseJSONArgument(values) else {
            throw CommandError("the values must be a JSON object of relative paths and values, such as {\"a/b\": 1}")
        }
        let writes: [JSONWrite]
        do { writes = try JSONWrite.update(base, object) } catch { throw CommandError(error.description) }
        if let url = try databaseURL(file) {
            let target = url.location.appending(base)
            return try remoteRequest(url, remote.credential) { rest in try await rest.update(target, object) }
        }
        try performWrite(file, writes, format: input.format(of: file))
    }
}

/// `synctable push FILE PATH JSON`: prints the new key.
struct PushValue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Add a value under a path (at the next index of an array, else with a new push id) and print its key.",
        discussion: writeDiscussion)

    @Argument(help: "The JSON file to write, or a database URL (http(s)://…).") var file: String
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions
    @Argument(help: "The parent path, such as /messages ('/' is the root).") var path: String
    @Argument(parsing: .allUnrecognized, help: "The new child's value, as JSON; '-' reads it from standard input.")
    var value: [String] = []

    func validate() throws { try validateOneValue(value) }

    func run() throws {
        let parent = try parsePathArgument(path)
        let content = try parseJSONArgument(value[0])
        if let url = try databaseURL(file) {
            let target = url.location.appending(parent)
            return printLine(try remoteRequest(url, remote.credential) { rest in try await rest.push(target, content) })
        }
        if input.format(of: file) == .jsonLines {
            guard parent.isRoot else {
                throw CommandError("a JSON Lines file takes new records at its root (its end), not at \(parent)")
            }
            // One line, appended with one write: its index is the key.
            try report(file) { () throws(WriteError) in printLine(String(try FileStore.appendLine(content, toFile: file))) }
            return
        }
        var key = ""
        try report(file) { () throws(WriteError) in key = try FileStore.push(content, under: parent, toFile: file, options: lastWrite) }
        printLine(key)
    }
}

/// `synctable remove FILE PATH`.
struct RemoveValue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove the value at a path (and any object left empty).",
        discussion: writeDiscussion)

    @Argument(help: "The JSON file to write, or a database URL (http(s)://…).") var file: String
    @OptionGroup var input: InputOptions
    @OptionGroup var remote: RemoteOptions
    @Argument(help: "The path to remove, such as /users/alice.") var path: String

    func run() throws {
        let path = try parsePathArgument(path)
        if let url = try databaseURL(file) {
            let target = url.location.appending(path)
            return try remoteRequest(url, remote.credential) { rest in try await rest.remove(target) }
        }
        try performWrite(file, JSONWrite.remove(path), format: input.format(of: file))
    }
}

// MARK: - Shared

private func validateOneValue(_ value: [String]) throws {
    if value.count != 1 {
        // From `validate()`: a usage error, which the argument parser reports (status 2).
        throw ValidationError(value.isEmpty ? "give the value as JSON" : "give one JSON value, not \(value.count) (quote it as one argument)")
    }
}


private func parsePathArgument(_ text: String) throws -> Path {
    do { return try Path(text) } catch { throw CommandError(error.description) }
}
