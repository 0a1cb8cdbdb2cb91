// A WebSocket session's loop: what it does once its file is gone.
import Foundation
import HummingbirdWSClient
import JSONTree
import Logging
@testable import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct WebSocketSessionTests {
    /// The file is removed: each listen is revoked once (`c`), and the session goes on answering
    /// its client; a listen made afterwards is answered and not revoked again.
    @Test func aRemovedFileRevokesListensOnceAndTheClientIsStillAnswered() async throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"a": {"x": 1}}"#)
        let served = try await InProcessServer(file: file)
        let seen = Shared([String]())
        let url = "ws://127.0.0.1:\(served.port)/.ws?v=5&ns=test"
        // The client's tasks on a thread of their own, as the server's: not the suite's busy pool.
        let client = ThreadExecutor()
        defer { client.finish() }
        try await Task(executorPreference: client) { () async throws -> Void in
            _ = try await WebSocketClient.connect(url: url, logger: Logger(label: "test")) { inbound, outbound, _ in
                func request(_ r: Int, _ action: String, _ body: String) async throws {
                    try await outbound.write(.text(#"{"t":"d","d":{"r":\#(r),"a":"\#(action)","b":\#(body)}}"#))
                }
                try await request(1, "q", #"{"p":"/a","h":""}"#)
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message, let json = try? JSONDocument(parsing: Array(text.utf8)).root.json,
                          json["t"]?.stringValue == "d", let body = json["d"] else { continue }
                    let step: String
                    if let r = body["r"]?.doubleValue {
                        step = "\(Int(r)) \(body["b"]?["s"]?.stringValue ?? "?")"
                    } else {
                        step = body["a"]?.stringValue ?? "?"
                    }
                    seen.withLock { $0.append(step) }
                    switch step {
                    case "1 ok": unlink(file)
                    case "c":
                        try await request(2, "q", #"{"p":"/a","h":""}"#)
                        try await request(3, "s", #"{"c":{}}"#)
                    default: break
                    }
                    if step.hasPrefix("3 ") { break }
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
        }.value
        // The listen's data before its `ok`; then the revocation; then the answers, nothing between.
        #expect(seen.withLock { $0 } == ["d", "1 ok", "c", "d", "2 ok", "3 ok"])
        try await served.stop()
    }
}
