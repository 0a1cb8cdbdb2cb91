import Testing
@testable import JSONTree
import TestSupport

// Writes that broke under attack (issue 13): increments of integers past 2^53, keys the
// database forbids, and edits past the nesting limit.

private func incrementBy(_ n: String) -> JSON { [".sv": ["increment": .number(JSONNumber(text: n)!)]] }

private func apply(_ text: String, _ writes: [JSONWrite]) throws -> String {
    String(decoding: try JSONDocument(parsing: text).applying(writes, serverTime: 0).bytes, as: UTF8.self)
}

@Suite struct EditHostileTests {
    // Item 4: these increments were lost (the double sum rounded back to the old value).
    @Test func largeIntegersAreIncrementedExactly() throws {
        #expect(try apply(#"{"c":123456789012345678901234567890}"#, set("/c", incrementBy("1"))) == #"{"c":123456789012345678901234567891}"#)
        #expect(try apply(#"{"c":9007199254740993}"#, set("/c", incrementBy("1"))) == #"{"c":9007199254740994}"#)
        #expect(try apply(#"{"c":-9007199254740993}"#, set("/c", incrementBy("9007199254740994"))) == #"{"c":1}"#)
        #expect(try apply(#"{"c":1}"#, set("/c", incrementBy("-100000000000000000000"))) == #"{"c":-99999999999999999999}"#)
        #expect(try apply(#"{"c":-0}"#, set("/c", incrementBy("-1"))) == #"{"c":-1}"#)
    }

    @Test func anIncrementThatCannotBeExactIsRefused() throws {
        for (file, by) in [(#"{"c":1e300}"#, "1"), (#"{"c":9007199254740993}"#, "0.5"), (#"{"c":1.5}"#, "1e-300")] {
            let error = try #require(throws: JSONEditError.self) { try apply(file, set("/c", incrementBy(by))) }
            guard case .invalidServerValue(_, let message) = error.reason else { Issue.record("\(error)"); continue }
            #expect(message.contains("cannot be computed exactly"), "\(message)")
        }
    }

    @Test func decimalSumsAgreeWithIntegerArithmetic() throws {
        var rng = SplitMix64(seed: 13)
        for _ in 0..<5_000 {
            let a = Int(truncatingIfNeeded: rng.next()) >> Int(rng.next(64)), b = Int(truncatingIfNeeded: rng.next()) >> Int(rng.next(64))
            let (sum, overflow) = a.addingReportingOverflow(b)
            let exact = decimalIntegerSum(String(a), String(b))
            if !overflow { #expect(exact == String(sum), "\(a) + \(b)") }
            // Past Int's range too: (a + b) - b is a, digit for digit.
            let big = String(a) + String(UInt32(truncatingIfNeeded: rng.next()))
            let minusB = b < 0 ? String(String(b).dropFirst()) : "-\(b)"
            let there = try #require(decimalIntegerSum(big, String(b)))
            #expect(decimalIntegerSum(there, minusB) == String(Int(big) ?? 1) || decimalIntegerSum(there, minusB) == big.trimmingLeadingZeros, "\(big) ± \(b)")
        }
    }

    // Item 5: keys the database forbids were written.
    @Test func forbiddenKeysAreRefusedWithTheirName() throws {
        let document = try JSONDocument(parsing: #"{"y":{}}"#)
        for key in ["a.b", "a$b", "a#b", "a[b", "a]b", "a/b", "", "a\u{1B}b", "a\u{7F}b", String(repeating: "é", count: 385)] {
            let error = try #require(throws: JSONEditError.self) { try document.applying(set("/y", .object(JSONObject([(key, 1)])))) }
            guard case .forbiddenKey(_, let named, _) = error.reason else { Issue.record("\(key): \(error)"); continue }
            #expect(named == key)
            #expect(error.description.contains("the key"), "\(error)")
            #expect(!error.description.contains("\u{1B}"), "\(error)")
            #expect(throws: JSONEditError.self) { try document.applying(set(Path(keys: ["y", key]), 5)) }
        }
        #expect(throws: JSONEditError.self) { try document.applying(set("/y", ["ok": ["deep": ["a.b": 1]]])) }
        // Allowed: 768 bytes, metadata keys, and removing a forbidden key that a file holds.
        #expect(try apply(#"{"y":{}}"#, set(Path(keys: ["y", String(repeating: "é", count: 384)]), 1)).contains("éé"))
        #expect(try apply(#"{"y":{}}"#, set("/y", [".priority": 1, "a": 2])) == #"{"y":{".priority":1,"a":2}}"#)
        #expect(try apply(#"{"a.b":1,"c":2}"#, JSONWrite.remove(Path(keys: ["a.b"]))) == #"{"c":2}"#)
        // Reading such keys stays allowed.
        #expect(try JSONDocument(parsing: #"{"a.b":{"$x":1}}"#).root.node(at: Path(keys: ["a.b", "$x"]))?.json == 1)
    }

    // Item 9: past the nesting limit, the message said "internal error while editing".
    @Test func editsPastTheNestingLimitNameTheLimit() throws {
        var deep: JSON = 1
        for _ in 0..<(maximumJSONDepth - 1) { deep = ["d": deep] }
        // Exactly at the limit: the root object and the 1023 objects inside it.
        let atLimit = try apply("{}", set("/x", deep))
        #expect(try JSONDocument(parsing: Array(atLimit.utf8)).root.node(at: Path("/x/d"))?.kind == .object)
        let error = try #require(throws: JSONEditError.self) { try apply(#"{"a":{}}"#, set("/a/x", deep)) }
        #expect(error.reason == .tooDeep(write: try Path("/a/x"), depth: maximumJSONDepth + 1, limit: maximumJSONDepth))
        #expect(error.description.contains("more than the limit of \(maximumJSONDepth)"), "\(error)")
        #expect(!error.description.contains("internal error"))
    }
}

extension String {
    /// The integer spelled without leading zeros ("-0012" → "-12", "000" → "0").
    fileprivate var trimmingLeadingZeros: String {
        let negative = hasPrefix("-")
        let digits = (negative ? dropFirst() : Substring(self)).drop { $0 == "0" }
        if digits.isEmpty { return "0" }
        return (negative ? "-" : "") + digits
    }
}
