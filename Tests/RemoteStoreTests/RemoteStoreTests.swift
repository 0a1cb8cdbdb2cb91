// The remote store against `synctable serve` in another process: the same windows and events as
// a file store on the served file, writes that land in the file, a server restart, a refused token.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
import LiveQuery
@testable import RemoteStore
import Serve
import ServeTestSupport
import Testing
import TestSupport

/// Runs the loops of several stores on this thread.
private func pump(_ stores: [any LiveStore], seconds: Double = 30, until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        var fds = stores.flatMap(\.pollDescriptors).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        _ = poll(&fds, nfds_t(fds.count), 20)
        for store in stores { store.processPendingChanges() }
    }
    return true
}

/// A query's rows as its events build them, replayed the way a Firebase client does: by
/// `prevKey` (after that key; first when nil). Checks that every change replays to its window.
private final class ReplayedRows {
    private(set) var rows: [(key: String, value: JSON)] = []
    private(set) var changes = 0
    private(set) var mismatches: [String] = []

    func apply(_ change: WindowChange) {
        changes += 1
        for event in change.childEvents {
            let i = rows.firstIndex { $0.key == event.key }
            switch event.kind {
            case .childRemoved: if let i { rows.remove(at: i) }
            case .childChanged: if let i { rows[i].value = event.value.json }
            case .childAdded, .childMoved:
                if let i { rows.remove(at: i) }
                let at = event.prevKey.flatMap { p in rows.firstIndex { $0.key == p }.map { $0 + 1 } } ?? 0
                rows.insert((event.key, event.value.json), at: at)
            }
        }
        let expected = change.new.map { (key: $0.key, value: $0.value.json) }
        if !rows.elementsEqual(expected, by: { $0.key == $1.key && $0.value == $1.value }) {
            mismatches.append("after change \(changes): replayed \(rows.map(\.key)), window \(expected.map(\.key))")
        }
    }

    var keys: [String] { rows.map(\.key) }
}

/// A leaderboard of `count` players with random scores, as JSON text.
private func leaderboard(_ random: inout SplitMix64, count: Int) -> JSONObject {
    JSONObject((0..<count).map { i in
        (key: "p\(i)", value: ["name": .string("player \(i)"), "score": .number(JSONNumber(random.int(0..<50)))])
    })
}

private func save(_ players: JSONObject, to file: String, style: Int) {
    let bytes = JSON.object(JSONObject([(key: "players", value: .object(players))])).serialized()
    if style == 0 { writeFileInPlace(file, bytes) } else { writeFileByRename(file, bytes) }
}

