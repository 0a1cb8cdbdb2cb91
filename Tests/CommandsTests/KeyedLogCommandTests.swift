// `list --key` and `--delete-when` as a user gives them, run in-process: a JSON Lines file, a command's stream.
import Foundation
import Testing
import TestSupport

@Suite("Logs folded by a key, listed")
struct KeyedLogCommandTests {
    private static let records = [
        #"{"type": "ADDED", "metadata": {"name": "web"}, "ready": 0}"#,
        #"{"type": "ADDED", "metadata": {"name": "db"}, "ready": 1}"#,
        #"{"type": "MODIFIED", "metadata": {"name": "web"}, "ready": 1}"#,
        #"{"type": "DELETED", "metadata": {"name": "db"}, "ready": 1}"#,
        #"{"type": "BROKEN"}"#,
    ]

    @Test("list --key folds a JSON Lines file, and a command's stream, into one child per key; a record without one is an error row")
    func listFolds() throws {
        let folder = ScratchFolder("keyed-list")
        let file = folder.write("pods.jsonl", Self.records.joined(separator: "\n") + "\n")
        let flags = ["--key", ".metadata.name", "--delete-when", #".type == "DELETED""#, "--format", "jsonl"]
        // In key order: `$4` before `web`.
        let expected = #"{"key":"$4","value":{"$error":{"record":4,"message":"--key .metadata.name gives null, not a string or a number"}}}"# + "\n"
            + #"{"key":"web","value":{"type":"MODIFIED","metadata":{"name":"web"},"ready":1}}"# + "\n"
        let fromFile = try synctable(["list", file] + flags)
        #expect(fromFile.status == 0, "\(fromFile.errors)")
        #expect(fromFile.output == expected)
        let fromCommand = try synctable(["list", "--watch", "1s"] + flags + ["--", "/bin/cat", file])
        #expect(fromCommand.status == 0, "\(fromCommand.errors)")
        #expect(fromCommand.output == expected)
        let alone = try synctable(["list", file, "--delete-when", ".gone"])
        #expect(alone.status == 2 && alone.errors.contains("--delete-when needs --key"), "\(alone.errors)")
    }
}
