// A revision reaching every WebSocket listener: in order, each write a change of its own, the
// writer's own data before its `ok`, long messages in the SDKs' pieces.
import Foundation
import JSONTree
@testable import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct FanOutTests {
    /// Twelve clients listen to `/n` while a thirteenth, listening too, writes it five times in a
    /// row: each listener gets the five values in order, and the writer gets each value before
    /// the `ok` of the write that made it; every client is still answered afterwards.
    @Test func everyListenerGetsEachWriteInOrderAndTheWriterItsDataBeforeItsOk() async throws {
        let folder = ScratchFolder()
        let served = try await InProcessServer(file: folder.write("db.json", #"{"n": 0, "other": {"x": 1}}"#))
        let listen = #"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/n","h":""}}}"#
        var listeners = [HTTPConnection]()
        for _ in 0..<12 {
            let client = try served.connect()
            #expect(try client.upgradeToWebSocket() && client.sendText(listen))
            #expect(try client.readAnswer(to: 1)?["s"] == "ok")
            listeners.append(client)
        }
        let writer = try served.connect()
        #expect(try writer.upgradeToWebSocket() && writer.sendText(listen))
        #expect(try writer.readAnswer(to: 1)?["s"] == "ok")
        for value in 1...5 { #expect(writer.sendText(#"{"t":"d","d":{"r":\#(value + 1),"a":"p","b":{"p":"/n","d":\#(value)}}}"#)) }

        var steps = [String]()
        while steps.count < 10, let message = try writer.readMessage() {
            let body = message["d"]?["b"]
            if let r = message["d"]?["r"]?.doubleValue {
                steps.append("ok \(Int(r))")
            } else if body?["p"] == "/n", let value = body?["d"]?.doubleValue {
                steps.append("n \(Int(value))")
            }
        }
        #expect(steps == (1...5).flatMap { ["n \($0)", "ok \($0 + 1)"] })
        for (i, client) in listeners.enumerated() {
            var values = [Int]()
            while values.count < 5, let message = try client.readMessage() {
                if message["d"]?["b"]?["p"] == "/n", let value = message["d"]?["b"]?["d"]?.doubleValue { values.append(Int(value)) }
            }
            #expect(values == [1, 2, 3, 4, 5], "listener \(i)")
            #expect(client.sendText(#"{"t":"d","d":{"r":2,"a":"g","b":{"p":"/other/x"}}}"#))
            #expect(try client.readAnswer(to: 2)?["d"] == json("1"), "listener \(i)")
        }
        try await served.stop()
    }

    /// A value longer than a frame (60,000 characters of one to four bytes, past 16,384 UTF-16
    /// units) written over REST reaches each listener as the SDKs expect it: a count, then that
    /// many pieces, which joined are the message.
    @Test func aLongValueReachesEveryListenerInPieces() async throws {
        let folder = ScratchFolder()
        let served = try await InProcessServer(file: folder.write("db.json", #"{"long": ""}"#))
        var listeners = [HTTPConnection]()
        for _ in 0..<3 {
            let client = try served.connect()
            #expect(try client.upgradeToWebSocket() && client.sendText(#"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/long","h":""}}}"#))
            #expect(try client.readAnswer(to: 1)?["s"] == "ok")
            listeners.append(client)
        }
        let long = String((0..<60_000).map { ["a", "é", "€", "𝄞"][$0 % 4] as Character })
        let value = JSON.string(long)
        #expect(try served.request("PUT", "/long.json", body: value.serializedString()).status == 200)
        for (i, client) in listeners.enumerated() {
            let text = try #require(try client.readPieces())
            let message = try JSONDocument(parsing: Array(text.utf8)).root.json
            #expect(message["d"]?["b"]?["p"] == "/long", "listener \(i)")
            #expect(message["d"]?["b"]?["d"] == value, "listener \(i)")
        }
        try await served.stop()
    }
}
