// Properties of the fold's fast paths: lines folded as they are parsed equal the same lines read
// as a JSON Lines list and folded; the children's store (in-place records, compaction, removal)
// equals a plain ordered model.
import Expressions
import JSONTree
import Testing
import TestSupport
@testable import KeyedStore

@Suite("A keyed fold's fast paths")
struct KeyedFoldLinesTests {
    /// A line of a log: mostly records with a key, and every kind of line a fold treats apart.
    private func randomLine(_ rng: inout SplitMix64) -> String {
        let n = rng.int(0..<8), v = rng.int(0..<100_000)
        let padding = String(repeating: "x", count: rng.int(0..<40))
        switch rng.int(0..<14) {
        case 0: return #"{"k": "k\u003\#(n)", "v": \#(v)}"#  // an escaped key: the same key as k<n>
        case 1: return #"{"k": \#(n), "v": \#(v)}"#  // a number
        case 2: return #"{"meta": {"k": "k\#(n)"}}"#  // no key: an error row
        case 3: return #"{"k": "", "v": 1}"#
        case 4: return #"{"$error": "made", "k": "k\#(n)"}"#  // kept as it is
        case 5: return "{oops \(v)"
        case 6: return rng.chance(0.5) ? "" : "  \r"
        case 7: return "[1, 2]"
        case 8: return #"{"k": "k1", "k": "k\#(n)", "v": \#(v)}"#  // the last duplicate counts
        case 9: return #"{"k": "k\#(n)", "type": "DELETED"}"#
        case 10: return #"{"k": "ké\#(n)\"q", "v": "\#(padding)"}"#
        default: return #"{"k": "k\#(n)", "v": \#(v), "pad": "\#(padding)"}"#
        }
    }

    @Test("lines folded as they are parsed, in any pieces, equal the same lines listed and folded")
    func foldLinesEqualsListFold() throws {
        let key = try Expression(".k"), deleteWhen = try Expression(#".type == "DELETED""#)
        try forEachSeed(40) { seed, rng in
            let lines = (0..<rng.int(0...120)).map { _ in randomLine(&rng) }
            let text = Array((lines.joined(separator: "\n") + (rng.chance(0.5) ? "\n" : "")).utf8)
            var listed = JSONLinesBuilder(mode: .lines)
            _ = listed.append(text)
            _ = listed.finish()
            var expected = KeyedFold(key: key, deleteWhen: deleteWhen)
            expected.fold(listed.finishedList().root)
            // Whole lines in pieces, the last one possibly without its newline.
            var folded = KeyedFold(key: key, deleteWhen: deleteWhen)
            var start = 0
            while start < text.count {
                var end = min(text.count, start + rng.int(1...400))
                while end < text.count && text[end - 1] != 0x0A { end += 1 }
                text.withUnsafeBufferPointer { folded.foldLines(UnsafeBufferPointer(rebasing: $0[start..<end])) }
                start = end
            }
            #expect(folded.folded == expected.folded, "seed \(seed)")
            #expect(folded.bytes == expected.bytes, "seed \(seed): \(String(decoding: folded.bytes, as: UTF8.self))")
            #expect(folded.count == expected.count, "seed \(seed)")
        }
    }

    @Test("of duplicate keys the last counts, as in jq, on the tape and evaluated")
    func theLastDuplicateIsTheKey() throws {
        for key in [".k", ".k | ."] {
            var fold = KeyedFold(key: try Expression(key), deleteWhen: nil)
            Array(#"{"k": "first", "k": "last", "v": 1}"#.utf8 + [0x0A]).withUnsafeBufferPointer { fold.foldLines($0) }
            #expect(String(decoding: fold.bytes, as: UTF8.self).contains(#""last""#), "\(key): \(String(decoding: fold.bytes, as: UTF8.self))")
            #expect(!String(decoding: fold.bytes, as: UTF8.self).contains(#""first":"#), "\(key)")
        }
    }

    @Test("a key read on the tape equals the key evaluated (a path beside the same path piped)")
    func plainKeyEqualsEvaluated() throws {
        try forEachSeed(20) { seed, rng in
            // Records that all have a key: error rows would name the two expressions' texts.
            let lines = (0..<rng.int(1...80)).map { _ in
                rng.chance(0.3) ? #"{"a": {"b": "k\u003\#(rng.int(0..<6))"}}"# : #"{"a": {"b": "k\#(rng.int(0..<6))"}, "v": \#(rng.int(0..<99))}"#
            }
            let text = Array(lines.joined(separator: "\n").utf8)
            var plain = KeyedFold(key: try Expression(".a.b"))
            var evaluated = KeyedFold(key: try Expression(".a.b | ."))
            #expect(plain.key.memberPath != nil && evaluated.key.memberPath == nil)
            text.withUnsafeBufferPointer { plain.foldLines($0); evaluated.foldLines($0) }
            #expect(plain.bytes == evaluated.bytes, "seed \(seed)")
        }
    }

    @Test("the children's store equals an ordered model through upserts, removals and compactions, and a copy keeps its own")
    func childrenEqualModel() {
        forEachSeed(6) { seed, rng in
            var children = KeyedChildren()
            var model: [(key: [UInt8], record: [UInt8])] = []
            var copy: (KeyedChildren, [UInt8])?
            let keys = (0..<rng.int(1...300)).map { Array("key-\($0)\(rng.chance(0.1) ? "\"é" : "")".utf8) }
            for step in 0..<2_500 {
                let key = rng.pick(keys)
                if rng.chance(0.2) {
                    key.withUnsafeBufferPointer { children.remove($0) }
                    model.removeAll { $0.key == key }
                } else {
                    let record = Array(String(repeating: "7", count: rng.int(1...300)).utf8)
                    key.withUnsafeBufferPointer { k in record.withUnsafeBufferPointer { children.set(k, $0) } }
                    if let i = model.firstIndex(where: { $0.key == key }) { model[i].record = record } else { model.append((key, record)) }
                }
                if step == 1_250 { copy = (children, children.bytes) }
            }
            var expected: [UInt8] = [UInt8(ascii: "{")]
            for (i, child) in model.enumerated() {
                if i > 0 { expected.append(UInt8(ascii: ",")) }
                writeJSONString(String(decoding: child.key, as: UTF8.self), to: &expected)
                expected.append(UInt8(ascii: ":"))
                expected += child.record
            }
            expected.append(UInt8(ascii: "}"))
            #expect(children.bytes == expected, "seed \(seed)")
            #expect(children.count == model.count, "seed \(seed)")
            #expect(copy.map { $0.0.bytes == $0.1 } == true, "seed \(seed): a copy changed with the original")
        }
    }
}
