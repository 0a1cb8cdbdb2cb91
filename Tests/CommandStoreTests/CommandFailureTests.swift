// A run that fails is said in words, and the last good revision stays.
import Foundation
import JSONTree
import StoreInterface
import Testing
import TestSupport
@testable import CommandStore

@Suite("A failed run is said in words")
struct CommandFailureTests {
    /// The problem after the first run of `command`.
    private func firstRunProblem(_ command: [String], _ options: CommandStore.Options = CommandStore.Options(everyMilliseconds: 60_000)) throws -> String? {
        let store = try CommandStore(command: command, options: options)
        defer { store.stop() }
        try store.run(timeoutMilliseconds: 60_000) { store.status.lastRun != nil }
        #expect(store.currentRevision == nil)
        #expect(store.status.lastRun?.failed == true)
        return store.status.problem?.description
    }

    /// `run 1 at 10:02:03: ` then `rest`.
    private func isFirstRun(_ problem: String?, then rest: String) -> Bool {
        guard let problem, problem.hasPrefix("run 1 at "), problem.count > 17 else { return false }
        let time = problem.dropFirst(9).prefix(8)
        return time.count == 8 && time.allSatisfy { $0.isNumber || $0 == ":" } && problem.dropFirst(17) == ": " + rest
    }

    @Test("a program that is not there is refused by name before anything runs")
    func notFound() {
        #expect(throws: CommandStoreError.notFound("no-such-program-for-synctable")) {
            try CommandStore(command: ["no-such-program-for-synctable", "get"])
        }
        #expect(throws: CommandStoreError.notFound("/nowhere/tool")) { try CommandStore(command: ["/nowhere/tool"]) }
    }

    @Test("exit 1: the exit status and the first line of standard error")
    func exitStatusWithStandardError() throws {
        let problem = try firstRunProblem(["/bin/sh", "-c", "echo; echo '  error: You must be logged in to the server  ' >&2; echo second >&2; exit 1"])
        #expect(isFirstRun(problem, then: "exit 1: error: You must be logged in to the server"), "\(problem ?? "none")")
    }

    @Test("invalid JSON: its line and column")
    func invalidJSON() throws {
        let problem = try firstRunProblem(["/bin/sh", "-c", #"printf '{"a": 1,\n  "b": }\n'"#])
        #expect(problem?.hasPrefix("run 1 at ") == true && problem?.contains(": invalid JSON at line 2, column 8: ") == true,
                "\(problem ?? "none")")
    }

    @Test("a run past its timeout is ended, and its whole group with it")
    func timeout() throws {
        let folder = ScratchFolder("command-timeout")
        let problem = try firstRunProblem(["/bin/sh", "-c", #"echo $$ > "$0/group"; sleep 600 & sleep 600"#, folder.path],
                                          CommandStore.Options(everyMilliseconds: 60_000, timeoutMilliseconds: 500))
        #expect(isFirstRun(problem, then: "still running after 0.5 s: ended (timeout)"), "\(problem ?? "none")")
        let group = try #require(Int32(folder.read("group").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(eventually { processGroupIsGone(group) })
    }

    @Test("output over the bound: reading stops there and the command is ended")
    func outputBound() throws {
        let problem = try firstRunProblem(["/bin/sh", "-c", "while :; do echo '[1, 2, 3]'; done"],
                                          CommandStore.Options(everyMilliseconds: 60_000, maxOutputBytes: 10_000))
        #expect(isFirstRun(problem, then: "more than 10000 bytes of output: ended (output bound)"), "\(problem ?? "none")")
    }

    @Test("the last good revision stays while runs fail; a good run with the same output clears the problem")
    func lastGoodRevisionStays() throws {
        let folder = ScratchFolder("command-fails")
        _ = folder.write("doc1.json", #"{"a": 1}"#)
        _ = folder.write("doc2.json", "not JSON")
        _ = folder.write("doc3.json", #"{"a": 1}"#)
        let store = try CommandStore(command: commandPrintingInTurn(folder, count: 3), options: CommandStore.Options(everyMilliseconds: 0))
        defer { store.stop() }
        var problems: [String?] = []
        store.observeStatus { status in
            if status.lastRun != nil { problems.append(status.problem?.description) }
        }
        try store.run(timeoutMilliseconds: 60_000) { (store.status.lastRun?.number ?? 0) >= 3 }
        store.stop()
        #expect(store.currentRevision?.number == 1)
        #expect(store.currentRevision?.document.root.json == .object(JSONObject([("a", .number(JSONNumber(1)))])))
        #expect(problems.count >= 3)
        #expect(problems.first == .some(nil))
        #expect(problems.dropFirst().first??.contains(": invalid JSON at line 1, column 2: ") == true, "\(problems)")
        #expect(problems.last == .some(nil))
    }

    @Test("JSON Lines output is a log of records, as standard input is read")
    func jsonLinesAreALog() throws {
        let store = try CommandStore(command: ["/bin/sh", "-c", #"printf '{"n": 1}\n{"n": 2}\n'"#],
                                     options: CommandStore.Options(everyMilliseconds: 60_000))
        defer { store.stop() }
        let revision = try store.waitForRevision(1, timeoutMilliseconds: 60_000)
        #expect(revision.document.root.json.serializedString() == #"[{"n":1},{"n":2}]"#)
    }
}
