// A WebSocket client's state on the server is bounded however many requests it sends.
import FileStore
import HummingbirdWSClient
import JSONTree
import Logging
@testable import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct WebSocketLimitsTests {
    /// Past `maxListensPerConnection` a new listen is refused (listening again to a location is
    /// not a new one), and onDisconnect writes stop at their count and bytes; cancelling some
    /// makes room again.
    @Test func aConnectionsListensAndDisconnectWritesAreBounded() async throws {
        let folder = ScratchFolder()
        let served = try await InProcessServer(file: folder.write("db.json", #"{"a": {"x": 1}}"#),
                                               options: ServeOptions(maxBodyBytes: 1000, maxListensPerConnection: 3))
        let big = String(repeating: "z", count: 600)
        let requests: [(action: String, body: String)] = [
            ("q", #"{"p":"/a/l1","h":""}"#), ("q", #"{"p":"/a/l2","h":""}"#), ("q", #"{"p":"/a/l3","h":""}"#),
            ("q", #"{"p":"/a/l4","h":""}"#), ("q", #"{"p":"/a/l1","h":""}"#),
            ("o", #"{"p":"/a/d1","d":"\#(big)"}"#), ("o", #"{"p":"/a/d2","d":"\#(big)"}"#),
            ("oc", #"{"p":"/a/d1"}"#), ("o", #"{"p":"/a/d2","d":"\#(big)"}"#),
        ]
        let answers = Shared([Int: String]())
        let url = "ws://127.0.0.1:\(served.port)/.ws?v=5&ns=test"
        // The client's tasks on a thread of their own, as the server's: not the suite's busy pool.
        let client = ThreadExecutor()
        defer { client.finish() }
        try await Task(executorPreference: client) { () async throws -> Void in
            _ = try await WebSocketClient.connect(url: url, logger: Logger(label: "test")) { inbound, outbound, _ in
                for (r, request) in requests.enumerated() {
                    try await outbound.write(.text(#"{"t":"d","d":{"r":\#(r + 1),"a":"\#(request.action)","b":\#(request.body)}}"#))
                }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message, let json = try? JSONDocument(parsing: Array(text.utf8)).root.json,
                          let r = json["d"]?["r"]?.doubleValue, let status = json["d"]?["b"]?["s"]?.stringValue else { continue }
                    if answers.withLock({ $0[Int(r)] = status; return $0.count }) == requests.count { break }
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
        }.value
        #expect(answers.withLock { $0 } == [1: "ok", 2: "ok", 3: "ok", 4: "too_big", 5: "ok", 6: "ok", 7: "too_big", 8: "ok", 9: "ok"])
        try await served.stop()
    }

    /// A client that stops reading holds its session in a write only until it falls
    /// `streamBacklog` revisions behind: then it is dropped, and every write is still answered.
    @Test func aClientThatStopsReadingIsDropped() async throws {
        let folder = ScratchFolder()
        let served = try await InProcessServer(file: folder.write("db.json", #"{"big": "", "n": 0}"#),
                                               options: ServeOptions(streamBacklogLimit: 4))
        // A tiny receive buffer, and nothing read after the listen.
        let slow = try served.connect(receiveBuffer: 4096)
        let upgrade = "GET /.ws?v=5&ns=test HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        #expect(slow.send(Array(upgrade.utf8)))
        #expect(try slow.readHead().status == 101)
        // Sixteen listens of the root (queries, each its own tag): each edit is sent sixteen times.
        // A client's frame is masked: with a zero key, its payload reads as it is.
        for tag in 1...16 {
            let listen = Array(#"{"t":"d","d":{"r":\#(tag),"a":"q","b":{"p":"/","q":{"l":10,"vf":"l"},"t":\#(tag),"h":""}}}"#.utf8)
            #expect(slow.send([0x81, 0x80 | UInt8(listen.count), 0, 0, 0, 0] + listen))
        }
        let payload = String(repeating: "y", count: 100_000)
        for n in 1...24 {
            let answer = try served.request("PATCH", "/.json", body: #"{"big": "\#(payload)\#(n)", "n": \#(n)}"#)
            #expect(answer.status == 200)
        }
        // Closed by the server while the client still reads nothing (reading would let the
        // server's blocked write finish): the session has left the feed, the connection is shut.
        eventually("the session dropped and its connection closed") {
            served.server.feed.streamCount == 0 && served.server.connections.count == 0
        }
        #expect(slow.isClosedByServer(seconds: 20))
        try await served.stop()
    }
}
