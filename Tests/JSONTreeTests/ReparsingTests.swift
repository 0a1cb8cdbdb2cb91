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
            return (0..<doc.tape.count).map { "\(doc.tape[$0].start) \(doc.tape[$0].word)" }
                .joined(separator: ",") + " root \(doc.tape.rootNext) \(doc.tape.rootEnd)"
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

    /// The ends two revisions share, as `reparsing` and the child lists take them: the same
    /// counts as comparing byte by byte, for edits anywhere in bytes of one to five pages
    /// (a page at a time is compared first, then byte by byte).
    @Test func sharedEndsAreTheBytesInCommon() {
        var r = SplitMix64(seed: 54)
        for _ in 0..<300 {
            let old = (0..<r.int(0...20_000)).map { _ in UInt8(r.int(0...2)) }
            var new = old
            let at = r.int(0...old.count), cut = r.int(0...min(old.count - at, 9_000))
            new.replaceSubrange(at..<at + cut, with: (0..<r.int(0...9_000)).map { _ in UInt8(r.int(0...2)) })
            var prefix = 0
            while prefix < min(old.count, new.count) && old[prefix] == new[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < min(old.count, new.count) - prefix && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
            let ends = DocumentBytes(old).sharedEnds(with: DocumentBytes(new))
            #expect(ends.prefix == prefix && ends.suffix == suffix, "\(old.count) bytes, \(cut) replaced at \(at)")
        }
    }

    @Test func reparsingGivesWhatAFullParseGives() throws {
        var partial = 0, changed = 0
        try forEachSeed(2_000) { seed, r in
            let old = Self.document(&r)
            let doc = try JSONDocument(parsing: old)
            var new = old
            let range = JSONNode(document: doc, index: r.pick(doc.nodeIndexes)).byteRange
            switch r.int(0..<4) {
            case 0, 1: new.replaceSubrange(range, with: Self.replacement(&r))
            case 2: new.insert(contentsOf: Self.replacement(&r), at: r.int(0...new.count))
            default: new[r.int(0..<new.count)] = r.pick(Array("{}[],:\" 0a\\".utf8) + [0x80, 0xC3])
            }
            if new != old { changed += 1 }
            let full = Self.outcome { () throws(JSONParseError) in try JSONDocument(parsing: new) }
            let again = Self.outcome { () throws(JSONParseError) in try doc.reparsing(new) }
            #expect(again == full, "seed \(seed): \(String(decoding: old, as: UTF8.self)) → \(String(decoding: new, as: UTF8.self))")
            if doc.reparsedInPlace(DocumentBytes(new)) != nil { partial += 1 }
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
        let again = try #require(doc.reparsedInPlace(DocumentBytes(new)))
        #expect(Self.outcome { () throws(JSONParseError) in again } == Self.outcome { () throws(JSONParseError) in
            try JSONDocument(parsing: new)
        })
        #expect(again.root[key: "items"]?[key: "c700"]?[key: "name"]?.stringValue == "renamed, longer")
        #expect(again.root[key: "items"]?[key: "c1999"]?[key: "score"]?.doubleValue == 1999)
    }

    /// A collection more than half the file: an edit that adds, removes or replaces a run of
    /// its children (first, last, all, with keys another child has, spelled with escapes, or
    /// with a comma lost, doubled or left over) re-parses that run alone where the result has
    /// no key twice across the run's edge, and in every case gives what a full parse gives —
    /// the tape copied, copied by two threads, or spliced as pieces.
    @Test func aRunOfChildrenOfALargeCollectionIsReparsedAlone() throws {
        var inPlace = 0, valid = 0
        try forEachSeed(600, base: 0x5C2D) { seed, r in
            let isObject = r.chance(0.6)
            func child(_ key: String, _ n: Int) -> String {
                let value = r.chance(0.5) ? "{\"name\": \"n\(n)\", \"score\": \(n)}" : "[\(n), \(r.int(0...9))]"
                return isObject ? "\"\(key)\": \(value)" : value
            }
            let children = (0..<r.int(1...300)).map { child("c\($0)", $0) }
            let separator = r.pick([",\n    ", ", ", ","])
            /// `fault`: a comma lost (0), doubled (1), leading (2) or left over (3), or a blank line
            /// after it (4, no fault: whitespace alone); `draw` picks the comma.
            func document(_ list: [String], fault: (kind: Int, draw: Int)? = nil) -> [UInt8] {
                var body = list.joined(separator: separator)
                if let fault {
                    let commas = body.indices.filter { body[$0] == "," }
                    switch commas.isEmpty ? 2 : fault.kind {
                    case 0: body.remove(at: commas[fault.draw % commas.count])
                    case 1: body.insert(",", at: commas[fault.draw % commas.count])
                    case 2: body = "," + body
                    case 3: body += ","
                    default: body.insert(contentsOf: "\n\n", at: body.index(after: commas[fault.draw % commas.count]))
                    }
                }
                let (open, close) = isObject ? ("{", "}") : ("[", "]")
                return Array("{\"head\": 1, \"items\": \(open)\(body)\(close), \"tail\": [true]}".utf8)
            }
            let old = document(children)
            let doc = try JSONDocument(parsing: old)
            var edited = children
            let at = r.int(0...children.count), cut = r.int(0...min(children.count - at, r.pick([1, 3, 300])))
            // New keys: fresh, another child's (kept or cut), or one spelled with an escape.
            let added = (0..<r.int(0...3)).map { j -> String in
                let key = r.pick(["n\(j)", "n\(j)", "n\(j)", "c\(r.int(0..<children.count))", "c\\u003\(r.int(0...9))", "n\\u0030"])
                return child(key, 1_000 + j)
            }
            edited.replaceSubrange(at..<(at + cut), with: added)
            let fault = r.chance(0.2) ? (kind: r.int(0..<5), draw: r.int(0...1_000_000)) : nil
            let new = document(edited, fault: fault)
            let full = Self.outcome { () throws(JSONParseError) in try JSONDocument(parsing: new) }
            #expect(Self.outcome { () throws(JSONParseError) in try doc.reparsing(new) } == full, "seed \(seed)")
            let prefix = zip(old, new).prefix { $0 == $1 }.count
            let suffix = min(zip(old.reversed(), new.reversed()).prefix { $0 == $1 }.count, min(old.count, new.count) - prefix)
            for piecesFrom in [1, Int.max] {
                guard let again = doc.reparsedInPlace(DocumentBytes(new), prefix: prefix, suffix: suffix, tuning: .tuned, splitFrom: 1,
                                                      piecesFrom: piecesFrom)
                else { continue }
                #expect(Self.outcome { () throws(JSONParseError) in again } == full, "seed \(seed), pieces from \(piecesFrom)")
                if piecesFrom == 1 { inPlace += 1 }
            }
            if !full.hasPrefix("error") && fault == nil && new != old { valid += 1 }
        }
        // Most valid edits are re-parsed in place (not those with a key twice, nor the few whose
        // run is most of the file).
        #expect(valid > 300 && inPlace > valid / 2, "\(inPlace) re-parsed in place of \(valid) valid edits")
    }

    /// A chain of edits to an object whose keys increase, more than half the file: children
    /// inserted in key order (the keys then need no comparison with the others), beside the
    /// last one with its key again, out of order, removed, or a key changed; and, while some
    /// key is out of order, that key again where it would be in order. Each revision is what a
    /// full parse gives, and those inserted in key order into keys in order are re-parsed in place.
    @Test func aChainOfInsertsInKeyOrderGivesWhatAFullParseGives() throws {
        var r = SplitMix64(seed: 0x5D3E)
        var keys = (0..<1_500).map { "c" + String(100_000 + $0).dropFirst() }
        func document(_ keys: [String]) -> [UInt8] {
            Array(("{\"items\": {" + keys.map { "\"\($0)\": [\($0.count)]" }.joined(separator: ",\n") + "}, \"t\": 1}").utf8)
        }
        func precedes(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }
        var bytes = document(keys)
        var doc = try JSONDocument(parsing: bytes)
        var inOrder = 0, strays: [String] = []
        for step in 0..<300 {
            let i = r.int(0..<keys.count)
            let sorted = zip(keys, keys.dropFirst()).allSatisfy { precedes($0, $1) }
            var ordered = false
            switch r.int(0..<11) {
            case 0...5:
                // After child i, a key between it and the next.
                keys.insert(keys[i] + "m\(step)", at: i + 1)
                ordered = sorted
            case 6: keys.insert(keys[i], at: i + 1)
            case 7:
                keys.insert("b\(step)", at: i + 1)
                strays.append("b\(step)")
            case 8: keys.removeSubrange(i..<min(keys.count, i + r.int(1...3)))
            case 9: keys[i] = "z\(step)"
            default:
                // A key out of order, again where it would be in order (before every "c" key).
                guard let stray = strays.last(where: keys.contains) else { continue }
                keys.insert(stray, at: keys.firstIndex { precedes(stray, $0) } ?? keys.count)
            }
            let old = doc
            bytes = document(keys)
            if ordered {
                #expect(old.reparsedInPlace(DocumentBytes(bytes)) != nil, "step \(step): parsed whole")
                inOrder += 1
            }
            doc = try old.reparsing(bytes)
            #expect(SampledReparsingTests.sameTape(doc, try JSONDocument(parsing: bytes)), "step \(step): not what a full parse gives")
            // Now and then back in key order, each key once.
            if r.chance(0.2) {
                keys = Array(Set(keys)).sorted(by: precedes)
                bytes = document(keys)
                doc = try doc.reparsing(bytes)
                #expect(SampledReparsingTests.sameTape(doc, try JSONDocument(parsing: bytes)), "step \(step): sorted again")
            }
        }
        #expect(inOrder > 60, "\(inOrder) inserted in order")
    }

    /// An object noted as having its keys in order, re-parsed alone once it is under half the
    /// file with a key renamed to one as long (the tape's entries the same), is no longer noted:
    /// a later insert of that key in order is a duplicate, and the re-parse says so.
    @Test func aKeyRenamedInPlaceEndsTheOrderNoted() throws {
        let keys = ["k1", "k2", "k3", "k4", "k6"] + (0..<400).map { "m" + String(10_000 + $0).dropFirst() }
        func text(_ keys: [String], pad: Int) -> [UInt8] {
            let strings = (0..<pad).map { _ in "\"" + String(repeating: "x", count: 1_000) + "\"" }
            return Array(("{\"items\": {" + keys.map { "\"\($0)\": 1" }.joined(separator: ", ") + "}, \"pad\": ["
                          + strings.joined(separator: ", ") + "]}").utf8)
        }
        var inserted = keys
        inserted.insert("k4a", at: 4)
        var renamed = inserted
        renamed[0] = "k5"
        var again = renamed
        again.insert("k5", at: 5)
        // In order (noted); the file grown a string at a time until the object is under half of
        // it; a key renamed (the object re-parsed alone); shrunk; the renamed key inserted in order.
        let states = [text(inserted, pad: 0)] + (1...8).map { text(inserted, pad: $0) } + [text(renamed, pad: 8)]
            + (0...7).reversed().map { text(renamed, pad: $0) } + [text(again, pad: 0)]
        var doc = try JSONDocument(parsing: text(keys, pad: 0))
        for (step, next) in states.enumerated() {
            let old = doc
            doc = try doc.reparsing(next)
            #expect(SampledReparsingTests.sameTape(doc, try JSONDocument(parsing: next)), "step \(step)")
            if step + 1 < states.count {
                #expect(doc.reparsedBytes(since: old) != nil, "step \(step): parsed whole")
                #expect(doc.childSamples.keysIncrease(3) == (step < 9), "step \(step)")
            }
        }
        #expect(doc.withTapeReader { tape in tape.isShadowed(tape.firstChild(3)) })
    }

    /// Tuned, a large tape is spliced by two threads (the second takes the last half of the
    /// entries copied: of those after the edit, then of those before it): wherever the edit
    /// falls and whatever length it changes, the tape is a full parse's.
    @Test func aTapeSplicedByTwoThreadsIsAFullParse() throws {
        let children = (0..<400).map { "\"c\($0)\": {\"name\": \"n\($0)\", \"score\": \($0)}" }
        let old = Array(("{\"items\": {" + children.joined(separator: ",\n") + "}, \"tail\": [1, 2]}").utf8)
        let doc = try JSONDocument(parsing: old)
        try forEachSeed(30, base: 0x5B1C) { seed, r in
            var edited = children
            let k = r.int(0..<children.count)
            edited[k] = r.pick(["\"c\(k)\": {\"name\": \"n\", \"score\": 12345678}", "\"c\(k)\": {\"s\": [1, {\"x\": 2}], \"t\": 3}",
                                "\"c\(k)\": {\"name\": \"n\(k)!\", \"score\": \(k)}"])
            let new = Array(("{\"items\": {" + edited.joined(separator: ",\n") + "}, \"tail\": [1, 2]}").utf8)
            let prefix = zip(old, new).prefix { $0 == $1 }.count
            let suffix = zip(old.reversed(), new.reversed()).prefix { $0 == $1 }.count
            let spliced = try #require(doc.reparsedInPlace(DocumentBytes(new), prefix: prefix,
                                                           suffix: min(suffix, min(old.count, new.count) - prefix),
                                                           tuning: .tuned, splitFrom: 1))
            #expect(Self.outcome { () throws(JSONParseError) in spliced } == Self.outcome { () throws(JSONParseError) in
                try JSONDocument(parsing: new)
            }, "seed \(seed): child \(k)")
        }
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
        let again = try #require(doc.reparsedInPlace(DocumentBytes(new)))
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
        #expect(doc.reparsedInPlace(DocumentBytes(new)) == nil)
        #expect(throws: JSONParseError.self) { try doc.reparsing(new) }
    }

    /// The shared ends as the naive definition gives them (the suffix at most the rest of the shorter).
    static func naiveEnds(_ a: [UInt8], _ b: [UInt8]) -> (prefix: Int, suffix: Int) {
        var p = 0
        while p < min(a.count, b.count) && a[p] == b[p] { p += 1 }
        var s = 0
        while s < min(a.count, b.count) - p && a[a.count - 1 - s] == b[b.count - 1 - s] { s += 1 }
        return (p, s)
    }

    @Test func measuredEndsGiveWhatAFullParseGivesAndAreKept() throws {
        try forEachSeed(1_000, base: 0x16) { seed, r in
            let old = Self.document(&r)
            let doc = try JSONDocument(parsing: old)
            var new = old
            new.replaceSubrange(JSONNode(document: doc, index: r.pick(doc.nodeIndexes)).byteRange, with: Self.replacement(&r))
            let ends = Self.naiveEnds(old, new)
            let full = Self.outcome { () throws(JSONParseError) in try JSONDocument(parsing: new) }
            let again = Self.outcome { () throws(JSONParseError) in
                try doc.reparsing(DocumentBytes(new), sharedPrefix: ends.prefix, sharedSuffix: ends.suffix)
            }
            #expect(again == full, "seed \(seed)")
            // A later stage reads the ends back instead of comparing the bytes again.
            if let next = try? doc.reparsing(new), next !== doc {
                let kept = try #require(next.sharedEnds(with: doc))
                #expect(kept.prefix == ends.prefix && kept.suffix == ends.suffix, "seed \(seed)")
                #expect(next.sharedEnds(with: next) == nil && doc.sharedEnds(with: next) == nil)
            }
        }
    }

    @Test func entriesAfterTheEditKeepTheirKindsAtTheStartOfTheTape() throws {
        // The empty arrays at tape indexes 2 and 3 have next indexes of 3 and 4, within the range
        // of string flags: their kind is read from their bytes. The escaped string's flag stays.
        let old = Array(#"[[], [], [], "\u0041", {"k": []}]"#.utf8)
        let doc = try JSONDocument(parsing: old)
        for new in [#"[[1], [], [], "\u0041", {"k": []}]"#, #"[[], [{"a": 1}], [], "\u0041", {"k": []}]"#] {
            let bytes = Array(new.utf8)
            let again = try #require(doc.reparsedInPlace(DocumentBytes(bytes)))
            #expect(Self.outcome { () throws(JSONParseError) in again } == Self.outcome { () throws(JSONParseError) in
                try JSONDocument(parsing: bytes)
            })
        }
    }

    @Test func aChainOfLargeReparsesReusesTapeMemoryCorrectly() throws {
        // Tapes over the mapping threshold: each document dropped leaves its mapping as the spare
        // that the next re-parse fills; every state must still equal a full parse.
        let strings = Array(repeating: #""abcd""#, count: 800_000).joined(separator: ",")
        var bytes = Array((#"{"big": ["# + strings + #"], "small": {"a": [1, 2]}}"#).utf8)
        var doc = try JSONDocument(parsing: bytes)
        for step in 0..<4 {
            bytes.replaceSubrange((bytes.count - 2)..<(bytes.count - 2), with: Array(#", "s\#(step)": [\#(step)]"#.utf8))
            let next = try doc.reparsing(bytes)
            doc = next  // the previous document goes, and its tape memory with it
            #expect(doc.root[key: "small"]?[key: "s\(step)"]?[index: 0]?.doubleValue == Double(step))
            #expect(Self.outcome { () throws(JSONParseError) in doc } == Self.outcome { () throws(JSONParseError) in
                try JSONDocument(parsing: bytes)
            }, "step \(step)")
        }
    }

    @Test func anEditThatMovesNoNodeSharesTheTape() throws {
        // Same-length edits: digits, letters in strings, an escape for a letter (which must not be
        // shared: the string's escape mark changes), a key's letter. Every result equals a full
        // parse; the tape is shared exactly when the full parse's tape is the old one's.
        var shared = 0
        try forEachSeed(1_000) { seed, r in
            let old = Self.document(&r)
            let doc = try JSONDocument(parsing: old)
            var new = old
            let candidates = old.indices.filter { old[$0] >= UInt8(ascii: "0") && old[$0] <= UInt8(ascii: "9") || old[$0] >= UInt8(ascii: "a") && old[$0] <= UInt8(ascii: "z") }
            guard let at = candidates.isEmpty ? nil : candidates[r.int(0..<candidates.count)] else { return }
            let b = old[at]
            new[at] = b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") ? UInt8(ascii: "0") + (b - UInt8(ascii: "0") + 1) % 10
                : r.chance(0.1) ? UInt8(ascii: "\\") : UInt8(ascii: "a") + (b - UInt8(ascii: "a") + 1) % 26
            let full = Self.outcome { () throws(JSONParseError) in try JSONDocument(parsing: new) }
            var again: JSONDocument?
            #expect(Self.outcome { () throws(JSONParseError) in
                let d = try doc.reparsing(new)
                again = d
                return d
            } == full, "seed \(seed)")
            if let again, again.tape === doc.tape {
                shared += 1
                #expect(Self.outcome { () throws(JSONParseError) in doc } == full, "seed \(seed): shared a tape that differs")
                #expect(again.bytes.array == new)
            }
        }
        #expect(shared > 300, "only \(shared) edits shared their tape")
    }

    @Test func revisionsReadIntoRecycledBlocksKeepTheirBytes() throws {
        // Blocks over the mapping threshold: each revision dropped leaves its block as a spare that
        // the next one takes; a revision still alive is never written over.
        let base = Array(repeating: UInt8(ascii: "a"), count: 12 << 20)
        var kept: [(DocumentBytes, [UInt8])] = []
        for step in 0..<6 {
            var expected = base
            expected[step * 1000] = UInt8(ascii: "0") + UInt8(step)
            let block = ByteBlock(capacity: expected.count + 1)
            expected.withUnsafeBufferPointer { block.base.update(from: $0.baseAddress!, count: $0.count) }
            let bytes = DocumentBytes(block: block, count: expected.count)
            if step % 2 == 0 { kept.append((bytes, expected)) }
        }
        for (bytes, expected) in kept { #expect(bytes.array == expected) }
    }
}

/// Edits re-parsed one from the other, as a followed file is, through containers large enough
/// to be sampled (`ChildSamples`): each revision equals a full parse, an edit inside one child
/// re-parses that child alone, and the samples carried from revision to revision are the ones
/// a fresh walk of the children gives.
@Suite struct SampledReparsingTests {
    static func member(_ k: Int, _ r: inout SplitMix64) -> String {
        "\"k\(k)\": {\"v\": \(r.int(0...99_999)), \"s\": \"\(String(repeating: "x", count: r.int(0...6)))\"}"
    }

    static func sameTape(_ a: JSONDocument, _ b: JSONDocument) -> Bool {
        a.tape.count == b.tape.count && a.tape.rootNext == b.tape.rootNext && a.tape.rootEnd == b.tape.rootEnd
            && (0..<a.tape.count).allSatisfy { a.tape[$0].start == b.tape[$0].start && a.tape[$0].word == b.tape[$0].word }
    }

    /// `{"big": {…}, "list": […], "tail": {"a": 1}}`: `count` members in "big" and `count`
    /// elements in "list", element `i` as `element` writes it.
    static func chainDocument(_ count: Int, _ r: inout SplitMix64, element: (Int, inout SplitMix64) -> String) -> [UInt8] {
        let big = (0..<count).map { Self.member($0, &r) }.joined(separator: ",\n")
        let list = (0..<count).map { element($0, &r) }.joined(separator: ", ")
        return Array("{\"big\": {\(big)}, \"list\": [\(list)], \"tail\": {\"a\": 1}}".utf8)
    }

    /// The tape index of the value at `key` of the root, and whether it is an object.
    static func container(_ doc: JSONDocument, _ key: String) -> (index: Int, isObject: Bool)? {
        guard let node = doc.root[key: key] else { return nil }
        return (node.index, node.kind == .object)
    }

    @Test func aChainOfEditsThroughLargeContainersKeepsSamplesOfItsChildren() throws {
        var r = SplitMix64(seed: 0x5A3B)
        var bytes = Self.chainDocument(6_000, &r) { i, r in "[\(i), \(r.int(0...9))]" }
        var doc = try JSONDocument(parsing: bytes)
        var partial = 0, sampled = 0
        for step in 0..<300 {
            let old = doc
            switch r.int(0..<12) {
            case 0...3:
                // A value inside one member of "big": same length or not.
                let k = r.int(0..<6_000)
                let value = try #require(doc.root[key: "big"]?[key: "k\(k)"]?[key: "v"])
                bytes.replaceSubrange(value.byteRange, with: Array("\(r.chance(0.5) ? r.int(0...9) : r.int(100_000...999_999_999))".utf8))
            case 4, 5:
                // A member added inside one member of "big".
                let k = r.int(0..<6_000)
                let object = try #require(doc.root[key: "big"]?[key: "k\(k)"])
                bytes.insert(contentsOf: Array(", \"n\(step)\": [\(step)]".utf8), at: object.byteRange.upperBound - 1)
            case 6...8:
                // An element inside one element of "list".
                let i = r.int(0..<6_000)
                let element = try #require(doc.root[key: "list"]?[index: i]?[index: 1])
                bytes.replaceSubrange(element.byteRange, with: Array("\(r.int(0...99_999))".utf8))
            case 9, 10:
                // After both large containers.
                let tail = try #require(doc.root[key: "tail"]?[key: "a"])
                bytes.replaceSubrange(tail.byteRange, with: Array("[\(step), \(step)]".utf8))
            default:
                // A member of "big" added: its run of members is re-parsed, not its container.
                let object = try #require(doc.root[key: "big"])
                bytes.insert(contentsOf: Array("\"added\(step)\": \(step), ".utf8), at: object.byteRange.lowerBound + 1)
            }
            #expect(old.reparsedInPlace(DocumentBytes(bytes)) != nil, "step \(step): parsed whole")
            partial += 1
            doc = try old.reparsing(bytes)
            #expect(Self.sameTape(doc, try JSONDocument(parsing: bytes)), "step \(step): not what a full parse gives")
            for key in ["big", "list"] {
                guard let (index, isObject) = Self.container(doc, key), let samples = doc.childSamples.samples(of: index) else { continue }
                sampled += 1
                // Some of its children, in order (after a run of members spliced, not every 64th).
                let children = Set(doc.withTapeReader { ChildSamples.sample(index, isObject: isObject, end: $0.nextIndex(index), $0, every: 1) })
                #expect(samples.allSatisfy(children.contains) && zip(samples, samples.dropFirst()).allSatisfy { $0 < $1 },
                        "step \(step): the samples of \(key) are not its children's")
            }
        }
        #expect(partial > 250 && sampled > 200, "\(partial) partial re-parses, \(sampled) sampled containers checked")
    }

    /// Every node as a `TapeReader` reads it: where it starts and ends, and its next index.
    static func readerOutcome(_ doc: JSONDocument) -> [Int] {
        doc.withTapeReader { tape in
            (0..<tape.count).flatMap { i in [tape.start(i), tape.end(i), tape.nextIndex(i), tape.hasEscapes(i) ? 1 : 0, tape.isShadowed(i) ? 1 : 0] }
        }
    }

    /// Spliced as pieces that share the last tapes' memory (every tape here, as large tapes
    /// are): a chain of edits, most of which move entries, one to four levels down, gives at
    /// every step what a full parse gives, read through the tape or a `TapeReader`; the
    /// revisions kept still read as they did when made (nothing shared was written over); and
    /// a chain long enough is made flat again, by two threads and by one.
    @Test func aChainOfEditsSplicedAsPiecesIsAFullParseAtEveryStep() throws {
        var r = SplitMix64(seed: 0x91EC)
        var bytes = Self.chainDocument(800, &r) { i, r in "[\(i), {\"d\": [\(r.int(0...9))]}]" }
        var doc = try JSONDocument(parsing: bytes)
        var kept: [(doc: JSONDocument, outcome: [Int])] = []
        var pieced = 0, madeFlat = [0, 0]
        for step in 0..<240 {
            let old = doc
            switch r.int(0..<5) {
            case 0, 1:
                let k = r.int(0..<800)
                let value = try #require(doc.root[key: "big"]?[key: "k\(k)"]?[key: "v"])
                bytes.replaceSubrange(value.byteRange, with: Array("\(r.chance(0.5) ? r.int(0...9) : r.int(100_000...999_999_999))".utf8))
            case 2:
                let k = r.int(0..<800)
                let object = try #require(doc.root[key: "big"]?[key: "k\(k)"])
                bytes.insert(contentsOf: Array(", \"n\(step)\": [\(step), {}]".utf8), at: object.byteRange.upperBound - 1)
            case 3:
                // Three levels down: an array inside an object inside an element of "list".
                let i = r.int(0..<800)
                let inner = try #require(doc.root[key: "list"]?[index: i]?[index: 1]?[key: "d"])
                bytes.replaceSubrange(inner.byteRange, with: Array((r.chance(0.5) ? "[]" : "[\(step), [\(step)], \"s\"]").utf8))
            default:
                let tail = try #require(doc.root[key: "tail"]?[key: "a"])
                bytes.replaceSubrange(tail.byteRange, with: Array("[\(step), \(step)]".utf8))
            }
            // A tape made flat is copied by two threads, then by one, in turn.
            let twoThreads = madeFlat[1] <= madeFlat[0]
            let spliced = old.reparsedInPlace(DocumentBytes(bytes), tuning: .tuned, splitFrom: twoThreads ? 1 : .max, piecesFrom: 1)
            doc = try #require(spliced, "step \(step): parsed whole")
            let full = try JSONDocument(parsing: bytes)
            #expect(Self.sameTape(doc, full), "step \(step): not what a full parse gives")
            #expect(Self.readerOutcome(doc) == Self.readerOutcome(full), "step \(step): read otherwise through a TapeReader")
            if doc.tape.pieceList.count > 1 { pieced += 1 } else if old.tape.pieceList.count > 1 { madeFlat[twoThreads ? 1 : 0] += 1 }
            if step % 40 == 0 { kept.append((doc, Self.readerOutcome(doc))) }
        }
        for (k, revision) in kept.enumerated() {
            #expect(Self.readerOutcome(revision.doc) == revision.outcome, "kept revision \(k) changed")
        }
        #expect(pieced > 150 && madeFlat[0] >= 2 && madeFlat[1] >= 2, "\(pieced) tapes in pieces, made flat \(madeFlat) times (by one thread, by two)")
    }
}
