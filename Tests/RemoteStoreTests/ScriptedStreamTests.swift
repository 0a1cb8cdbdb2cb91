// The protocol's edges, against a server that sends exactly what the test says: batches per
// chunk, malformed events, cancel and auth_revoked, error statuses, a body that is no stream.
import JSONTree
@testable import RemoteStore
import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct ScriptedStreamTests {
    /// Quick retries, so that each test sees the connection come back; the scripted server
    /// sends no keep-alives, so no idle timeout while a loaded machine runs the test slowly.
    static let quick = EventStreamConnection.Options(idleTimeout: .seconds(3600),
                                                     backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)))
    static let patient = EventStreamConnection.Options(idleTimeout: .seconds(3600))

    @Test func aBurstInOneChunkIsOneBatch() async throws {
        let server = try ScriptedServer()
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let (connection, recorder) = try follow(server.url("/"), client: client, options: Self.patient)
        defer { connection.stop() }
        #expect(await eventually { recorder.state == .online })
        #expect(recorder.batches == [[.put(.root, ["a": 1])]])

        let burst = "event: patch\ndata: {\"path\":\"/\",\"data\":{\"b\":2,\"c\":{\"e\":3}}}\n\n"
            + "event: put\ndata: {\"path\":\"/a\",\"data\":null}\n\n"
            + "event: keep-alive\ndata: null\n\n"
            + "event: put\ndata: {\"path\":\"/c/d\",\"data\":\"x\"}\n\n"
        #expect(server.send(burst) == 1)
        #expect(await eventually { recorder.batches.count == 2 })
        #expect(recorder.batches.last == [
            .patch(.root, ["b": 2, "c": ["e": 3]]), .put(Path(keys: ["a"]), .null), .keepAlive, .put(Path(keys: ["c", "d"]), "x"),
        ])
        #expect(recorder.value == ["b": 2, "c": ["e": 3, "d": "x"]])

        // An event cut across two writes comes whole with the second.
        #expect(server.send("event: put\ndata: {\"path\":\"/b\",") == 1)
        #expect(server.send("\"data\":7}\n\n") == 1)
        #expect(await eventually { recorder.value == ["b": 7, "c": ["e": 3, "d": "x"]] })
        #expect(recorder.batches.last == [.put(Path(keys: ["b"]), 7)])
    }

    @Test func aMalformedEventDropsTheConnectionAndAFreshOneCatchesUp() async throws {
        let server = try ScriptedServer()
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let (connection, recorder) = try follow(server.url("/"), client: client, options: Self.quick)
        defer { connection.stop() }
        #expect(await eventually { recorder.state == .online })
        server.command(["initial": "event: put\ndata: {\"path\":\"/\",\"data\":{\"a\":2}}\n\n"])
        server.send("event: put\ndata: {\"path\":\"/a\",\"data\":tru\n\n")
        #expect(await eventually { recorder.rootPuts == 2 && recorder.state == .online })
        #expect(recorder.value == ["a": 2])
        #expect(recorder.states.contains { if case .reconnecting(1, _, let why) = $0 { why.contains("not JSON") } else { false } })
    }

    @Test func cancelIsOfflineAndAuthRevokedIsUnauthorized() async throws {
        let server = try ScriptedServer()
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let (connection, recorder) = try follow(server.url("/"), client: client, options: Self.quick)
        defer { connection.stop() }
        #expect(await eventually { recorder.state == .online })
        server.send("event: cancel\ndata: \"Permission denied\"\n\n")
        #expect(await eventually { recorder.states.contains(.offline(reason: "the server cancelled the stream: Permission denied")) })
        #expect(recorder.batches.joined().contains(.cancel("Permission denied")))
        #expect(await eventually { recorder.state == .online })
        server.send("event: auth_revoked\ndata: \"credential is no longer valid\"\n\n")
        // The first retry after a refusal is quick, so the state may already be back online.
        #expect(await eventually {
            recorder.states.contains { if case .unauthorized(let why) = $0 { why.contains("auth_revoked") } else { false } }
        })
        #expect(await eventually { recorder.state == .online })
    }

    @Test func errorStatusesAreReportedWithTheServersWords() async throws {
        let server = try ScriptedServer()
        server.command(["respond": 503, "body": #"{"error": "the database is restarting"}"#])
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        // Refusals retried at a quick pace too: the test is about the words, not the waits.
        let options = EventStreamConnection.Options(
            idleTimeout: .seconds(3600), backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200), refused: .milliseconds(200)))
        let (connection, recorder) = try follow(server.url("/"), client: client, options: options)
        defer { connection.stop() }
        #expect(await eventually {
            if case .reconnecting(_, _, let why) = recorder.state { why.hasPrefix("HTTP 503") && why.hasSuffix(": the database is restarting") } else { false }
        })
        server.command(["respond": 400, "body": #"{"error": "orderBy must be a valid JSON encoded path"}"#])
        #expect(await eventually {
            if case .offline(let why) = recorder.state { why.hasPrefix("HTTP 400") && why.hasSuffix(": orderBy must be a valid JSON encoded path") } else { false }
        })
        server.command(["respond": 200, "type": "application/json", "body": "{}"])
        #expect(await eventually { recorder.state == .offline(reason: "the server answered with application/json, not an event stream") })
        server.command(["respond": 200, "type": "text/event-stream"])
        #expect(await eventually { recorder.state == .online })
        #expect(recorder.value == ["a": 1])
    }

    /// A server that sends a good put and then a cancel (or a malformed event) at once was
    /// asked 124–133 times in 10 s: the waits start again only after a connection that stayed
    /// online, so they keep doubling here.
    @Test func aPutThenACancelDoesNotResetTheBackoff() async throws {
        let server = try ScriptedServer()
        let put = "event: put\ndata: {\"path\":\"/\",\"data\":{\"a\":1}}\n\n"
        server.command(["initial": .string(put + "event: cancel\ndata: \"no\"\n\n")])
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let options = EventStreamConnection.Options(
            idleTimeout: .seconds(3600), backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(40), refused: .seconds(10)))
        let start = ContinuousClock.now
        let (connection, recorder) = try follow(server.url("/"), client: client, options: options)
        defer { connection.stop() }
        #expect(await eventually { recorder.states.contains { if case .offline = $0 { true } else { false } } })
        try await Task.sleep(for: .milliseconds(600))
        let requests = server.requests
        // The waits are at least 10, 20, 40, 80, 160, 320 ms, … (half of each step, which doubles
        // up to the refusal pace of 10 s): in the time that passed (far more than 600 ms when
        // the machine is busy), the first request and at most as many tries as those waits add up to.
        let elapsed = Int((ContinuousClock.now - start) / .milliseconds(1))
        var allowed = 1, waited = 0, wait = 10
        while waited + wait <= elapsed {
            waited += wait
            wait = min(wait * 2, 5_000)
            allowed += 1
        }
        #expect(requests >= 2 && requests <= allowed, "\(requests) requests in \(elapsed) ms")
    }

    @Test func refusalsAreRetriedAtTheSlowestPace() {
        var random = SplitMix64(seed: 3)
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1), refused: .seconds(30))
        for ending in [EventStreamConnection.Ending.refused("400"), .unauthorized("401")] {
            // The first tries are quick (a refusal may end soon); they slow to 15–30 s, not 1 s.
            let first = EventStreamConnection.retryDelay(after: ending, attempt: 1, backoff: backoff, using: &random)
            #expect(first >= .milliseconds(50) && first <= .milliseconds(100))
            let later = EventStreamConnection.retryDelay(after: ending, attempt: 20, backoff: backoff, using: &random)
            #expect(later >= .seconds(15) && later <= .seconds(30))
        }
        let lost = EventStreamConnection.retryDelay(after: .lost("gone"), attempt: 1, backoff: backoff, using: &random)
        #expect(lost >= .milliseconds(50) && lost <= .milliseconds(100))
    }

    @Test func aStreamQueryTheServerRefusesIsOffline() async throws {
        // `synctable serve` streams whole locations only: a query is a 400.
        let folder = ScratchFolder("remote-query")
        let server = try await InProcessServer(file: folder.write("db.json", #"{"a": {"x": 1}}"#))
        let client = RemoteClient()
        let (connection, recorder) = try follow(server.url("/a"), client: client,
                                                options: .init(parameters: [("orderBy", "\"$key\""), ("limitToLast", "2")]))
        #expect(await eventually { if case .offline(let why) = recorder.state { why.hasPrefix("HTTP 400") && why.contains("no orderBy") } else { false } })
        #expect(recorder.batches.isEmpty)
        await connection.stop()
        try await client.shutdown()
        try await server.stop()
    }
}
