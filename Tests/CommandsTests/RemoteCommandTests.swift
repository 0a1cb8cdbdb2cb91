// `list` and the write commands on a database URL (the served file in this process), run
// in-process, compared with the same commands on the served file.
import CommandTestSupport
import JSONTree
import ServeTestSupport
import Testing
import TestSupport

@Suite("Commands on a database URL", .serialized)
struct RemoteCommandTests {
    @Test("list URL prints what list FILE prints, for random queries on random leaderboards (the query sent to the server)")
    func listMatchesTheFile() async throws {
        let queries: [[String]] = [
            [], ["--order-by-child", "score"], ["--order-by-child", "score", "--limit-to-last", "5"],
            ["--order-by-child", "score", "--start-at", "10", "--end-at", "20"], ["--order-by-key", "--limit-to-first", "3"],
            ["--order-by-child", "team", "--equal-to", "\"red\""], ["--order-by-child", "name", "--start-after", "\"n3\""],
        ]
        try await forEachSeed(4) { seed, random in
            let folder = ScratchFolder()
            let file = folder.write("board.json", randomLeaderboard(&random))
            let server = try await InProcessServer(file: file)
            for query in queries {
                let local = try synctable(["list", file, "--path", "/players", "--format", "jsonl"] + query)
                let remote = try synctable(["list", server.url("/players"), "--format", "jsonl"] + query)
                let rooted = try synctable(["list", server.url("/"), "--path", "/players", "--format", "jsonl"] + query)
                #expect(local.status == 0 && remote.status == 0, "seed \(seed) \(query): \(remote.errors)")
                #expect(remote.output == local.output, "seed \(seed) \(query)")
                #expect(rooted.output == local.output, "seed \(seed) \(query) with --path")
            }
            try await server.stop()
        }
    }

    @Test("set, update, push and remove on a URL change the served file")
    func writesThroughTheURL() async throws {
        let folder = ScratchFolder()
        let file = folder.write("data.json", #"{"players":{"a":{"score":1},"b":{"score":2}}}"#)
        let server = try await InProcessServer(file: file)
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
        try await server.stop()
    }
}
