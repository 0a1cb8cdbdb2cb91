// Re-parsing a file's next state from its last one must give exactly what a full parse
// gives: the same tape (offsets, next indexes, escape and duplicate marks) or the same error.
import Foundation
@testable import JSONTree
import Testing
import TestSupport

@Suite struct ReparsingTests {
    /// A parse's whole outcome as text: every tape entry, or the error.
    static func outcome(_ parse: () throws(JSONParseError) -> JSONDocument) -> String {
        do {
            let doc = try parse()
            return (0..<doc.tape.count).map { "\(doc.tape[$0].start) \(doc.tape[$0].end) \(doc.tape[$0].payload)" }
                .joined(separator: ",")
        } catch {
            return "error at \(error.offset): \(error.message)"
        }
    }

    /// A document with several nested containers, so that most edits fall inside a small one.
    static func document(_ r: inout SplitMix64) -> [UInt8] {
        var members: [(key: String, value: JSON)] = []
        for k in 0..<r.int(3...8) {
            members.append((r.chance(0.1) ? "dup" : "m\(k)", .array((0..<r.int(1...4)).map { _ in Gen.value(&r, depth: 3) })))
        }
        return JSON.object(JSONObject(members)).serialized(r.chance(0.5) ? .pretty : .compact)
    }

    /// Text to put in place of a node: values (some with duplicate keys or escapes), broken
    /// values, whitespace, nothing.
    static func replacement(_ r: inout SplitMix64) -> [UInt8] {
        switch r.int(0..<6) {
        case 0: return Gen.value(&r, depth: 2).serialized(.pretty)
        case 1: return Array(#"{"k": 1, "\u006b": 2, "k": {"x": [true, null]}}"#.utf8)
        case 2: return Array(r.pick([#"{"a": }"#, "[1,", "\"\u{1}\"", "01", "\"\\x\"", "tru", "\"\u{FFFF}", "{}}"]).utf8)
        case 3: return Array(" \n ".utf8)
        case 4: return Gen.value(&r, depth: 1).serialized()
        default: return []
        }
    }

    @Test func reparsingGivesWhatAFullParseGives() throws {
        var partial = 0, changed = 0
        try forEachSeed(2_000) { seed, r in
            let old = Self.document(&r)
            let doc = try JSONDocument(parsing: old)
            var new = old
            let node = r.int(0..<doc.nodeCount)
            let range = Int(doc.tape[node].start)..<Int(doc.tape[node].end)
            switch r.int(0..<4) {
            case 0, 1: new.replaceSubrange(range, with: Self.replacement(&r))
            case 2: new.insert(contentsOf: Self.replacement(&r), at: r.int(0...new.count))
            default: new[r.int(0..<new.count)] = r.pick(Array("{}[],:\" 0a\\".utf8) + [0x80, 0xC3])
            }
            if new != old { changed += 1 }
            let full = Self.outcome { () throws(JSONParseError) in try JSONDocument(parsing: new) }
            let again = Self.outcome { () throws(JSONParseError) in try doc.reparsing(new) }
            #expect(again == full, "seed \(seed): \(String(decoding: old, as: UTF8.self)) → \(String(decoding: new, as: UTF8.self))")
            if doc.reparsedInPlace(new) != nil { partial += 1 }
        }
        // Most edits take the partial path; the others fall back to a full parse.
        #expect(changed > 1_800 && partial > 300, "\(partial) of \(changed) re-parsed in place")
    }

    @Test func oneChildOfALargeCollectionIsReparsedAlone() throws {
        let children = (0..<2_000).map { "\"c\($0)\": {\"name\": \"n\($0)\", \"score\": \($0)}" }
        let old = Array(("{\"items\": {" + children.joined(separator: ",\n") + "}}").utf8)
        let doc = try JSONDocument(parsing: old)
        var edited = children
        edited[700] = "\"c700\": {\"name\": \"renamed, longer\", \"score\": 7, \"new\": [1, 2]}"
        let new = Array(("{\"items\": {" + edited.joined(separator: ",\n") + "}}").utf8)
        let again = try #require(doc.reparsedInPlace(new))
        #expect(Self.outcome { () throws(JSONParseError) in again } == Self.outcome { () throws(JSONParseError) in
            try JSONDocument(parsing: new)
        })
        #expect(again.root[key: "items"]?[key: "c700"]?[key: "name"]?.stringValue == "renamed, longer")
        #expect(again.root[key: "items"]?[key: "c1999"]?[key: "score"]?.doubleValue == 1999)
    }

    @Test func largeTapesInMappedMemoryGrowShrinkAndReparse() throws {
        // 1,000,000 strings in 7 MB: the first tape estimate (a node per 8 bytes) is over the
        // mapping threshold and too small, so the tape grows, then gives back its excess.
        let strings = Array(repeating: #""abcd""#, count: 1_000_000).joined(separator: ",")
        let old = Array((#"{"big": ["# + strings + #"], "small": {"a": [1, 2]}}"#).utf8)
        let doc = try JSONDocument(parsing: old)
        #expect(doc.nodeCount == 1_000_009)
        #expect(doc.root[key: "big"]?[index: 999_999]?.stringValue == "abcd")
        // An edit in the small object re-parses it alone and copies the big tape around it.
        var new = old
        new.replaceSubrange((new.count - 2)..<(new.count - 2), with: Array(#", "b": "x""#.utf8))
        let again = try #require(doc.reparsedInPlace(new))
        #expect(again.root[key: "small"]?[key: "b"]?.stringValue == "x")
        #expect(Self.outcome { () throws(JSONParseError) in again } == Self.outcome { () throws(JSONParseError) in
            try JSONDocument(parsing: new)
        })
    }

    @Test func nestingLimitHoldsForTheContainerReparsed() throws {
        // The edit is 1,000 levels down; nesting 30 more passes the limit only counted from the root.
        let depth = 1_000
        let old = Array((String(repeating: "[", count: depth) + "[0], 1" + String(repeating: "]", count: depth)).utf8)
        let doc = try JSONDocument(parsing: old)
        let deeper = String(repeating: "[", count: 30) + "0" + String(repeating: "]", count: 30)
        let new = Array((String(repeating: "[", count: depth) + "[\(deeper)], 1" + String(repeating: "]", count: depth)).utf8)
        #expect(doc.reparsedInPlace(new) == nil)
        #expect(throws: JSONParseError.self) { try doc.reparsing(new) }
    }
}