@Suite("A database location over the network as a live store", .serialized)
struct RemoteStoreTests {
    @Test("windows and replayed events equal a file store's on the served file, after random edits saved in place and by rename")
    func sameWindowsAsTheFile() async throws {
        try await forEachSeed(3) { seed, random in
            let folder = ScratchFolder()
            let file = folder.file("board.json")
            var players = leaderboard(&random, count: 30)
            save(players, to: file, style: 0)
            let server = try await InProcessServer(file: file)
            let query = try Query().orderByChild(try Path("score")).limitToLast(10)
            let local = try FileStore(path: file)
            let remote = try RemoteStore(url: try DatabaseURL(parsing: server.url("/players"), environment: [:]), credential: nil)
            let localRows = ReplayedRows(), remoteRows = ReplayedRows()
            local.reference(try Path("/players")).withQuery(query).observeChanges { localRows.apply($0) }
            remote.reference().withQuery(query).observeChanges { remoteRows.apply($0) }

            for step in 0..<12 {
                switch random.int(0..<4) {
                case 0: players["p\(random.int(0..<40))"] = ["name": "new", "score": .number(JSONNumber(random.int(0..<50)))]
                case 1: players[players.keys[random.int(0..<players.count)]] = nil
                default:
                    let key = players.keys[random.int(0..<players.count)]
                    players[key] = ["name": "moved", "score": .number(JSONNumber(random.int(0..<50)))]
                }
                save(players, to: file, style: random.int(0..<2))
                let expected = Window(query: query, path: try Path("/players"),
                                      document: JSONDocument(.object(JSONObject([(key: "players", value: .object(players))]))))
                    .map(\.key)
                let agreed = pump([local, remote]) { localRows.keys == expected && remoteRows.keys == expected }
                #expect(agreed, "seed \(seed) step \(step): file \(localRows.keys), remote \(remoteRows.keys), expected \(expected)")
                if !agreed {
                    try await server.stop()
                    return
                }
                #expect(local.reference(try Path("/players")).withQuery(query).currentWindow.map { $0.map(\.key) }
                    == remote.reference().withQuery(query).currentWindow.map { $0.map(\.key) })
            }
            #expect(localRows.mismatches.isEmpty, "\(localRows.mismatches)")
            #expect(remoteRows.mismatches.isEmpty, "\(remoteRows.mismatches)")
            #expect(remote.status.connection == .online)
            try await server.stop()
        }
    }

    @Test("the server killed and restarted: RECONNECTING while it is down, the last revision stays, then what changed meanwhile arrives as one revision")
    func serverRestartIsOneBatch() throws {
        let folder = ScratchFolder()
        let file = folder.file("board.json")
        var random = SplitMix64(seed: 7)
        var players = leaderboard(&random, count: 20)
        save(players, to: file, style: 0)
        let server = try ServedFile(file: file)
        let options = RemoteStore.Options(connection: .init(backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200))))
        let remote = try RemoteStore(url: try DatabaseURL(parsing: server.url("/players"), environment: [:]), credential: nil, options: options)
        var revisions: [Revision] = []
        remote.observeRevisions { revisions.append($0) }
        #expect(pump([remote]) { remote.status.connection == .online && !revisions.isEmpty })
        let before = try #require(remote.currentRevision)

        server.kill()
        #expect(pump([remote]) {
            if case .reconnecting? = remote.status.connection { true } else { false }
        })
        players["p3"] = nil
        players["p5"] = ["name": "changed offline", "score": 99]
        players["late"] = ["name": "added offline", "score": 1]
        save(players, to: file, style: 1)
        save(players, to: file, style: 0)
        // Down: the last revision is still current.
        #expect(remote.currentRevision?.number == before.number)

        try server.start()
        #expect(pump([remote]) { remote.status.connection == .online && remote.currentRevision?.number != before.number })
        #expect(revisions.count == 2, "one revision for the reconnection, not \(revisions.count - 1)")
        #expect(remote.currentRevision?.root.json == .object(players))
    }

    @Test("writes through the store land in the file: a set, a compare-and-swap refused, increments from two stores with none lost")
    func writesLandInTheFile() async throws {
        let folder = ScratchFolder()
        let file = folder.file("counters.json")
        writeFileInPlace(file, Array(#"{"counters":{"hits":0,"name":"x"}}"#.utf8))
        let server = try await InProcessServer(file: file)
        let url = try DatabaseURL(parsing: server.url("/counters"), environment: [:])
        let a = try RemoteStore(url: url, credential: nil), b = try RemoteStore(url: url, credential: nil)
        #expect(pump([a, b]) { a.currentRevision != nil && b.currentRevision != nil })

        var results: [Result<WatchedWrite, WriteError>] = []
        a.startWrite(JSONWrite.set(try Path("/name"), "renamed"), watching: try Path("/name"), ifStill: nil) { results.append($0) }
        #expect(pump([a, b]) { results.count == 1 })
        let set = try results[0].get()
        #expect(set.applied && set.before == "x" && set.after == "renamed")
        #expect(readFileText(file)?.contains(#""name":"renamed""#) == true)

        a.startWrite(JSONWrite.set(try Path("/name"), "lost"), watching: try Path("/name"), ifStill: .some("not this")) { results.append($0) }
        #expect(pump([a, b]) { results.count == 2 })
        let refused = try results[1].get()
        #expect(!refused.applied && refused.after == "renamed")

        let increment: JSON = [".sv": ["increment": 1]]
        for _ in 0..<15 {
            for store in [a, b] {
                store.startWrite(JSONWrite.set(try Path("/hits"), increment), watching: try Path("/hits"), ifStill: nil) { results.append($0) }
            }
        }
        #expect(pump([a, b], seconds: 60) { results.count == 32 })
        #expect(results[2...].allSatisfy { (try? $0.get().applied) == true })
        #expect(fileValue(file, at: try Path("/counters/hits")) == 30)
        // The stream brings the writes back to both stores.
        #expect(pump([a, b]) { a.currentRevision?.root.child("hits")?.doubleValue == 30 && b.currentRevision?.root.child("hits")?.doubleValue == 30 })
        try await server.stop()
    }

    @Test("a refused token: UNAUTHORIZED and no revision, and the token appears in no status; the right token follows")
    func refusedToken() async throws {
        let folder = ScratchFolder()
        let file = folder.file("secret.json")
        writeFileInPlace(file, Array(#"{"a":{"b":1}}"#.utf8))
        let server = try await InProcessServer(file: file, options: ServeOptions(authToken: "s3cret-token"))
        let url = try DatabaseURL(parsing: server.url("/a"), environment: [:])
        let refused = try RemoteStore(url: url, credential: Credential(token: "wrong-token-123"))
        #expect(pump([refused]) {
            if case .unauthorized? = refused.status.connection { true } else { false }
        })
        #expect(refused.currentRevision == nil)
        #expect(!"\(refused.status)".contains("wrong-token-123"))
        let allowed = try RemoteStore(url: url, credential: Credential(token: "s3cret-token"))
        #expect(pump([allowed]) { allowed.currentRevision?.root.child("b")?.doubleValue == 1 })
        try await server.stop()
    }

    @Test("a burst of events in one chunk is one revision, and a put below a leaf replaces the leaf as the database does")
    func burstIsOneRevision() throws {
        let server = try ScriptedServer()
        let remote = try RemoteStore(url: try DatabaseURL(parsing: server.url("/"), environment: [:]), credential: nil,
                                     options: RemoteStore.Options(connection: .init(idleTimeout: .seconds(3600))))
        var revisions: [Revision] = []
        remote.observeRevisions { revisions.append($0) }
        #expect(pump([remote]) { remote.status.connection == .online && revisions.count == 1 })
        #expect(remote.currentRevision?.root.json == ["a": 1])
        let burst = "event: patch\ndata: {\"path\":\"/\",\"data\":{\"b\":2,\"c\":5}}\n\n"
            + "event: put\ndata: {\"path\":\"/a\",\"data\":null}\n\n"
            + "event: put\ndata: {\"path\":\"/c/d\",\"data\":\"x\"}\n\n"
        #expect(server.send(burst) == 1)
        #expect(pump([remote]) { revisions.count == 2 })
        #expect(remote.currentRevision?.root.json == ["b": 2, "c": ["d": "x"]])
        #expect(pump([remote], seconds: 0.3) { revisions.count > 2 } == false, "one revision for the burst")
    }

    @Test("a limited first window is asked for with a query GET and shown before the stream's first put, which then moves nothing")
    func firstWindowBeforeTheStream() throws {
        let server = try ScriptedServer()
        // The stream says nothing until told; a plain GET answers the query's children.
        server.command(["initial": ""])
        server.command(["get": #"{"p8":{"score":80},"p9":{"score":90}}"#])
        let query = try Query().orderByChild(try Path("score")).limitToLast(2)
        let remote = try RemoteStore(url: try DatabaseURL(parsing: server.url("/players"), environment: [:]), credential: nil,
                                     options: RemoteStore.Options(connection: .init(idleTimeout: .seconds(3600)),
                                                                  firstWindow: (Path.root, query)))
        var changes: [WindowChange] = []
        remote.reference().withQuery(query).observeChanges { changes.append($0) }
        #expect(pump([remote]) { changes.count == 1 })
        #expect(changes.first?.new.map(\.key) == ["p8", "p9"])
        #expect(remote.status.connection == .connecting)
        let gets = server.command(["gets": true])
        #expect(gets.contains("orderBy=%22score%22") && gets.contains("limitToLast=2"), "\(gets)")

        // The stream's put of the whole location replaces it: the window is the same, so no change.
        let all = (0..<10).map { #""p\#($0)":{"score":\#($0 * 10)}"# }.joined(separator: ",")
        #expect(server.send("event: put\ndata: {\"path\":\"/\",\"data\":{\(all)}}\n\n") == 1)
        #expect(pump([remote]) { remote.status.connection == .online && remote.currentRevision?.root.count == 10 })
        #expect(changes.count == 1, "the first window was already right: \(changes.count - 1) more changes")
    }

    @Test("a served file removed for a while: OFFLINE (the server cancels the stream), then followed again within seconds of coming back")
    func removedFileComesBack() async throws {
        let folder = ScratchFolder()
        let file = folder.file("gone.json")
        writeFileInPlace(file, Array(#"{"p":{"a":1}}"#.utf8))
        let server = try await InProcessServer(file: file)
        let remote = try RemoteStore(url: try DatabaseURL(parsing: server.url("/p"), environment: [:]), credential: nil)
        #expect(pump([remote]) { remote.currentRevision?.root.json == ["a": 1] })
        #expect(unlink(file) == 0)
        #expect(pump([remote]) {
            if case .offline? = remote.status.connection { true } else { false }
        })
        writeFileInPlace(file, Array(#"{"p":{"a":2}}"#.utf8))
        // A refusal's retries start quick and only slow down to 15–30 s after a while.
        #expect(pump([remote], seconds: 10) { remote.status.connection == .online && remote.currentRevision?.root.json == ["a": 2] })
        try await server.stop()
    }
}
