// A whole parse on two threads (`TapeFragment`): the second thread's members, taken where the
// parse meets their first key, give the tape (or the error) the parse gives alone.
@testable import JSONTree
import Testing
import TestSupport

@Suite struct TwoThreadParseTests {
    /// The tape (and whether it may hold a metadata key), or the error, of a parse whose second
    /// thread looks for members from `split` (none at the input's end), and whether the parse
    /// took them.
    static func outcome(_ bytes: [UInt8], split: Int, depthLimit: Int = maximumJSONDepth) -> (String, taken: Bool) {
        var taken = false
        do {
            let tape = try bytes.withUnsafeBufferPointer {
                try JSONParser.parse($0, depthLimit: depthLimit, splitFrom: split, tuning: .tuned, fragmentTaken: { taken = $0 })
            }
            let entries = (0..<tape.count).map { "\(tape[$0].start) \(tape[$0].word)" }.joined(separator: ",")
            return ("metadata keys: \(tape.metadataKeys); " + entries, taken)
        } catch let error as JSONParseError {
            return ("error at \(error.offset): \(error.message)", taken)
        } catch {
            return ("\(error)", taken)
        }
    }

    /// Documents with what the merge must get right: nesting, keys that fall once or twice or
    /// repeat (duplicates are marked across the two halves), keys with escapes or a "." first
    /// (metadata, noted by the thread that reads them), and errors.
    static func document(_ r: inout SplitMix64) -> [UInt8] {
        var bytes: [UInt8]
        switch r.int(0..<4) {
        case 3:
            // Keys in one increasing run, or two where the second repeats some of the first:
            // duplicates that only a merge of the halves' key order can find.
            let count = r.int(2..<120), fall = r.chance(0.3) ? count : r.int(1..<count)
            var keys = (0..<fall).map { 2 * $0 }
            keys += (0..<(count - fall)).map { 2 * $0 + r.int(0...1) }
            let members = keys.enumerated().map { k, key in "\"k\(1000 + key)\": \(k)" }
            bytes = Array(("{\"o\": {" + members.joined(separator: ", ") + "}, \"z\": 1}").utf8)
        case 0:
            var counter = 0
            bytes = Array(ParserScanTests.object(&r, depth: 3, counter: &counter).text.utf8)
        case 1:
            bytes = Gen.value(&r, depth: 5).serialized(r.chance(0.5) ? .pretty : .compact)
        default:
            // Many members, so that the second thread settles on the top object's keys.
            let count = r.int(60..<200)
            let keys = (0..<count).map { k in
                r.chance(0.05) ? "k\(r.int(0..<count))" : r.chance(0.005) ? ".k\(k)" : "k\(1000 + (r.chance(0.9) ? k : -k))"
            }
            let members = keys.map { key in
                "\"\(key)\": {\"name\": \"n\\u00e9\", \"score\": \(r.int(0..<100)), \"tags\": [1, {\"a\": null}]}"
            }
            bytes = Array(("{\"players\": {\n  " + members.joined(separator: ",\n  ") + "\n}, \"z\": true}").utf8)
        }
        if r.chance(0.3) && !bytes.isEmpty {
            bytes[r.int(0..<bytes.count)] = r.pick(Array(",:{}[]\"\\ 0a".utf8) + [0xC3, 0x00])
        }
        return bytes
    }

    @Test func aParseOnTwoThreadsIsTheParseOnOne() {
        var taken = 0, compared = 0
        forEachSeed(1_500) { seed, r in
            let bytes = Self.document(&r)
            guard bytes.count > 1 else { return }
            let alone = Self.outcome(bytes, split: bytes.count).0
            // With no "." or escape anywhere, no key can be metadata (and the list reads none).
            if !bytes.contains(UInt8(ascii: ".")) && !bytes.contains(UInt8(ascii: "\\")) && !alone.hasPrefix("error") {
                #expect(alone.hasPrefix("metadata keys: false"), "seed \(seed)")
            }
            for _ in 0..<6 {
                let split = r.int(0..<bytes.count)
                let (twice, took) = Self.outcome(bytes, split: split)
                #expect(twice == alone, "seed \(seed), split at \(split)")
                compared += 1
                if took { taken += 1 }
            }
        }
        // Most splits land where members follow: the test is of the merge, not of the fallback.
        #expect(compared > 8_000)
        #expect(taken > compared / 3, "\(taken) of \(compared) taken")
    }

    @Test func membersNestedTooDeepWhereTheyAreTakenAreParsedAgain() {
        // Shallow where the second thread reads them, too deep where they sit.
        func text(nested: Int) -> [UInt8] {
            let inner = String(repeating: "[", count: nested) + String(repeating: "]", count: nested)
            return Array("{\"a\": {\"b\": {\"c\": 1, \"d\": 2, \"e\": \(inner)}}}".utf8)
        }
        let bytes = text(nested: 8)
        let split = bytes.firstIndex(of: UInt8(ascii: ","))!
        let alone = Self.outcome(bytes, split: bytes.count, depthLimit: 10)
        let twice = Self.outcome(bytes, split: split, depthLimit: 10)
        #expect(alone.0.hasPrefix("error at"), "\(alone.0)")
        #expect(twice.0 == alone.0)
        #expect(!twice.taken)
        // One level less deep, the same members are taken.
        let shallower = text(nested: 7)
        let taken = Self.outcome(shallower, split: split, depthLimit: 10)
        #expect(taken.0 == Self.outcome(shallower, split: shallower.count, depthLimit: 10).0)
        #expect(taken.taken && !taken.0.hasPrefix("error"))
    }

    @Test func aLargeInputIsSplitByDefault() throws {
        // Past `splitParseSize`, the tuned parse splits at the middle unasked; the plain one is
        // the reference.
        var text = "{\"players\": {"
        var k = 0
        while text.utf8.count < splitParseSize + 4096 {
            text += (k > 0 ? ",\n    " : "\n    ") + "\"p\(1_000_000 + k)\": {\"score\": \(k % 977), \"team\": \"t\(k % 7)\"}"
            k += 1
        }
        text += "\n  }\n}"
        let bytes = Array(text.utf8)
        var taken = false
        let tape = try bytes.withUnsafeBufferPointer {
            try JSONParser.parse($0, depthLimit: maximumJSONDepth, tuning: .tuned, fragmentTaken: { taken = $0 })
        }
        let alone = try bytes.withUnsafeBufferPointer {
            try JSONParser.parse($0, depthLimit: maximumJSONDepth, tuning: .plain)
        }
        #expect(taken)
        #expect(tape.count == alone.count)
        #expect((0..<tape.count).allSatisfy { tape[$0].start == alone[$0].start && tape[$0].word == alone[$0].word })
    }
}
