// Tokens against `synctable serve --auth-token`: placed as the database expects, refused ones
// reported as unauthorized, and never in a message.
import JSONTree
@testable import RemoteStore
import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct AuthTests {
    /// A served file that needs `token`, seen through a proxy that logs each request line.
    private func served(token: String, _ folder: ScratchFolder) async throws -> (InProcessServer, Proxy) {
        let server = try await InProcessServer(file: folder.write("db.json", #"{"a": {"b": 1}}"#), options: ServeOptions(authToken: token))
        return (server, try Proxy(target: server.port, folder: folder))
    }

    @Test(arguments: ["legacy-database-secret", "ya29.an-oauth2-access-token"])
    func theRightTokenIsAccepted(token: String) async throws {
        let folder = ScratchFolder("remote-auth")
        let (server, proxy) = try await served(token: token, folder)
        let client = RemoteClient()
        let url = try DatabaseURL(parsing: "http://127.0.0.1:\(proxy.port)/a", environment: [:])
        let rest = RestClient(client: client, url: url, credential: Credential(token: token))
        // The stream first, so that the read takes a second connection (the proxy logs the
        // first request of each).
        let (connection, recorder) = try follow(url.display, client: client, token: token)
        #expect(await eventually { recorder.state == .online })
        #expect(recorder.value == ["b": 1])
        #expect(try await rest.get(url.location).value == ["b": 1])
        await connection.stop()
        try await client.shutdown()

        // On the wire: an OAuth2 token in the header, anything else as auth=.
        let requests = proxy.requests
        #expect(requests.count == 2)
        for request in requests {
            if token.hasPrefix("ya29.") {
                #expect(request.hasSuffix("bearer=yes") && !request.contains("auth="), "\(request)")
            } else {
                #expect(request.hasSuffix("bearer=no") && request.contains("?auth=\(token) "), "\(request)")
            }
        }
        try await server.stop()
    }

    @Test(arguments: ["wrong-secret", "ya29.wrong-access-token", nil])
    func aRefusedTokenIsUnauthorizedAndNeverShown(token: String?) async throws {
        let folder = ScratchFolder("remote-auth-refused")
        let file = folder.write("db.json", #"{"a": 1}"#)
        let server = try await InProcessServer(file: file, options: ServeOptions(authToken: "right-token"))
        let client = RemoteClient()
        let url = try DatabaseURL(parsing: server.url("/a"), environment: [:])
        let rest = RestClient(client: client, url: url, credential: token.flatMap { Credential(token: $0) })
        do {
            _ = try await rest.get(url.location)
            Issue.record("a refused token read the database")
        } catch {
            #expect(error.status == 401 && error.isUnauthorized)
            #expect(error.message.contains("a valid auth token is needed"), "the server's own words: \(error)")
            if let token { #expect(!"\(error)".contains(token) && !String(reflecting: error).contains(token)) }
        }
        await #expect(throws: RemoteError.self) { try await rest.set(url.location, 2) }

        let (connection, recorder) = try follow(url.display, client: client, token: token)
        #expect(await eventually { if case .unauthorized = recorder.state { true } else { false } })
        await connection.stop()
        try await client.shutdown()
        #expect(recorder.batches.isEmpty)
        for state in recorder.states {
            if let token { #expect(!"\(state)".contains(token)) }
        }
        #expect(readFileText(file) == #"{"a": 1}"#)
        try await server.stop()
    }
}
