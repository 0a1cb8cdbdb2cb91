// Access and abuse: tokens, read-only, body limits, paths that are not database paths,
// malformed requests, a client that stops reading, many streams at once.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
@testable import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct SafetyTests {
    static let content = #"{"a": {"b": 1}, "secret": 42}"#

    @Test func anAuthTokenIsRequiredWhenGiven() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.content), options: ServeOptions(authToken: "owner"))
        #expect(try server.request("GET", "/secret.json").status == 401)
        #expect(try server.request("GET", "/secret.json", headers: [("Authorization", "Bearer other")]).status == 401)
        #expect(try server.request("PUT", "/secret.json", body: "0").status == 401)
        #expect(try server.request("GET", "/secret.json", headers: [("Authorization", "Bearer owner")]).json == json("42"))
        #expect(try server.request("GET", "/secret.json?auth=owner").json == json("42"))
        #expect(folder.read("db.json") == Self.content)
        try await server.stop()
    }

    @Test func readOnlyRefusesEveryWrite() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.content), options: ServeOptions(readOnly: true))
        for method in ["PUT", "PATCH", "POST", "DELETE"] {
            let response = try server.request(method, "/a.json", body: #"{"b": 2}"#)
            #expect(response.status == 401, "\(method)")
            #expect(response.json?["error"]?.stringValue?.contains("read-only") == true)
        }
        let override = try server.request("POST", "/a.json", headers: [("X-HTTP-Method-Override", "DELETE")], body: "")
        #expect(override.status == 401)
        #expect(try server.request("GET", "/a/b.json").json == json("1"))
        #expect(folder.read("db.json") == Self.content)
        try await server.stop()
    }

    @Test func oversizedBodiesAre413() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.content), options: ServeOptions(maxBodyBytes: 1000))
        let big = "\"" + String(repeating: "x", count: 2000) + "\""
        #expect(try server.request("PUT", "/a.json", body: big).status == 413)
        // Without a Content-Length (chunked), the limit holds as the body arrives.
        let connection = try server.connect()
        var request = Array("PUT /a.json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<4 { request += Array("200\r\n".utf8) + Array(repeating: UInt8(ascii: " "), count: 512) + Array("\r\n".utf8) }
        request += Array("0\r\n\r\n".utf8)
        connection.send(request)
        #expect(try connection.readResponse().status == 413)
        #expect(try server.request("PUT", "/a.json", body: #""small""#).status == 200)
        try await server.stop()
    }

    @Test func pathsAreDatabasePaths() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.content))
        for target in ["/../etc/passwd.json", "/a/%2E%2E/secret.json", "/a%2Fb.json", "/a%00.json", "/a$b.json",
                       "/a%23b.json", "/a[0].json", "/a.b.json", "/a", "/a/b"] {
            let response = try server.request("GET", target)
            #expect(response.status == 400, "\(target)")
            #expect(response.json?["error"] != nil, "\(target)")
        }
        #expect(try server.request("PUT", "/a/..%2F..%2Fx.json", body: "1").status == 400)
        #expect(folder.read("db.json") == Self.content)
        try await server.stop()
    }

    @Test func malformedRequestsDoNotHurtTheServer() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.content))
        for garbage in ["NOT HTTP AT ALL\r\n\r\n", "GET /a.json HTTP/9.9\r\n\r\n", "GET /a.json HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                        String(repeating: "A", count: 100_000) + "\r\n\r\n"] {
            let connection = try server.connect()
            connection.send(Array(garbage.utf8))
            if let response = try? connection.readResponse(seconds: 10) {
                #expect(response.status >= 400, "\(garbage.prefix(40))")
            }
            #expect(await closedByServer([connection], seconds: 10) == [true], "\(garbage.prefix(40))")
        }
        #expect(try server.request("GET", "/a/b.json").json == json("1"))
        #expect(try server.request("DELETE", "/a.json", headers: [("Content-Length", "0")]).status == 200)
        try await server.stop()
    }

    @Test func aClientThatStopsReadingIsDroppedAndSlowsNoOne() async throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"big": "", "n": 0}"#)
        let server = try await InProcessServer(file: file, options: ServeOptions(streamBacklogLimit: 8))
        // The slow client: a tiny receive buffer, and it never reads after the request.
        let slow = try HTTPConnection(port: server.port, receiveBuffer: 4096)
        slow.send(HTTPConnection.requestBytes("GET", "/.json", headers: [("Accept", "text/event-stream")]))
        let (reader, _) = try StreamTests.open(server, "/n.json")
        let payload = String(repeating: "y", count: 200_000)
        for n in 1...60 {
            // Large values fill the slow client's socket; the reader follows every one.
            _ = try server.request("PATCH", "/.json", body: #"{"big": "\#(payload)\#(n)", "n": \#(n)}"#)
            #expect(try reader.readDataEvent()?.json == json(#"{"path":"/","data":\#(n)}"#))
        }
        #expect(await closedByServer([slow], seconds: 20) == [true])
        try await server.stop()
    }

    @Test func manyStreamsAtOnceAllHearAnEdit() async throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"n": 0}"#)
        // This process holds the clients' ends and the server's: 2,000 descriptors and more (raised
        // before the server starts, which caps its connections by the limit).
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_cur > 2400, "the system allows only \(limit.rlim_max) descriptors a process")
        let server = try await InProcessServer(file: file)
        var streams = [HTTPConnection]()
        for _ in 0..<1000 {
            let connection = try server.connect()
            connection.send(HTTPConnection.requestBytes("GET", "/n.json", headers: [("Accept", "text/event-stream")]))
            streams.append(connection)
        }
        for stream in streams {
            _ = try stream.readHead()
            #expect(try stream.readDataEvent()?.json == json(#"{"path":"/","data":0}"#))
        }
        _ = try server.request("PUT", "/n.json", body: "1")
        // The server's keep-alive tick (every 30 s from its start) can fall before the PUT on a slow host.
        for stream in streams {
            #expect(try stream.readDataEvent()?.json == json(#"{"path":"/","data":1}"#))
        }
        try await server.stop()
    }

    /// `--auth-token ""` (an unset variable) served everyone while looking closed.
    @Test func anEmptyAuthTokenIsRefused() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", Self.content)
        #expect(throws: ServeError.self) { _ = try DatabaseServer(file: file, options: ServeOptions(port: 0, authToken: "")) }
        let child = try ChildProcess([try builtProduct("synctable"), "serve", file, "--port", "0", "--auth-token", ""])
        child.closeInput()
        #expect(child.readLine(seconds: 30) == nil)
        #expect(child.wait() != 0)
        #expect(child.standardError().contains("--auth-token is empty"))
    }

    /// Error bodies carried the served file's path on this machine.
    @Test func errorsNameDatabasePathsOnly() async throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", Self.content)
        let served = try await InProcessServer(file: file)
        unlink(file)
        for (method, target) in [("PUT", "/a/b.json"), ("PATCH", "/a.json"), ("DELETE", "/a.json")] {
            let response = try served.request(method, target, body: method == "PATCH" ? #"{"b": 2}"# : "2")
            let message = try #require(response.json?["error"]?.stringValue, "\(method)")
            #expect(response.status >= 500 && message == "the file is missing", "\(method)")
            #expect(!String(decoding: response.body, as: UTF8.self).contains(folder.path), "\(method)")
        }
        try await served.stop()
    }

    /// 20,000 idle sockets took every descriptor: idle and slow-header connections are closed,
    /// and past the cap a connection is answered 503 at once rather than left waiting.
    @Test func idleConnectionsCloseAndTheCapAnswers() async throws {
        let folder = ScratchFolder()
        let served = try await InProcessServer(file: folder.write("db.json", Self.content),
                                               options: ServeOptions(idleTimeoutMilliseconds: 300, maxConnections: 3))
        var idle = [HTTPConnection]()
        for _ in 0..<3 { idle.append(try served.connect()) }
        eventually("three connections counted") { served.server.connections.count == 3 }
        let refused = try served.request("GET", "/a/b.json")
        #expect(refused.status == 503 && refused.header("retry-after") == "1")
        // The idle ones time out, and the server answers again.
        #expect(await closedByServer(idle, seconds: 10) == [true, true, true])
        #expect(try served.request("GET", "/a/b.json").json == json("1"))
        // A head that never ends is closed too; so is a connection kept alive and left idle.
        let slow = try served.connect()
        slow.send(Array("GET /a/b.json HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8))
        #expect(await closedByServer([slow], seconds: 10) == [true])
        let kept = try served.connect()
        #expect(try kept.request("GET", "/a/b.json").json == json("1"))
        #expect(await closedByServer([kept], seconds: 10) == [true])
        eventually("no connection left") { served.server.connections.count == 0 }
        try await served.stop()
    }

    /// SIGTERM did not end the server while a client that does not read was connected.
    @Test func aSignalEndsTheServerWhateverItsClientsDo() throws {
        let folder = ScratchFolder()
        let big = String(repeating: "b", count: 3_000_000)
        let server = try TestServer(file: folder.write("db.json", #"{"big": "\#(big)"}"#))
        let stuck = try HTTPConnection(port: server.port, receiveBuffer: 4096)
        stuck.send(HTTPConnection.requestBytes("GET", "/.json", headers: [("Accept", "text/event-stream")]))
        _ = try stuck.readHead()
        // And a write whose body never comes.
        let unfinished = try server.connect()
        unfinished.send(Array("PUT /a.json HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{".utf8))
        usleep(100_000)
        let start = monotonicNanoseconds()
        #expect(server.stop(signal: SIGTERM, within: 5) == 0)
        #expect(monotonicNanoseconds() - start < 1_500_000_000)
    }
}
