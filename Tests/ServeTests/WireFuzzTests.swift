// A mutation fuzzer for what clients send: the WebSocket message handler and the REST request
// path, in this process, on a document in memory, with rules and without, seeded with the
// frames and requests the SDKs send. A frame or request that crashes the server crashes this
// test; after each batch the server must still answer.
//
// `make test` runs 500 inputs of each; `make fuzz` runs them for FUZZ_SECONDS
// (WIRE_FUZZ_SECONDS in the environment). Not coverage-guided (libFuzzer cannot link the
// server's packages): mutations aimed at what broke before — numbers out of every range,
// wrong types, truncation, deep nesting, odd keys and paths.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import JSONTree
@testable import Serve
import ServeTestSupport
import StoreInterface
import Testing
import TestSupport

@Suite(.serialized) struct WireFuzzTests {
    /// How long to run each target: WIRE_FUZZ_SECONDS (`make fuzz`), else a fixed count.
    static let seconds = ProcessInfo.processInfo.environment["WIRE_FUZZ_SECONDS"].flatMap(Double.init)
    /// Mixed into every target's seed (WIRE_FUZZ_SEED), so that a long run can start where an
    /// earlier one has not been; `make test` always runs the same inputs.
    static let seedOffset = ProcessInfo.processInfo.environment["WIRE_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0
    static let rounds = 500

    static let frames = [
        #"{"t":"d","d":{"r":1,"a":"s","b":{"c":{"sdk.js.12-18-0":1}}}}"#,
        #"{"t":"d","d":{"r":2,"a":"q","b":{"p":"/players","h":""}}}"#,
        #"{"t":"d","d":{"r":3,"a":"q","b":{"p":"/players","q":{"l":2,"vf":"r","i":"score"},"t":1,"h":""}}}"#,
        #"{"t":"d","d":{"r":4,"a":"q","b":{"p":"/players","q":{"sp":1,"sn":"[MIN_NAME]","ep":9,"en":"[MAX_NAME]","i":".value"},"t":2,"h":""}}}"#,
        #"{"t":"d","d":{"r":5,"a":"n","b":{"p":"/players","t":1}}}"#,
        #"{"t":"d","d":{"r":6,"a":"g","b":{"p":"/players/a","q":{}}}}"#,
        #"{"t":"d","d":{"r":7,"a":"p","b":{"p":"/players/a/score","d":5}}}"#,
        #"{"t":"d","d":{"r":8,"a":"p","b":{"p":"/players/a/score","d":6,"h":"abc="}}}"#,
        #"{"t":"d","d":{"r":9,"a":"m","b":{"p":"/players","d":{"a/score":{".sv":{"increment":1}},"b":{"score":{".sv":"timestamp"}}}}}}"#,
        #"{"t":"d","d":{"r":10,"a":"o","b":{"p":"/presence/a","d":null}}}"#,
        #"{"t":"d","d":{"r":11,"a":"om","b":{"p":"/presence","d":{"a":true}}}}"#,
        #"{"t":"d","d":{"r":12,"a":"oc","b":{"p":"/presence"}}}"#,
        #"{"t":"d","d":{"r":13,"a":"auth","b":{"cred":"owner"}}}"#,
        #"{"t":"d","d":{"r":14,"a":"gauth","b":{"cred":"owner","authvar":{"uid":"a"}}}}"#,
        #"{"t":"d","d":{"r":15,"a":"unauth","b":{}}}"#,
        #"{"t":"c","d":{"t":"p","d":{}}}"#,
        "3", "0",
    ]

    static let requests: [(method: String, target: String, body: String?)] = [
        ("GET", "/players.json", nil), ("GET", "/players.json?orderBy=%22score%22&limitToFirst=1", nil),
        ("GET", "/players.json?shallow=true", nil), ("GET", "/.json?format=export&print=pretty", nil),
        ("PUT", "/players/a/score.json", "7"), ("PATCH", "/players.json", #"{"a/score": 8, "c": {"score": 1}}"#),
        ("POST", "/players.json", #"{"score": {".sv": "timestamp"}}"#), ("DELETE", "/players/c.json", nil),
        ("GET", "/players.json?orderBy=%22$key%22&startAt=%22a%22&endAt=%22b%22", nil),
        ("PUT", "/.settings/rules.json", #"{"rules": {".read": true}}"#),
    ]

    static let owner = [("Authorization", "Bearer owner")]

    static let rules = #"""
        {"rules": {"players": {".read": "auth != null", "$p": {".write": "auth.uid === $p",
          "score": {".validate": "newData.isNumber() && newData.val() < 1000"}}}, "presence": {".read": true, ".write": true}}}
        """#

    @Test(arguments: [false, true])
    func webSocketFramesNeverCrashTheServer(rules: Bool) async throws {
        let served = try await Self.server(rules: rules)
        var random = SplitMix64(seed: (rules ? 0xF0F0 : 0x0F0F) ^ Self.seedOffset)
        var client = try Self.webSocket(served)
        let deadline = Self.seconds.map { monotonicNanoseconds() + UInt64($0 * 1e9) }
        var round = 0
        while deadline.map({ monotonicNanoseconds() < $0 }) ?? (round < Self.rounds) {
            round += 1
            let frame = Self.mutate(Self.frames[random.int(0..<Self.frames.count)], &random)
            // A frame the server closes the connection for is allowed: another connection goes
            // on (at once after a frame that is not JSON, which the server closes for).
            if !client.sendText(frame) { client = try Self.webSocket(served) }
            if (try? JSONDocument(parsing: Array(frame.utf8))) == nil { client = try Self.webSocket(served) }
            if round % 50 == 0 {
                // The server still answers a new connection (the fuzzed one may be waiting for
                // the pieces of a split message, or closed): then the fuzzing starts afresh.
                let probe = try Self.webSocket(served)
                #expect(probe.sendText(#"{"t":"d","d":{"r":1,"a":"g","b":{"p":"/presence"}}}"#))
                #expect(try probe.readAnswer(to: 1, seconds: 20)?["s"] != nil, "round \(round): \(frame)")
                client = probe
            }
        }
        // Every frame sent on the last connection has been handled once this is answered.
        let last = try Self.webSocket(served)
        #expect(last.sendText(#"{"t":"d","d":{"r":1,"a":"g","b":{"p":"/presence"}}}"#))
        #expect(try last.readAnswer(to: 1, seconds: 20)?["s"] != nil)
        #expect(try served.request("GET", "/presence.json", headers: Self.owner).status == 200)
        try await served.stop()
    }

    @Test(arguments: [false, true])
    func restRequestsNeverCrashTheServer(rules: Bool) async throws {
        let served = try await Self.server(rules: rules)
        var random = SplitMix64(seed: (rules ? 0xA5A5 : 0x5A5A) ^ Self.seedOffset)
        let deadline = Self.seconds.map { monotonicNanoseconds() + UInt64($0 * 1e9) }
        var round = 0
        while deadline.map({ monotonicNanoseconds() < $0 }) ?? (round < Self.rounds) {
            round += 1
            let seed = Self.requests[random.int(0..<Self.requests.count)]
            var target = Self.mutate(seed.target, &random)
            if !target.hasPrefix("/") { target = "/" + target }
            let body = seed.body.map { Self.mutate($0, &random) }
            var headers: [(String, String)] = []
            if random.chance(0.3) { headers.append(("if-match", Self.mutate("\"abc=\"", &random))) }
            if random.chance(0.3) { headers.append(("Authorization", "Bearer " + Self.mutate(random.chance(0.5) ? "owner" : "x.y.z", &random))) }
            let connection = try served.connect()
            connection.send(HTTPConnection.requestBytes(seed.method, target.filter { $0 != " " && $0 != "\r" && $0 != "\n" },
                                                        headers: headers, body: body.map { Array($0.utf8) }))
            // Any answer, or a closed connection: only a server that stops answering fails.
            _ = try? connection.readResponse(seconds: 20)
            // (As the admin: a fuzzed request may have put rules in force that deny others.)
            if round % 25 == 0 { #expect(try served.request("GET", "/presence.json", headers: Self.owner).status == 200, "round \(round)") }
        }
        try await served.stop()
    }

    // MARK: - The server and its clients

    static func server(rules: Bool) async throws -> InProcessServer {
        var options = ServeOptions(maxBodyBytes: 1 << 20, maxListensPerConnection: 50)
        options.acceptUnverifiedTokens = rules
        let served = try await InProcessServer(name: "memory", options: options) {
            try MemoryStore(JSONDocument(parsing: #"{"players": {"a": {"score": 1}, "b": {"score": 2}}, "presence": {}}"#).root.json)
        }
        if rules {
            // Rules put in force as an emulator's test setup does (kept in memory: no rules file).
            let loaded = try served.request("PUT", "/.settings/rules.json", headers: Self.owner, body: Self.rules)
            try #require(loaded.status == 200, "\(loaded.text)")
        }
        return served
    }

    static func webSocket(_ served: InProcessServer) throws -> HTTPConnection {
        let client = try served.connect()
        try #require(try client.upgradeToWebSocket())
        return client
    }

    // MARK: - Mutations

    /// Numbers out of the ranges a server converts them to.
    static let hostileNumbers = ["1e19", "-1e19", "1e300", "-1e300", "9223372036854775808", "-2147483649", "4294967296", "0.5", "-0"]

    /// Values that broke servers before, or could: numbers out of every range, other types.
    static let hostileValues = [
        "1e19", "-1e19", "1e300", "-1e300", "1.5", "0", "-1", "9007199254740993", "2147483648", "null", "true",
        "\"\"", "\"[MAX_NAME]\"", "[]", "{}", "\"\\u0000\"", "\"/../.\"", "\"a/b/c\"", "\"é\u{301}\"",
        String(repeating: "[", count: 300) + String(repeating: "]", count: 300), "\"" + String(repeating: "x", count: 5000) + "\"",
    ]

    /// Half the time a value of the message (a JSON one) is replaced, removed or retyped; else
    /// its bytes are cut, changed, copied or spliced.
    static func mutate(_ text: String, _ random: inout SplitMix64) -> String {
        if random.chance(0.5), let message = try? JSONDocument(parsing: Array(text.utf8)).root.json {
            var value = message
            for _ in 0..<random.int(1...2) { value = replacingAValue(in: value, &random) }
            return String(decoding: value.serialized(.compact), as: UTF8.self)
        }
        return mutateBytes(text, &random)
    }

    /// `value` with one of its values (itself included, seldom) replaced by a hostile one, or
    /// removed; most often a leaf, most often by a number out of some range.
    static func replacingAValue(in value: JSON, _ random: inout SplitMix64) -> JSON {
        switch value {
        case .object(var object) where object.count > 0 && random.chance(0.9):
            let key = random.pick(object.members.map(\.key))
            if random.chance(0.1) {
                object[key] = JSON?.none
            } else {
                object[key] = replacingAValue(in: object[key] ?? .null, &random)
            }
            return .object(object)
        case .array(var elements) where !elements.isEmpty && random.chance(0.9):
            let i = random.int(0..<elements.count)
            elements[i] = replacingAValue(in: elements[i], &random)
            return .array(elements)
        default:
            let hostile = random.chance(0.5) ? random.pick(hostileNumbers) : random.pick(hostileValues)
            return (try? JSONDocument(parsing: Array(hostile.utf8)).root.json) ?? .string(hostile)
        }
    }

    static func mutateBytes(_ text: String, _ random: inout SplitMix64) -> String {
        var bytes = Array(text.utf8)
        for _ in 0..<random.int(1...3) {
            switch random.int(0..<7) {
            case 0 where !bytes.isEmpty:
                // A value replaced by a hostile one (after a colon).
                let colons = bytes.indices.filter { bytes[$0] == UInt8(ascii: ":") }
                guard !colons.isEmpty else { continue }
                let at = random.pick(colons)
                var end = at + 1
                while end < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}")].contains(bytes[end]) { end += 1 }
                bytes.replaceSubrange((at + 1)..<end, with: Array(hostileValues[random.int(0..<hostileValues.count)].utf8))
            case 1 where !bytes.isEmpty: bytes.removeSubrange(random.int(0..<bytes.count)...)
            case 2 where !bytes.isEmpty: bytes[random.int(0..<bytes.count)] = UInt8(truncatingIfNeeded: random.int(0..<256))
            case 3: bytes.insert(contentsOf: Array(hostileValues[random.int(0..<hostileValues.count)].utf8), at: random.int(0...bytes.count))
            case 4 where !bytes.isEmpty:
                let from = random.int(0..<bytes.count)
                bytes.insert(contentsOf: bytes[from..<min(bytes.count, from + random.int(1...40))], at: random.int(0...bytes.count))
            case 5:
                // An action or a key swapped for another the protocol knows.
                let words = ["\"q\"", "\"n\"", "\"p\"", "\"m\"", "\"o\"", "\"om\"", "\"oc\"", "\"g\"", "\"auth\"", "\"t\"", "\"l\"", "\"vf\"", "\"i\"", "\"h\""]
                let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") }
                guard quotes.count >= 2 else { continue }
                let a = random.int(0..<(quotes.count - 1))
                bytes.replaceSubrange(quotes[a]...quotes[a + 1], with: Array(words[random.int(0..<words.count)].utf8))
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
