// `serve` serves any live store: a JSON Lines log (appended to by POST), standard input, and a
// document in memory.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Foundation
import JSONTree
@testable import Serve
import ServeTestSupport
import StoreInterface
import Synchronization
import Testing
import TestSupport

@Suite struct ServedSourcesTests {
    static let refusal = "this source is a log, only appended to"

    /// A JSON Lines file served in this process, as `synctable serve FILE.jsonl` serves it.
    static func log(_ file: String) async throws -> InProcessServer {
        try await InProcessServer(name: file) { try FileStore(path: file, options: FileStore.Options(format: .jsonLines)) }
    }

    @Test func aJSONLinesFileIsServedAsALogThatPOSTAppendsTo() async throws {
        let folder = ScratchFolder()
        let file = folder.write("app.jsonl", "{\"level\": \"info\", \"msg\": \"a\"}\n{\"level\": \"warn\", \"msg\": \"b\"}\n")
        let server = try await Self.log(file)
        #expect(try server.request("GET", "/.json").json == json(#"[{"level": "info", "msg": "a"}, {"level": "warn", "msg": "b"}]"#))
        #expect(try server.request("GET", "/.json?orderBy=%22level%22&equalTo=%22warn%22").json == json(#"{"1": {"level": "warn", "msg": "b"}}"#))

        // A stream of the log hears the appended record.
        let stream = try server.openStream("/.json")
        #expect(stream.first?.name == "put")
        let post = try server.request("POST", "/.json", body: #"{"level": "error", "msg": "c", "at": {".sv": "timestamp"}}"#)
        #expect(post.status == 200 && post.json == json(#"{"name": "2"}"#), "\(post.text)")
        let event = try #require(try stream.next())
        #expect(event.name == "put" && event.json?["path"] == json(#""/2""#) && event.json?["data"]?["msg"] == json(#""c""#), "\(event)")

        // One line more in the file, the server value resolved; the lines before untouched.
        let lines = folder.read("app.jsonl").split(separator: "\n")
        #expect(lines.count == 3 && lines[0] == #"{"level": "info", "msg": "a"}"#)
        let at = try #require(json(String(lines[2]))["at"]?.doubleValue)
        #expect(abs(at - Date().timeIntervalSince1970 * 1000) < 60_000)

        // Rewrites are refused, with why, and change nothing.
        for (method, target, body) in [("PUT", "/0/level.json", "\"x\""), ("PATCH", "/.json", #"{"0/level": "x"}"#),
                                       ("DELETE", "/1.json", nil), ("POST", "/0.json", "1")] {
            let refused = try server.request(method, target, body: body)
            #expect(refused.status == 405 && refused.json?["error"]?.stringValue?.hasPrefix(Self.refusal) == true,
                    "\(method) \(target): \(refused.status) \(refused.text)")
        }
        #expect(folder.read("app.jsonl").split(separator: "\n").count == 3)
        try await server.stop()
    }

    /// An empty log is a log of no lines: served at once; a POST then makes its first line.
    /// An append never splits another writer's unfinished line: 503, with why, and nothing written.
    @Test func anEmptyLogIsServedAndAnAppendNeverSplitsAnotherWritersLine() async throws {
        let folder = ScratchFolder()
        let file = folder.write("empty.jsonl", "")
        let server = try await Self.log(file)
        let empty = try server.request("GET", "/.json")
        #expect(empty.status == 200 && empty.json == json("[]"), "\(empty.status) \(empty.text)")
        #expect(try server.request("POST", "/.json", body: #"{"n": 1}"#).json == json(#"{"name": "0"}"#))
        let first = String(decoding: json(#"{"n": 1}"#).serialized(), as: UTF8.self) + "\n"
        #expect(folder.read("empty.jsonl") == first)
        let appender = try #require(FileHandle(forWritingAtPath: file))
        appender.seekToEndOfFile()
        appender.write(Data("{\"ext\":\"partial".utf8))
        try appender.close()
        let refused = try server.request("POST", "/.json", body: #"{"n": 2}"#)
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.json?["error"]?.stringValue?.hasPrefix("another program's last line has not ended") == true)
        #expect(folder.read("empty.jsonl") == first + "{\"ext\":\"partial")
        try await server.stop()
    }

    /// A line longer than `--max-line-bytes` on standard input is an error row naming its line,
    /// never held whole; the lines after it are served.
    @Test func aLineLongerThanTheLimitIsAnErrorRowAndReadingGoesOn() throws {
        let ends = try #require(closeOnExecPipe())
        let writer = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        // (The server listens once it has its first revision: the first line comes first.)
        writer.write(Data("{\"a\": 1}\n".utf8))
        let server = try TestServer(file: "-", arguments: ["--max-line-bytes", "1000"], standardInput: ends[0])
        close(ends[0])
        writer.write(Data("{\"long\": \"\(String(repeating: "x", count: 100_000))\"}\n{\"a\": 3}\n".utf8))
        let message = "the record is longer than 1000 bytes; it was skipped"
        let expected = json(#"[{"a": 1}, {"$error": {"line": 2, "column": 1, "message": "\#(message)"}}, {"a": 3}]"#)
        var served: JSON?
        let deadline = monotonicNanoseconds() + 30_000_000_000
        repeat {
            served = try? server.request("GET", "/.json").json
            if served != expected { usleep(50_000) }
        } while served != expected && monotonicNanoseconds() < deadline
        #expect(served == expected)
        try writer.close()
    }

    /// A folder, or `--namespace NAME=FILE`s: a database each, chosen by `?ns=` (REST and
    /// WebSocket), each with its own data and rules; `firebase.json` names the rules they start
    /// with. A database not served is a 404 naming those that are.
    @Test func severalNamespacesEachWithItsDataAndRules() throws {
        let folder = ScratchFolder()
        _ = folder.write("a.json", #"{"who": "a"}"#)
        _ = folder.write("b.json", #"{"who": "b"}"#)
        _ = folder.write("db.rules.json", #"{"rules": {".read": "auth != null", ".write": "auth != null"}}"#)
        _ = folder.write("firebase.json", #"{"database": {"rules": "db.rules.json"}}"#)
        let owner = [("Authorization", "Bearer owner")]
        let server = try TestServer(file: folder.path, arguments: ["--config", folder.file("firebase.json")])
        #expect(try server.request("GET", "/who.json?ns=a").status == 401, "the rules firebase.json names")
        #expect(try server.request("GET", "/who.json?ns=a", headers: owner).json == json(#""a""#))
        #expect(try server.request("GET", "/who.json?ns=b", headers: owner).json == json(#""b""#))
        let missing = try server.request("GET", "/who.json?ns=c", headers: owner)
        #expect(missing.status == 404 && missing.json?["error"] == json(#""no database named c here; this server has a, b""#))
        // A write and new rules reach one database only.
        #expect(try server.request("PUT", "/who.json?ns=b", headers: owner, body: #""B""#).status == 200)
        #expect(folder.read("a.json") == #"{"who": "a"}"# && folder.read("b.json").contains("\"B\""))
        #expect(try server.request("PUT", "/.settings/rules.json?ns=a", headers: owner, body: #"{"rules": {".read": true}}"#).status == 200)
        #expect(try server.request("GET", "/who.json?ns=a").json == json(#""a""#))
        #expect(try server.request("GET", "/who.json?ns=b").status == 401)
        // The WebSocket protocol names its database in the upgrade's URL.
        let client = try server.connect()
        #expect(try client.upgradeToWebSocket(namespace: "b"))
        #expect(client.sendText(#"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"owner"}}}"#))
        #expect(client.sendText(#"{"t":"d","d":{"r":2,"a":"g","b":{"p":"/who"}}}"#))
        #expect(try client.readAnswer(to: 2)?["d"] == json(#""B""#))
        #expect(server.stop() == 0)

        let named = try TestServer(file: folder.file("a.json"), arguments: ["--namespace", "second=" + folder.file("b.json")])
        #expect(try named.request("GET", "/who.json?ns=a").json == json(#""a""#))
        #expect(try named.request("GET", "/who.json?ns=second").json == json(#""B""#))
        #expect(named.stop() == 0)
    }

    @Test func standardInputIsServedAsItArrivesAndCannotBeWritten() throws {
        let ends = try #require(closeOnExecPipe())
        // The write end stays here: a server that inherited it would never see its input end.
        let writer = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        writer.write(Data("{\"a\": 1}\n{\"a\": 2}\n".utf8))
        let server = try TestServer(file: "-", standardInput: ends[0])
        close(ends[0])
        try eventually("the first records") { try server.request("GET", "/.json").json == json(#"[{"a": 1}, {"a": 2}]"#) }
        writer.write(Data("{\"a\": 3}\n".utf8))
        try eventually("the third record") { try server.request("GET", "/2/a.json").json == json("3") }
        let post = try server.request("POST", "/.json", body: #"{"a": 4}"#)
        #expect(post.status == 405 && post.json?["error"]?.stringValue == "standard input cannot be written to", "\(post.text)")
        // A last line without its newline counts once the input ends; the server goes on serving.
        writer.write(Data("{\"a\": 4}".utf8))
        try writer.close()
        try eventually("the last record, at the input's end") {
            try server.request("GET", "/.json").json == json(#"[{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}]"#)
        }
    }

    @Test func aDocumentInMemoryIsServedAndWritten() async throws {
        let publisher = Mutex<MemoryStore.Publisher?>(nil)
        let served = try await InProcessServer(name: "memory") {
            let store = try MemoryStore(json(#"{"players": {"a": {"score": 1}}}"#))
            publisher.withLock { $0 = store.publisher }
            return store
        }
        #expect(try served.request("GET", "/players/a/score.json").json == json("1"))
        // A revision the program publishes is what the next read sees.
        try #require(publisher.withLock { $0 }).publish(json(#"{"players": {"a": {"score": 2}, "b": {"score": 5}}}"#))
        try eventually("the published revision") { try served.request("GET", "/players/b/score.json").json == json("5") }
        // Writes go to the document in memory, every kind.
        #expect(try served.request("PUT", "/players/a/score.json", body: "3").status == 200)
        #expect(try served.request("PATCH", "/players.json", body: #"{"b/score": 6, "c": {"score": 7}}"#).status == 200)
        #expect(try served.request("DELETE", "/players/a.json").status == 200)
        #expect(try served.request("GET", "/players.json").json == json(#"{"b": {"score": 6}, "c": {"score": 7}}"#))
        try await served.stop()
    }
}
