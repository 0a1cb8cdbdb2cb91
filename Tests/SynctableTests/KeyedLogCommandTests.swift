// `--key` and `--delete-when` as a user gives them: a JSON Lines file, standard input, a command's stream.
import Foundation
import Testing
import TestSupport

@Suite("Logs folded by a key")
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
        let fromFile = try runProgram(try synctableBinary(), ["list", file] + flags)
        #expect(fromFile.status == 0, "\(fromFile.errors)")
        #expect(fromFile.output == expected)
        let fromCommand = try runProgram(try synctableBinary(), ["list", "--watch", "1s"] + flags + ["--", "/bin/cat", file])
        #expect(fromCommand.status == 0, "\(fromCommand.errors)")
        #expect(fromCommand.output == expected)
        let alone = try runProgram(try synctableBinary(), ["list", file, "--delete-when", ".gone"])
        #expect(alone.status == 2 && alone.errors.contains("--delete-when needs --key"), "\(alone.errors)")
    }

    @Test("events --key on standard input: a record for a key seen before changes its child")
    func eventsFromStandardInput() throws {
        let events = try ChildProcess([try synctableBinary(), "events", "-", "--key", ".metadata.name"])
        events.send(Self.records[0])
        #expect(events.readLine()?.hasPrefix(#"{"event":"child_added","key":"web""#) == true, "\(events.standardError())")
        #expect(events.readLine() == #"{"event":"value","count":1}"#)
        events.send(Self.records[2])
        #expect(events.readLine() == #"{"event":"child_changed","key":"web","prevKey":null,"index":0,"value":{"type":"MODIFIED","metadata":{"name":"web"},"ready":1}}"#)
        #expect(events.readLine() == #"{"event":"value","count":1}"#)
        events.closeInput()
        #expect(events.wait(seconds: 30) == 0)
    }
}
