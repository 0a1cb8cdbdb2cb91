// The event-stream framing: fields, line ends, comments, chunks cut anywhere, malformed events.
import JSONTree
@testable import RemoteStore
import Testing
import TestSupport

@Suite struct StreamEventParserTests {
    private func parse(_ text: String) -> (events: [StreamEvent], error: RemoteError?) {
        var parser = EventStreamParser()
        return parser.parse(Array(text.utf8))
    }

    @Test func readsTheDatabaseEvents() {
        let text = """
            event: put
            data: {"path":"/","data":{"a":1,"b":{"c":true}}}

            event: patch
            data: {"path":"/b","data":{"c":false,"d/e":"x"}}

            event: keep-alive
            data: null

            event: put
            data: {"path":"/a","data":null}

            event: cancel
            data: "Permission denied"

            event: auth_revoked
            data: "credential is no longer valid"


            """
        let (events, error) = parse(text)
        #expect(error == nil)
        #expect(events == [
            .put(.root, json(#"{"a":1,"b":{"c":true}}"#)),
            .patch(Path(keys: ["b"]), json(#"{"c":false,"d/e":"x"}"#)),
            .keepAlive,
            .put(Path(keys: ["a"]), .null),
            .cancel("Permission denied"),
            .authRevoked,
        ])
    }

    @Test func followsTheFramingRules() {
        // CRLF and CR line ends, a comment, no space after the colon, data over two lines,
        // an unknown event, a block with no data: only the known events with data come out.
        let text = ": a comment\r\nevent:put\r\ndata: {\"path\":\"/x\",\r\ndata:\"data\":2}\r\n\r\n"
            + "event: rules_debug\rdata: whatever\r\r"
            + "event: keep-alive\n\n"
            + "event: cancel\ndata: null\n\n"
        let (events, error) = parse(text)
        #expect(error == nil)
        #expect(events == [.put(Path(keys: ["x"]), 2), .cancel("the server cancelled the stream")])
    }

    @Test func anEventIsCompleteOnlyAtItsBlankLine() {
        var parser = EventStreamParser()
        #expect(parser.parse(Array("event: put\ndata: {\"path\":\"/\",\"data\":1}\n".utf8)).events.isEmpty)
        #expect(parser.parse(Array("\r".utf8)).events == [.put(.root, 1)])
        // The LF after that CR is the same line end, not a second blank line.
        #expect(parser.parse(Array("\nevent: keep-alive\ndata: null\n".utf8)).events.isEmpty)
        #expect(parser.parse(Array("\n".utf8)).events == [.keepAlive])
    }

    @Test func malformedEventsAreErrorsNotCrashes() {
        let cases = [
            ("event: put\ndata: {\"path\":\"/\",\"data\":\n\n", "not JSON"),
            ("event: put\ndata: [1,2]\n\n", "{\"path\""),
            ("event: put\ndata: {\"data\":1}\n\n", "{\"path\""),
            ("event: put\ndata: {\"path\":\"/\"}\n\n", "{\"path\""),
            ("event: patch\ndata: {\"path\":\"/\",\"data\":3}\n\n", "not an object"),
            ("event: put\ndata: {\"path\":\"a\",\"data\":3}\n\n", "does not start with '/'"),
            ("event: put\ndata: \u{FF}\n\n", "not JSON"),
        ]
        for (text, expected) in cases {
            var parser = EventStreamParser()
            let before = parser.parse(Array("event: keep-alive\ndata: null\n\n".utf8) + Array(text.utf8))
            #expect(before.events == [.keepAlive], "the events before the malformed one are kept")
            #expect(before.error?.kind == .malformedResponse)
            #expect(before.error?.message.contains(expected) == true, "\(before.error?.message ?? "no error")")
            // After an error the parser takes nothing more.
            #expect(parser.parse(Array("event: keep-alive\ndata: null\n\n".utf8)).events.isEmpty)
        }
    }

    @Test func patchesBecomeWritesOfRelativePaths() {
        let event = StreamEvent.patch(Path(keys: ["p"]), json(#"{"a":1,"b/c":null}"#))
        #expect(event.writes == [JSONWrite(Path(keys: ["p", "a"]), 1), JSONWrite(Path(keys: ["p", "b", "c"]), .null)])
        #expect(StreamEvent.keepAlive.writes.isEmpty)
    }

    /// Any list of events, serialized and cut into random chunks (inside a CRLF too), parses
    /// back to the same events, however the chunks fall.
    @Test func eventsSurviveAnyChunking() {
        for seed in 0..<300 as Range<UInt64> {
            var random = SplitMix64(seed: seed)
            let events = (0..<Int.random(in: 0...12, using: &random)).map { _ in randomEvent(&random) }
            let lineEnd = ["\n", "\r\n", "\r"].randomElement(using: &random)!
            let bytes = Array(events.map { serialize($0, lineEnd: lineEnd, random: &random) }.joined().utf8)
            var parser = EventStreamParser()
            var parsed = [StreamEvent]()
            var offset = 0
            while offset < bytes.count {
                let size = Int.random(in: 1...max(1, min(40, bytes.count - offset)), using: &random)
                let (chunkEvents, error) = parser.parse(bytes[offset..<(offset + size)])
                #expect(error == nil, "seed \(seed)")
                parsed += chunkEvents
                offset += size
            }
            #expect(parsed == events, "seed \(seed)")
        }
    }

    private func randomEvent(_ random: inout SplitMix64) -> StreamEvent {
        let keys = ["a", "b c", "é", "日本", "~x", "0", "-K9"]
        let path = Path(keys: (0..<Int.random(in: 0...3, using: &random)).map { _ in keys.randomElement(using: &random)! })
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return .put(path, randomValue(&random, depth: 0))
        case 1:
            let members = (0..<Int.random(in: 1...3, using: &random)).map { i in (key: "\(keys.randomElement(using: &random)!)\(i)", value: randomValue(&random, depth: 1)) }
            return .patch(path, .object(JSONObject(members)))
        case 2: return .keepAlive
        case 3: return .cancel(["Permission denied", "line\nbreak", "quote \" and \\"].randomElement(using: &random)!)
        default: return .authRevoked
        }
    }

    private func randomValue(_ random: inout SplitMix64, depth: Int) -> JSON {
        switch Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(JSONNumber(Double(Int.random(in: -1000...1000, using: &random)) / 8))
        case 3: return .string(["", "text", "line\nbreak", "\r\n", "data: x", "é😀"].randomElement(using: &random)!)
        case 4: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            return .object(JSONObject((0..<Int.random(in: 0...3, using: &random)).map { (key: "k\($0)", value: randomValue(&random, depth: depth + 1)) }))
        }
    }

    /// An event as a server writes it; data over several `data:` lines at times (a pretty
    /// printed payload), a comment line now and then.
    private func serialize(_ event: StreamEvent, lineEnd: String, random: inout SplitMix64) -> String {
        let (name, data): (String, JSON) = switch event {
        case .put(let path, let value): ("put", ["path": .string("/" + path.keys.joined(separator: "/")), "data": value])
        case .patch(let path, let value): ("patch", ["path": .string("/" + path.keys.joined(separator: "/")), "data": value])
        case .keepAlive: ("keep-alive", .null)
        case .cancel(let reason): ("cancel", .string(reason))
        case .authRevoked: ("auth_revoked", "credential is no longer valid")
        }
        let pretty = Bool.random(using: &random)
        let text = data.serializedString(pretty ? .pretty : .compact)
        var out = Bool.random(using: &random) ? ": hi" + lineEnd : ""
        out += "event: \(name)" + lineEnd
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { out += "data: \(line)" + lineEnd }
        return out + lineEnd
    }

    /// One endless line, comment or run of `data:` lines grew the client to 2 GB: past its
    /// limit an event is an error, and comments are dropped as they arrive.
    @Test func anEventLargerThanTheLimitIsAnErrorAndCommentsAreNotKept() {
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        for start in ["data: ", "event: ", "whatever"] {
            var parser = EventStreamParser(maximumEventBytes: 100_000)
            var error: RemoteError?
            _ = parser.parse(Array(start.utf8))
            for _ in 0..<100 where error == nil {
                error = parser.parse(chunk).error
                #expect(parser.bufferedBytes <= 100_000 + chunk.count)
            }
            #expect(error?.message == "an event is larger than 100000 bytes", "\(start)")
        }
        var lines = EventStreamParser(maximumEventBytes: 100_000)
        var error: RemoteError?
        for _ in 0..<100 where error == nil { error = lines.parse(Array("data: \(String(repeating: "1", count: 4000))\n".utf8)).error }
        #expect(error?.message == "an event is larger than 100000 bytes")

        var comments = EventStreamParser(maximumEventBytes: 100_000)
        _ = comments.parse(Array(":".utf8))
        for _ in 0..<1000 {
            #expect(comments.parse(chunk).events.isEmpty)
            #expect(comments.bufferedBytes == 0)
        }
        let after = comments.parse(Array("\r\n: another\n\nevent: put\ndata: {\"path\":\"/\",\"data\":1}\n\n".utf8))
        #expect(after.error == nil && after.events == [.put(.root, 1)])
    }
}
