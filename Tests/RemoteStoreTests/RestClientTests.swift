// REST reads and writes against `synctable serve`, checked in the file; transactions by ETag.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
@testable import RemoteStore
import ServeTestSupport
import Synchronization
import Testing
import TestSupport

@Suite struct RestClientTests {
    /// `text` served in this process from a scratch folder's `db.json`.
    private static func served(_ text: String, _ name: String) async throws -> (InProcessServer, ScratchFolder) {
        let folder = ScratchFolder(name)
        return (try await InProcessServer(file: folder.write("db.json", text)), folder)
    }

    private func file(_ folder: ScratchFolder) -> JSON { fileValue(folder.file("db.json"), at: .root) ?? .null }

    @Test func writesReachTheFile() async throws {
        let (server, folder) = try await Self.served(#"{"players": {"alice": {"score": 1}}, "other": true}"#, "remote-rest")
        defer { withExtendedLifetime(folder) {} }
        let client = RemoteClient()
        let rest = RestClient(client: client, url: try DatabaseURL(parsing: server.url("/players"), environment: [:]), credential: nil)
        let players = Path(keys: ["players"])

        #expect(try await rest.set(players.child("bob"), ["score": 2]) == .written)
        try await rest.update(players, JSONObject([("alice/score", 5), ("carol", ["score": 3])]))
        let id = try await rest.push(players, ["score": 9])
        #expect(id.utf8.count == 20)
        try await rest.remove(players.child("bob"))
        #expect(file(folder) == json(#"{"players": {"alice": {"score": 5}, "carol": {"score": 3}, "\#(id)": {"score": 9}}, "other": true}"#))

        let (value, etag) = try await rest.get(players.child("alice"))
        #expect(value == ["score": 5] && etag?.isEmpty == false)
        #expect(try await rest.get(players.child("nobody")).value == .null)
        let shallow = try await rest.get(players, parameters: [("shallow", "true")]).value
        #expect(shallow == .object(JSONObject([("alice", true), ("carol", true), (id, true)])))
        try await client.shutdown()
        try await server.stop()
    }

    @Test func aStaleETagIsPreconditionFailedWithTheCurrentValue() async throws {
        let (server, folder) = try await Self.served(#"{"n": 1}"#, "remote-etag")
        defer { withExtendedLifetime(folder) {} }
        let client = RemoteClient()
        let rest = RestClient(client: client, url: try DatabaseURL(parsing: server.url("/"), environment: [:]), credential: nil)
        let n = Path(keys: ["n"])
        let (_, etag) = try await rest.get(n)
        let old = try #require(etag)
        #expect(try await rest.set(n, 2, ifMatch: old) == .written)
        // The ETag read before that write is stale now: 412, nothing written, the current value and ETag.
        guard case .preconditionFailed(let current, let value) = try await rest.set(n, 3, ifMatch: old) else {
            Issue.record("a stale ETag wrote")
            return
        }
        #expect(value == 2 && current != old)
        #expect(file(folder) == ["n": 2])
        #expect(try await rest.set(n, 3, ifMatch: current) == .written)
        #expect(file(folder) == ["n": 3])
        try await client.shutdown()
        try await server.stop()
    }

    @Test func aTransactionRetriesOnAConcurrentWrite() async throws {
        let (server, folder) = try await Self.served(#"{"n": 10}"#, "remote-transaction")
        defer { withExtendedLifetime(folder) {} }
        let client = RemoteClient()
        let rest = RestClient(client: client, url: try DatabaseURL(parsing: server.url("/"), environment: [:]), credential: nil)
        let n = Path(keys: ["n"])
        let seen = Mutex<[JSON]>([])
        // The first call writes behind the transaction's back: its write gets 412 and it runs
        // again on the value the server returned.
        let other = RestClient(client: client, url: rest.url, credential: nil)
        let result = try await rest.transaction(n) { value in
            let first = seen.withLock { seen in
                seen.append(value)
                return seen.count == 1
            }
            if first { _ = try await other.set(n, 100) }
            return .number(JSONNumber((value.doubleValue ?? 0) + 1))
        }
        #expect(result == 101)
        #expect(seen.withLock { $0 } == [10, 100])
        #expect(file(folder) == ["n": 101])
        try await client.shutdown()
        try await server.stop()
    }

    @Test func concurrentTransactionsLoseNoIncrement() async throws {
        let (server, folder) = try await Self.served(#"{"counter": 0}"#, "remote-counter")
        defer { withExtendedLifetime(folder) {} }
        let client = RemoteClient()
        let rest = RestClient(client: client, url: try DatabaseURL(parsing: server.url("/"), environment: [:]), credential: nil)
        let counter = Path(keys: ["counter"])
        let calls = Shared(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<20 {
                        _ = try await rest.transaction(counter) { value in
                            calls.withLock { $0 += 1 }
                            return .number(JSONNumber((value.doubleValue ?? 0) + 1))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(file(folder) == ["counter": 80])
        #expect(calls.withLock { $0 } >= 80)
        try await client.shutdown()
        try await server.stop()
    }

    @Test func errorsCarryTheStatusAndTheServersMessage() async throws {
        let (server, folder) = try await Self.served(#"{"a": 1}"#, "remote-errors")
        defer { withExtendedLifetime(folder) {} }
        let client = RemoteClient()
        let rest = RestClient(client: client, url: try DatabaseURL(parsing: server.url("/"), environment: [:]), credential: nil)
        do {
            _ = try await rest.get(.root, parameters: [("orderBy", "score")])
            Issue.record("a malformed query was answered")
        } catch {
            #expect(error.status == 400 && error.message.hasPrefix("HTTP 400") && error.message.contains("orderBy"), "\(error)")
        }
        try await server.stop()
        do {
            _ = try await rest.get(.root)
            Issue.record("a stopped server answered")
        } catch {
            #expect(error.kind == .transport && error.message.contains("127.0.0.1:\(server.port)"), "\(error)")
        }
        try await client.shutdown()
    }

    /// Synchronous (its bridge is for callers that are not async), so its server is a process.
    @Test func synchronousCommandsUseTheBlockingBridge() throws {
        let folder = ScratchFolder("remote-blocking")
        let server = try ServedFile(file: folder.write("db.json", #"{"a": 1}"#))
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let rest = RestClient(client: client, url: try DatabaseURL(parsing: server.url("/a"), environment: [:]), credential: nil)
        #expect(try client.blocking { try await rest.set(rest.url.location, 2) } == .written)
        #expect(try client.blocking { try await rest.get(rest.url.location).value } == 2)
        #expect(throws: RemoteError.self) { try client.blocking { try await rest.get(.root, parameters: [("orderBy", "x")]) } }
    }
}
