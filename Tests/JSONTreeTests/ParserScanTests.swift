// The parser's fast paths against plain models: the SIMD survey (UTF-8 validity and the
// separator count that sizes the tape) and the hashed duplicate-key check.
import CJSONScan
import Foundation
@testable import JSONTree
import Testing
import TestSupport

@Suite struct ParserScanTests {
    /// Valid UTF-8 pieces of every length, including the edges of each range.
    static let pieces: [[UInt8]] = [
        [0x41], [0x2C], [0x3A], [0x7B], [0x5B], [0x20], [0x7F],
        [0xC2, 0x80], [0xDF, 0xBF], [0xC3, 0xA9],
        [0xE0, 0xA0, 0x80], [0xE3, 0x81, 0x82], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],
        [0xF0, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98, 0x8B], [0xF4, 0x8F, 0xBF, 0xBF],
    ]

    /// Random bytes that are mostly valid UTF-8: valid pieces, then a few bytes overwritten
    /// or the end cut off. Lengths cross several 32-byte blocks.
    static func mostlyUTF8(_ r: inout SplitMix64) -> [UInt8] {
        var bytes: [UInt8] = []
        let target = r.int(0...150)
        while bytes.count < target { bytes += r.pick(pieces) }
        for _ in 0..<r.int(0...2) where !bytes.isEmpty {
            bytes[r.int(0..<bytes.count)] = UInt8(truncatingIfNeeded: r.next())
        }
        if r.chance(0.2) && !bytes.isEmpty { bytes.removeLast(r.int(1...min(3, bytes.count))) }
        return bytes
    }

    @Test func surveyAgreesWithTheStandardLibrary() {
        var valid = 0, invalid = 0
        forEachSeed(20_000) { seed, r in
            let bytes = Self.mostlyUTF8(&r)
            let survey = bytes.withUnsafeBufferPointer { jsonscan_survey($0.baseAddress!, $0.count) }
            let separators = bytes.filter { $0 == 0x2C || $0 == 0x3A || $0 == 0x5B || $0 == 0x7B }.count
            #expect(survey.separators == separators, "seed \(seed)")
            let expected = String(validating: bytes, as: UTF8.self) != nil
            expected ? (valid += 1) : (invalid += 1)
            if survey.utf8 != -1 { #expect((survey.utf8 == 1) == expected, "seed \(seed): \(bytes)") }
        }
        // Both outcomes are exercised.
        #expect(valid > 5_000 && invalid > 5_000)
    }

    @Test func stringsAreValidExactlyWhenTheirBytesAreUTF8() {
        forEachSeed(5_000) { seed, r in
            // Quotes, backslashes and control characters are out: only UTF-8 decides.
            let content = Self.mostlyUTF8(&r).filter { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }
            let padding = [UInt8](repeating: 0x20, count: r.int(0...40))
            let text = padding + [0x5B, 0x22] + content + [0x22, 0x5D] + padding
            let valid = String(validating: content, as: UTF8.self) != nil
            do throws(JSONParseError) {
                let doc = try JSONDocument(parsing: text)
                #expect(valid, "seed \(seed): accepted invalid UTF-8 \(content)")
                #expect(doc.root[index: 0]?.stringValue.map { Array($0.utf8) } == content, "seed \(seed)")
            } catch {
                #expect(!valid, "seed \(seed): rejected valid UTF-8: \(error)")
                #expect(error.message.contains("UTF-8"), "seed \(seed): \(error.message)")
            }
        }
    }

    /// Keys chosen so that objects repeat them: lengths around the 8-byte hash words,
    /// keys that agree on their first and last 8 bytes, and non-ASCII keys.
    static let keyPool = ["", "a", "b", "ab", "abcdefg", "abcdefgh", "abcdefghi", "é", "中文",
                          "prefix01-A-suffix01", "prefix01-B-suffix01", "prefix01suffix01", "k/~"]

    /// A key token: sometimes spelled with escapes, which must not make it a different key.
    static func keyToken(_ key: String, _ r: inout SplitMix64, escaping chance: Double = 0.3) -> String {
        guard r.chance(chance), let first = key.unicodeScalars.first else { return "\"\(key)\"" }
        let escaped = String(format: "\\u%04X", first.value > 0xFFFF ? 0x3F : first.value)
        return first.value > 0xFFFF ? "\"\(key)\"" : "\"" + escaped + String(key.unicodeScalars.dropFirst()) + "\""
    }

    /// A random object as text and as the model of what parsing keeps: each key's last
    /// value, at its last place.
    indirect enum Model: Equatable {
        case number(Int)
        case object([(key: [UInt8], value: Model)])

        static func == (a: Model, b: Model) -> Bool {
            switch (a, b) {
            case let (.number(x), .number(y)): return x == y
            case let (.object(x), .object(y)):
                return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: return false
            }
        }
    }

    static func object(_ r: inout SplitMix64, depth: Int, counter: inout Int) -> (text: String, model: Model) {
        let size = r.pick([0, 1, 2, 5, 9, 16, 17, 30, 60])
        var text = "{"
        var written: [(key: [UInt8], value: Model)] = []
        for m in 0..<size {
            let key = r.pick(keyPool)
            let value: (text: String, model: Model)
            if depth > 0 && r.chance(0.1) {
                value = object(&r, depth: depth - 1, counter: &counter)
            } else {
                counter += 1
                value = ("\(counter)", .number(counter))
            }
            text += (m > 0 ? "," : "") + (r.chance(0.5) ? "\n  " : "") + keyToken(key, &r) + ":" + value.text
            written.append((Array(key.utf8), value.model))
        }
        text += "}"
        let kept = written.enumerated().filter { i, member in
            !written[(i + 1)...].contains { $0.key == member.key }
        }.map(\.element)
        return (text, .object(kept))
    }

    static func model(of node: JSONNode) -> Model {
        if node.kind == .object {
            return .object(node.members.map { (Array($0.key.stringValue!.utf8), model(of: $0.value)) })
        }
        return .number(Int(node.doubleValue!))
    }

    /// A document of more tape entries than indexes can name is an error, not a wrapped tape.
    @Test func tapesPastTheEntryLimitAreRefused() throws {
        let bytes = Array("[[],[],[]]".utf8)  // 2 entries for each of the 4 arrays
        let tape = try bytes.withUnsafeBufferPointer { try JSONParser.parse($0, depthLimit: 10, entryLimit: 9) }
        #expect(tape.count == 8)
        #expect(throws: JSONParseError.self) {
            try bytes.withUnsafeBufferPointer { try JSONParser.parse($0, depthLimit: 10, entryLimit: 8) }
        }
    }

    /// Keys in key order, in two runs of it, or in more: the parser compares each key with the
    /// one before as it reads it, walks two runs side by side when the object closes, and hashes
    /// (or, up to 16 keys, compares pair by pair) the rest. Small and large objects, nested
    /// objects between the keys.
    @Test func duplicateKeysInRunsOfKeyOrder() throws {
        try forEachSeed(120) { seed, r in
            let size = r.chance(0.4) ? r.int(2..<40) : r.int(40..<2_600)
            let order = r.int(0..<3)
            // In order: a repeat of the key before at `second`, or none. Two runs: even numbers,
            // then odd ones (or ones that sort first), the second now and then repeating a key
            // of the first in its order, or (`third`) out of it, which makes a third run.
            // (Now and then among the first 16 keys.)
            let second = r.chance(0.3) ? r.int(1..<min(size, 17)) : r.int(1..<size)
            let before = r.chance(0.3), repeats = r.chance(0.5), third = r.chance(0.3)
            // Keys shorter than 8 bytes, of 8 (told apart by their first word), longer with the
            // first 8 bytes alike (told apart by the rest), and of every length, some the start
            // of others ("k1", "k10", "k100"), numbered in their byte order.
            let (head, width) = [("k", 5), ("k", 7), ("player_k", 5), ("k", 0)][r.int(0..<4)]
            let unpadded = width == 0 ? (0..<(2 * size + 2)).map { String($0) }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } : []
            func name(_ n: Int, first: String = head) -> String {
                first + (width == 0 ? unpadded[n] : String(format: "%0\(width)d", n))
            }
            var text = "{", keys: [String] = [], values: [Model] = []
            var counter = 0
            for m in 0..<size {
                // In key order; in two runs; or drawn with many repeats.
                let key: String
                switch order {
                case 0: key = name(m - (repeats && m == second ? 1 : 0))
                case 1 where m < second: key = name(2 * m)
                case 1 where !before && m - second < second && r.chance(0.01): key = name(2 * (m - second))
                case 1 where third && r.chance(0.002): key = name(2 * r.int(0..<second))
                case 1: key = name(2 * (m - second) + 1, first: before ? "a" + head.dropFirst() : head)
                default: key = "k\(r.int(0..<size / 2))"
                }
                let value: (text: String, model: Model)
                if r.chance(0.05) {
                    value = Self.object(&r, depth: 1, counter: &counter)
                } else {
                    counter += 1
                    value = ("\(counter)", .number(counter))
                }
                // Keys in order are read in order only when none has an escape.
                let escaping = order == 2 ? 0.3 : 0.0003
                text += (m > 0 ? "," : "") + Self.keyToken(key, &r, escaping: escaping) + ":" + value.text
                keys.append(key)
                values.append(value.model)
            }
            text += "}"
            var last: [String: Int] = [:]
            for (i, key) in keys.enumerated() { last[key] = i }
            let expected = Model.object(keys.indices.filter { last[keys[$0]] == $0 }.map { (Array(keys[$0].utf8), values[$0]) })
            let doc = try JSONDocument(parsing: text)
            #expect(Self.model(of: doc.root) == expected, "seed \(seed)")
        }
    }

    @Test func duplicateKeysMatchTheModelInSmallAndLargeObjects() throws {
        try forEachSeed(1_500) { seed, r in
            var counter = 0
            let (text, expected) = Self.object(&r, depth: 2, counter: &counter)
            let doc = try JSONDocument(parsing: text)
            #expect(Self.model(of: doc.root) == expected, "seed \(seed): \(text)")
        }
    }

    /// The tape, or the error, one path of the parser gives.
    static func outcome(_ bytes: [UInt8], portable: Bool) -> String {
        do {
            let tape = try JSONParser.parse(bytes, portable: portable)
            return (0..<tape.count).map { "\(tape[$0].start) \(tape[$0].word)" }.joined(separator: ",")
        } catch {
            return "error at \(error.offset): \(error.message)"
        }
    }

    @Test func portablePathGivesTheSameTapesAndErrors() throws {
        // CPUs without AVX2 validate UTF-8 while scanning and size the tape from a scalar count.
        var inputs: [[UInt8]] = []
        let dir = fixturesURL("JSONTestSuite/test_parsing")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            inputs.append([UInt8](FileManager.default.contents(atPath: dir + "/" + name)!))
        }
        forEachSeed(1_000) { _, r in
            var bytes = Gen.value(&r).serialized(r.chance(0.5) ? .pretty : .compact)
            if r.chance(0.5) && !bytes.isEmpty { bytes[r.int(0..<bytes.count)] = UInt8(truncatingIfNeeded: r.next()) }
            inputs.append(bytes)
        }
        #expect(inputs.count > 1_300)
        for bytes in inputs {
            #expect(Self.outcome(bytes, portable: true) == Self.outcome(bytes, portable: false), "\(bytes)")
        }
    }

    @Test func tapeSizingHandlesDenseInputAndSeparatorsInStrings() throws {
        // Denser than one node per 8 bytes: the tape grows past its first estimate.
        let dense = try JSONDocument(parsing: "[" + Array(repeating: "0", count: 100_000).joined(separator: ",") + "]")
        #expect(dense.root.count == 100_000)
        // Separators inside a string overestimate the nodes: the excess is given back.
        let commas = try JSONDocument(parsing: "[\"" + String(repeating: ",:[{", count: 50_000) + "\", 1]")
        #expect(commas.root.count == 2)
        #expect(commas.root[index: 1]?.doubleValue == 1)
    }
}
