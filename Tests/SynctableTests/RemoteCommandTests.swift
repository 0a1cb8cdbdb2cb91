// `list`, `events` and the write commands on a database URL (`synctable serve` in another
// process), compared with the same commands on the served file.
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

/// A random leaderboard: players with a score, a name and sometimes a team.
private func randomBoard(_ random: inout SplitMix64) -> String {
    let players = (0..<random.int(5...40)).map { i -> String in
        let team = random.chance(0.5) ? #","team":"\#(random.pick(["red", "blue"]))""# : ""
        return #""p\#(i)":{"name":"n\#(random.int(0..<9))","score":\#(random.int(0..<30))\#(team)}"#
    }
    return #"{"players":{\#(players.joined(separator: ","))},"other":1}"#
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
    @Test("list URL prints what list FILE prints, for random queries on random leaderboards (the query sent to the server)")
    func listMatchesTheFile() throws {
        let queries: [[String]] = [
            [], ["--order-by-child", "score"], ["--order-by-child", "score", "--limit-to-last", "5"],
            ["--order-by-child", "score", "--start-at", "10", "--end-at", "20"], ["--order-by-key", "--limit-to-first", "3"],
            ["--order-by-child", "team", "--equal-to", "\"red\""], ["--order-by-child", "name", "--start-after", "\"n3\""],
        ]
        try forEachSeed(4) { seed, random in
            let folder = ScratchFolder()
            let file = folder.write("board.json", randomBoard(&random))
            let server = try ServedFile(file: file)
            for query in queries {
                let local = try synctable(["list", file, "--path", "/players", "--format", "jsonl"] + query)
                let remote = try synctable(["list", server.url("/players"), "--format", "jsonl"] + query)
                let rooted = try synctable(["list", server.url("/"), "--path", "/players", "--format", "jsonl"] + query)
                #expect(local.status == 0 && remote.status == 0, "seed \(seed) \(query): \(remote.errors)")
                #expect(remote.output == local.output, "seed \(seed) \(query)")
                #expect(rooted.output == local.output, "seed \(seed) \(query) with --path")
            }
        }
    }

    @Test("events URL replays to the same rows as events FILE while another process edits the file")
    func eventsMatchTheFile() throws {
        var random = SplitMix64(seed: 11)
        let folder = ScratchFolder()
        let file = folder.write("board.json", randomBoard(&random))
        let server = try ServedFile(file: file)
        let query = ["--order-by-child", "score", "--limit-to-last", "8"]
        let local = try ChildProcess([try synctableBinary(), "events", file, "--path", "/players"] + query)
        let remote = try ChildProcess([try synctableBinary(), "events", server.url("/players")] + query)
        var localLines: [String] = [], remoteLines: [String] = []
        for step in 0..<10 {
            let text = randomBoard(&random)
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

    @Test("set, update, push and remove on a URL change the served file")
    func writesThroughTheURL() throws {
        let folder = ScratchFolder()
        let file = folder.write("data.json", #"{"players":{"a":{"score":1},"b":{"score":2}}}"#)
        let server = try ServedFile(file: file)
        let url = server.url("/players")
        #expect(try synctable(["set", url, "/a/score", "10"]).status == 0)
        #expect(try synctable(["update", url, "/b", #"{"score":20,"team":"red"}"#]).status == 0)
        let pushed = try synctable(["push", url, "/", #"{"score":3}"#])
        #expect(pushed.status == 0)
        let key = pushed.output.split(separator: "\n").first.map(String.init) ?? ""
        #expect(key.count == 20, "a push id, not \(key)")
        #expect(try synctable(["remove", url, "/a"]).status == 0)
        let saved = try JSONDocument(parsing: readFileText(file) ?? "").root.json
        #expect(saved == ["players": ["b": ["score": 20, "team": "red"], JSON.string(key).stringValue!: ["score": 3]]])
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
