// PUT, PATCH, POST, DELETE: the file afterwards, byte for byte, and conditional writes with ETags.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import JSONTree
import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct WriteTests {
    static let original = """
        {
          "players": {
            "alice": { "score": 30,   "name": "Alice" },
            "bob":   { "score": 1.50, "name": "Bob" }
          },
          "log": [ "a", "b" ]
        }

        """

    @Test func writesChangeOnlyTheirValuesBytes() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.original))
        let put = try server.request("PUT", "/players/alice/score.json", body: "31")
        #expect(put.status == 200 && put.json == json("31"))
        // Everything else keeps its spelling: the spaces, `1.50`, the key order.
        #expect(folder.read("db.json") == Self.original.replacingOccurrences(of: "\"score\": 30,", with: "\"score\": 31,"))

        let patch = try server.request("PATCH", "/players.json", body: #"{"bob/score": 2, "carol": {"score": 5}}"#)
        #expect(patch.status == 200 && patch.json == json(#"{"bob/score":2,"carol":{"score":5}}"#))
        let after = try server.request("GET", "/players.json").json
        #expect(after?["bob"]?["score"] == json("2") && after?["carol"]?["score"] == json("5"))
        #expect(after?["alice"]?["score"] == json("31"))

        let post = try server.request("POST", "/players.json", body: #"{"score": 7}"#)
        let key = try #require(post.json?["name"]?.stringValue)
        #expect(key.utf8.count == 20)
        #expect(try server.request("GET", "/players/\(key)/score.json").json == json("7"))

        let delete = try server.request("DELETE", "/players/bob.json")
        #expect(delete.status == 200 && delete.json == json("null"))
        #expect(try server.request("GET", "/players/bob.json").json == json("null"))
        try await server.stop()
    }

    @Test func pushOntoAnArrayAppendsAtTheNextIndex() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.original))
        let post = try server.request("POST", "/log.json", body: #""c""#)
        #expect(post.json == json(#"{"name":"2"}"#))
        #expect(try server.request("GET", "/log.json").json == json(#"["a","b","c"]"#))
        try await server.stop()
    }

    @Test func serverValuesAreResolvedWhenWritten() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.original))
        let before = Int64(PushClock.now())
        let put = try server.request("PUT", "/stamp.json", body: #"{".sv":"timestamp"}"#)
        let stamp = try #require(put.json?.doubleValue)
        #expect(Int64(stamp) >= before && Int64(stamp) <= Int64(PushClock.now()))
        let increment = try server.request("PATCH", "/players/alice.json", body: #"{"score": {".sv": {"increment": 5}}}"#)
        #expect(increment.json == json(#"{"score":35}"#))
        try await server.stop()
    }

    @Test func methodOverrideAndSilentPrint() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.original))
        let put = try server.request("POST", "/players/alice/name.json?print=silent",
                                     headers: [("X-HTTP-Method-Override", "PUT")], body: #""Alicia""#)
        #expect(put.status == 204 && put.body.isEmpty)
        let delete = try server.request("POST", "/players/bob.json", headers: [("X-HTTP-Method-Override", "DELETE")], body: "")
        #expect(delete.status == 200)
        #expect(try server.request("GET", "/players.json").json == json(#"{"alice":{"score":30,"name":"Alicia"}}"#))
        try await server.stop()
    }

    @Test func badBodiesAre400AndWriteNothing() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.original))
        let cases: [(String, String, String, String)] = [
            ("PUT", "/players.json", "{not json", "the body is not valid JSON"),
            ("PATCH", "/players.json", "[1,2]", "a PATCH body must be a non-empty object"),
            ("PATCH", "/players.json", #"{"a/../b": 1}"#, "'..'"),
            ("PUT", "/players/alice.json", #"{"a.b": 1}"#, "keys cannot hold"),
            ("PUT", "/players/alice.json", #"{"a/b": 1}"#, "holds '/'"),
            ("PATCH", "/players.json", #"{"x/y": {"bad#key": 1}}"#, "keys cannot hold"),
        ]
        for (method, target, body, message) in cases {
            let response = try server.request(method, target, body: body)
            #expect(response.status == 400, "\(method) \(target) \(body)")
            #expect(response.json?["error"]?.stringValue?.contains(message) == true, "\(response.text)")
        }
        #expect(folder.read("db.json") == Self.original)
        try await server.stop()
    }

    /// The database replaces a leaf written below with an object holding the new child: an
    /// empty `push()` followed by an `update()` of the new child, as the Admin SDK does it.
    @Test func aWriteBelowALeafReplacesIt() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.original))
        #expect(try server.request("PUT", "/players/alice/score/deeper.json", body: "1").status == 200)
        #expect(try server.request("GET", "/players/alice/score.json").json == json(#"{"deeper":1}"#))
        let pushed = try server.request("POST", "/queue.json", body: #""""#)
        let key = try #require(pushed.json?["name"]?.stringValue)
        #expect(try server.request("GET", "/queue/\(key).json").json == json(#""""#))
        let updated = try server.request("PATCH", "/queue/\(key).json", body: #"{"name": "n", "at": 1}"#)
        #expect(updated.status == 200, "\(updated.text)")
        #expect(try server.request("GET", "/queue/\(key).json").json == json(#"{"name":"n","at":1}"#))
        try await server.stop()
    }

    @Test func etagsMakeConditionalReadsAndWrites() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.original))
        let read = try server.request("GET", "/players/alice/score.json", headers: [("X-Firebase-ETag", "true")])
        let etag = try #require(read.header("ETag"))
        // Unchanged: 304 to if-none-match.
        let unchanged = try server.request("GET", "/players/alice/score.json", headers: [("if-none-match", etag)])
        #expect(unchanged.status == 304 && unchanged.header("ETag") == etag)
        // A write with the current ETag succeeds and returns the new one.
        let write = try server.request("PUT", "/players/alice/score.json", headers: [("if-match", etag)], body: "31")
        #expect(write.status == 200)
        let newTag = try #require(write.header("ETag"))
        #expect(newTag != etag)
        // The old ETag no longer matches: 412 with the current value and ETag, nothing written.
        let stale = try server.request("PUT", "/players/alice/score.json", headers: [("if-match", etag)], body: "99")
        #expect(stale.status == 412 && stale.json == json("31") && stale.header("ETag") == newTag)
        let changed = try server.request("GET", "/players/alice/score.json", headers: [("if-none-match", etag)])
        #expect(changed.status == 200 && changed.json == json("31") && changed.header("ETag") == newTag)
        // A missing location has an ETag too (a transaction may create it).
        let missing = try server.request("GET", "/counter.json", headers: [("X-Firebase-ETag", "true")])
        let created = try server.request("PUT", "/counter.json", headers: [("if-match", try #require(missing.header("ETag")))], body: "1")
        #expect(created.status == 200)
        try await server.stop()
    }
}

/// The clock server timestamps use (milliseconds since 1970).
enum PushClock {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
    }
}
