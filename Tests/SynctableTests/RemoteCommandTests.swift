// `events` on a database URL (`synctable serve` in another process), compared with `events` on
// the served file, and a refused token (the token from the environment a process is given).
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import JSONTree
import Testing
import TestSupport

/// `synctable ARGUMENTS` to its end.
private func synctable(_ arguments: [String], environment: [String: String] = [:]) throws -> ProgramResult {
    var env = ProcessInfo.processInfo.environment
    env["SYNCTABLE_AUTH_TOKEN"] = nil
    env["FIREBASE_DATABASE_EMULATOR_HOST"] = nil
    for (k, v) in environment { env[k] = v }
    return try runProgram(try synctableBinary(), arguments, environment: env)
}

/// One replayed `events` output: its rows, applied by index as the events' help says.
private func replayEvents(_ lines: [String]) -> [String] {
    var rows: [String] = []
    for line in lines {
        guard let event = try? JSONDocument(parsing: line).root.json, let name = event["event"]?.stringValue,
            let key = event["key"]?.stringValue, let index = event["index"]?.doubleValue.map(Int.init)
        else { continue }
        switch name {
        case "child_removed": if rows.indices.contains(index) { rows.remove(at: index) }
        case "child_added": rows.insert(key, at: min(index, rows.count))
        case "child_moved":
            if let from = event["fromIndex"]?.doubleValue.map(Int.init), rows.indices.contains(from) { rows.remove(at: from) }
            rows.insert(key, at: min(index, rows.count))
        default: break
        }
    }
    return rows
}

@Suite("Commands on a database URL", .serialized)
struct RemoteCommandTests {
    @Test("events URL replays to the same rows as events FILE while another process edits the file")
    func eventsMatchTheFile() throws {
        var random = SplitMix64(seed: 11)
        let folder = ScratchFolder()
        let file = folder.write("board.json", randomLeaderboard(&random))
        let server = try ServedFile(file: file)
        let query = ["--order-by-child", "score", "--limit-to-last", "8"]
        let local = try ChildProcess([try synctableBinary(), "events", file, "--path", "/players"] + query)
        let remote = try ChildProcess([try synctableBinary(), "events", server.url("/players")] + query)
        var localLines: [String] = [], remoteLines: [String] = []
        for step in 0..<10 {
            let text = randomLeaderboard(&random)
            if step % 2 == 0 { writeFileInPlace(file, Array(text.utf8)) } else { writeFileByRename(file, Array(text.utf8)) }
            let expected = try synctable(["list", file, "--path", "/players", "--format", "jsonl"] + query).output
                .split(separator: "\n").compactMap { try? JSONDocument(parsing: String($0)).root.json["key"]?.stringValue }
            let deadline = Date().addingTimeInterval(30)
            var caughtUp = false
            while !caughtUp && Date() < deadline {
                while let line = local.readLine(seconds: 0.01) { localLines.append(line) }
                while let line = remote.readLine(seconds: 0.01) { remoteLines.append(line) }
                caughtUp = replayEvents(localLines) == expected && replayEvents(remoteLines) == expected
            }
            #expect(caughtUp, "step \(step): file \(replayEvents(localLines)), URL \(replayEvents(remoteLines)), expected \(expected)")
            if !caughtUp { break }
        }
        #expect(!remoteLines.contains { $0.contains(#""event":"error""#) }, "\(remoteLines.filter { $0.contains("error") })")
        local.signal(SIGTERM)
        remote.signal(SIGTERM)
        #expect(local.wait() == 0)
        #expect(remote.wait() == 0)
    }

    @Test("events URL prints an error line when the server goes away, and goes on when it is back")
    func eventsSurviveARestart() throws {
        let folder = ScratchFolder()
        let file = folder.write("board.json", #"{"players":{"a":{"score":1}}}"#)
        let server = try ServedFile(file: file)
        let events = try ChildProcess([try synctableBinary(), "events", server.url("/players")])
        #expect(events.readLines(until: { $0.contains(#""event":"value""#) }).contains { $0.contains(#""key":"a""#) })
        server.kill()
        let error = events.readLine(seconds: 30) ?? ""
        #expect(error.contains(#""event":"error""#) && error.contains(#""connection":"reconnecting""#), "\(error)")
        writeFileInPlace(file, Array(#"{"players":{"a":{"score":1},"b":{"score":2}}}"#.utf8))
        try server.start()
        let after = events.readLines(until: { $0.contains(#""key":"b""#) })
        #expect(after.contains { $0.contains(#""event":"child_added""#) && $0.contains(#""key":"b""#) })
        events.signal(SIGTERM)
        #expect(events.wait() == 0)
    }

    @Test("a refused token: status 1, a message that names the refusal and not the token; the right one from the environment works")
    func refusedToken() throws {
        let folder = ScratchFolder()
        let file = folder.write("data.json", #"{"players":{"a":{"score":1}}}"#)
        let server = try ServedFile(file: file, arguments: ["--auth-token", "right-token-42"])
        let refused = try synctable(["list", server.url("/players"), "--auth-token", "wrong-token-17"])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("401"), "\(refused.errors)")
        let shown: String = refused.errors + refused.output
        #expect(!shown.contains("wrong-token-17"))
        let allowed = try synctable(["list", server.url("/players"), "--format", "jsonl"],
                                    environment: ["SYNCTABLE_AUTH_TOKEN": "right-token-42"])
        let listed: String = allowed.output
        #expect(allowed.status == 0, "\(allowed.errors)")
        #expect(listed.contains(#""key":"a""#))
        let write = try synctable(["set", server.url("/players"), "/a/score", "5", "--auth-token", "wrong-token-17"])
        let writeErrors: String = write.errors
        #expect(write.status == 1)
        #expect(!writeErrors.contains("wrong-token-17"))
        #expect(readFileText(file)?.contains(#""score":1"#) == true, "a refused write changed nothing")
    }
}
