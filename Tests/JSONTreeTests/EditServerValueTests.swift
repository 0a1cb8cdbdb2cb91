import Testing
@testable import JSONTree

// Server values resolved when a write is applied.

private func increment(_ n: Int) -> JSON { [".sv": ["increment": .number(JSONNumber(n))]] }
private let timestamp: JSON = [".sv": "timestamp"]

private func apply(_ text: String, _ writes: [JSONWrite], serverTime: Int64? = 1_700_000_000_123) throws -> String {
    let result = try JSONDocument(parsing: text).applying(writes, serverTime: serverTime)
    return String(decoding: result.bytes, as: UTF8.self)
}

@Suite struct EditServerValueTests {
    @Test func timestampIsTheServerTime() throws {
        #expect(try apply(#"{"a": 1}"#, set("/t", timestamp)) == #"{"a": 1, "t": 1700000000123}"#)
        // Every timestamp of one write is the same.
        #expect(try apply("{}", update("/", [("x/at", timestamp), ("y", ["at": timestamp, "n": [timestamp]])]), serverTime: 5)
            == "{\n  \"x\": {\n    \"at\": 5\n  },\n  \"y\": {\n    \"at\": 5,\n    \"n\": [\n      5\n    ]\n  }\n}")
    }

    @Test func incrementAddsToTheCurrentNumber() throws {
        #expect(try apply(#"{"n": 5, "m": 1}"#, set("/n", increment(2))) == #"{"n": 7, "m": 1}"#)
        #expect(try apply(#"{"n": 1.5}"#, set("/n", increment(-2))) == #"{"n": -0.5}"#)
        // No number there: the increment is the value.
        #expect(try apply(#"{"n": "x"}"#, set("/n", increment(3))) == #"{"n": 3}"#)
        #expect(try apply(#"{}"#, set("/a/b", increment(3))) == "{\n  \"a\": {\n    \"b\": 3\n  }\n}")
        // Inside a written object, against the number at the same place.
        #expect(try apply(#"{"u":{"hits":10,"name":"x"}}"#, set("/u", ["hits": increment(1), "name": "y"]))
            == #"{"u":{"hits":11,"name":"y"}}"#)
    }

    @Test func incrementResolvesAgainstTheContentItIsAppliedTo() throws {
        // The same write applied to a newer revision (a compare-and-swap retry) adds to the newer number.
        let writes = set("/n", increment(1))
        let older = try JSONDocument(parsing: #"{"n": 1}"#), newer = try JSONDocument(parsing: #"{"n": 41}"#)
        #expect(try older.applying(writes).root.json == ["n": 2])
        #expect(try newer.applying(writes).root.json == ["n": 42])
    }

    @Test func largeIntegersStayExact() throws {
        #expect(try apply(#"{"n": 9007199254740000}"#, set("/n", increment(991))) == #"{"n": 9007199254740991}"#)
    }

    @Test func malformedServerValuesAreErrors() throws {
        let unknown = try #require(throws: JSONEditError.self) { try apply("{}", set("/a", [".sv": "now"])) }
        #expect(unknown.description.contains("unknown server value \"now\""))
        let notNumber = try #require(throws: JSONEditError.self) {
            try apply("{}", set("/a", [".sv": ["increment": "1"]]))
        }
        #expect(notNumber.reason == .invalidServerValue(at: path("/a"), "'increment' needs a number, not \"1\""))
        #expect(throws: JSONEditError.self) { try apply("{}", set("/a", [".sv": "timestamp", "x": 1])) }
        #expect(throws: JSONEditError.self) { try apply("{}", set("/a", timestamp), serverTime: nil) }
    }
}
