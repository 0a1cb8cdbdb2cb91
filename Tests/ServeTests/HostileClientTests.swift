// What a hostile client can send, and what the server does about it: no frame crashes it,
// nothing is said about data before the rules judge, and what a client holds is bounded.
import FileStore
import JSONTree
@testable import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct HostileClientTests {
    /// A listen's tag outside what a number can be converted to (in `q` and in `n`) is refused
    /// with an error; the connection and the server go on.
    @Test func aTagOutOfRangeIsRefusedAndTheServerGoesOn() async throws {
        let folder = ScratchFolder()
        let served = try await InProcessServer(file: folder.write("db.json", #"{"x": {"a": 1}}"#))
        let client = try served.connect()
        #expect(try client.upgradeToWebSocket())
        let hostile = [
            #"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/x","t":1e19,"h":""}}}"#,
            #"{"t":"d","d":{"r":2,"a":"q","b":{"p":"/x","t":1e300,"h":""}}}"#,
            #"{"t":"d","d":{"r":3,"a":"q","b":{"p":"/x","t":-1e19,"q":{"l":1,"vf":"l"},"h":""}}}"#,
            #"{"t":"d","d":{"r":4,"a":"n","b":{"p":"/x","t":1e19}}}"#,
            #"{"t":"d","d":{"r":5,"a":"q","b":{"p":"/x","t":1.5,"h":""}}}"#,
        ]
        for (r, text) in hostile.enumerated() {
            #expect(client.sendText(text))
            let answer = try #require(try client.readAnswer(to: r + 1))
            #expect(answer["s"] == "error")
            #expect(answer["d"] == "a listen's tag must be a whole number between -2^53 and 2^53")
        }
        // The same connection listens with a tag in range; another client reads.
        #expect(client.sendText(#"{"t":"d","d":{"r":6,"a":"q","b":{"p":"/x","t":7,"q":{"l":1,"vf":"l"},"h":""}}}"#))
        #expect(try client.readAnswer(to: 6)?["s"] == "ok")
        #expect(try served.request("GET", "/x.json").json == json(#"{"a": 1}"#))
        try await served.stop()
    }

    /// Under rules, a request the rules refuse is refused whatever its `if-match`: a wrong ETag
    /// does not answer 412 with the data. Where the user may write but not read, a failed
    /// precondition says nothing of the value.
    @Test func aPreconditionIsCheckedOnlyAfterTheRulesJudge() async throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"secret": {"s": "TOPSECRET"}, "drop": {"box": "SEALED"}, "open": {"v": 1}}"#)
        let rules = folder.write("r.json", #"""
            {"rules": {"drop": {".write": true}, "open": {".read": true, ".write": true}}}
            """#)
        var options = ServeOptions()
        options.rulesFile = rules
        let server = try await InProcessServer(file: file, options: options)
        let wrong = [("if-match", "\"x\"")]
        for (method, target, body) in [("DELETE", "/.json", nil), ("PUT", "/secret/s.json", "\"y\""), ("PATCH", "/secret.json", #"{"s": 1}"#)] {
            let answer = try server.request(method, target, headers: wrong, body: body)
            #expect(answer.status == 401, "\(method) \(target)")
            #expect(answer.json == json(#"{"error": "Permission denied"}"#))
            #expect(answer.header("ETag") == nil && !answer.text.contains("TOPSECRET"))
        }
        // Write-only: the precondition fails, and neither the value nor its ETag is told.
        let sealed = try server.request("PUT", "/drop/box.json", headers: wrong, body: "\"mine\"")
        #expect(sealed.status == 412 && sealed.header("ETag") == nil && !sealed.text.contains("SEALED"), "\(sealed.status) \(sealed.headers) \(sealed.text)")
        // Readable: the current value and its ETag, as the database answers.
        let open = try server.request("PUT", "/open/v.json", headers: wrong, body: "2")
        #expect(open.status == 412 && open.json == json("1") && open.header("ETag") != nil)
        #expect(folder.read("db.json") == #"{"secret": {"s": "TOPSECRET"}, "drop": {"box": "SEALED"}, "open": {"v": 1}}"#)
        try await server.stop()
    }

    /// A message left unfinished — frames without FIN, or fewer numbered pieces than announced —
    /// counts as idle: the connection is closed after the idle timeout, and the server serves on.
    /// What an unfinished message held goes back to the budget.
    @Test func anUnfinishedMessageCountsAsIdle() async throws {
        let folder = ScratchFolder()
        var options = ServeOptions(idleTimeoutMilliseconds: 1000)
        options.maxMemoryBytes = 64 << 20
        let served = try await InProcessServer(file: folder.write("db.json", #"{"x": 1}"#), options: options)
        let frames = try served.connect()
        #expect(try frames.upgradeToWebSocket())
        #expect(frames.sendFrame(Array(String(repeating: "[", count: 40_000).utf8), fin: false))
        let pieces = try served.connect()
        #expect(try pieces.upgradeToWebSocket())
        #expect(pieces.sendText("999999") && pieces.sendText(String(repeating: "a", count: 10_000)))
        eventually("the unfinished messages charged") { served.server.budget.inUse >= 50_000 }
        let closed = await closedByServer([frames, pieces], seconds: 15)
        #expect(closed == [true, true])
        eventually("their bytes given back") { served.server.budget.inUse == 0 }
        // The server still serves a new connection.
        let quiet = try served.connect()
        #expect(try quiet.upgradeToWebSocket())
        #expect(quiet.sendText(#"{"t":"d","d":{"r":1,"a":"g","b":{"p":"/x"}}}"#))
        #expect(try quiet.readAnswer(to: 1)?["d"] == json("1"))
        try await served.stop()
    }

    /// What a message costs once parsed is charged before it is parsed: past the connection's
    /// share the connection is closed with the reason; onDisconnect data is kept as text and
    /// charged as such; everything goes back when the connection ends.
    @Test func aPayloadIsChargedByWhatItCostsOnceParsed() async throws {
        let folder = ScratchFolder()
        var options = ServeOptions()
        options.maxMemoryBytes = 4 << 20
        let served = try await InProcessServer(file: folder.write("db.json", #"{"x": 1}"#), options: options)
        // 200,000 small items: 400 KB of text, about 10 MB once parsed.
        let items = "[" + Array(repeating: "0", count: 200_000).joined(separator: ",") + "]"
        let costly = try served.connect()
        #expect(try costly.upgradeToWebSocket())
        #expect(costly.sendMessage(#"{"t":"d","d":{"r":1,"a":"o","b":{"p":"/gone","d":\#(items)}}}"#))
        #expect(try costly.readUntilClosed())
        // A payload of the same text size in one string is kept (as text), and charged.
        let cheap = try served.connect()
        #expect(try cheap.upgradeToWebSocket())
        let text = String(repeating: "z", count: 400_000)
        #expect(cheap.sendMessage(#"{"t":"d","d":{"r":1,"a":"o","b":{"p":"/gone","d":"\#(text)"}}}"#))
        #expect(try cheap.readAnswer(to: 1)?["s"] == "ok")
        // The text kept, and nothing else once the answer is out.
        eventually("the onDisconnect text charged alone") { served.server.budget.inUse == 400_002 }
        cheap.sendFrame([0x03, 0xE8], opcode: 8)
        // The onDisconnect write is made, and the budget is whole again.
        try eventually("the onDisconnect write") { try served.request("GET", "/gone.json").json == .string(text) }
        eventually("the budget given back") { served.server.budget.inUse == 0 }
        try await served.stop()
    }
}
