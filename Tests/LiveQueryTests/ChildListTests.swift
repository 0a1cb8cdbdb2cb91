import JSONTree
import Testing
@testable import LiveQuery
import TestSupport

/// The columns of a child list, for comparing two lists.
func columns(_ l: ChildList) -> [[Int64]] {
    l.document.withTapeReader { tape in
        (0..<l.count).map { o in
            [Int64(l.node(o)), Int64(l.valueIndex(o)), Int64(l.isArray ? l.elementIndex(o) : -1), Int64(l.start(o, tape)), Int64(l.end(o, tape))]
        }
    }
}

@Suite struct ChildListTests {
    func derive(_ old: ChildList, _ doc: JSONDocument, _ path: Path) -> (list: ChildList, prefix: Int, suffix: Int)? {
        let (cp, cs) = old.document.bytes.sharedEnds(with: doc.bytes)
        return ChildList.derived(from: old, document: doc, path: path, commonPrefix: cp, commonSuffix: cs)
    }

    /// A list derived from the previous revision equals the list read in full, and the children
    /// it reports as unchanged at both ends are.
    @Test func derivedListsEqualFullReads() {
        var derivedCount = 0, total = 0
        forEachSeed(400, base: 31337) { seed, rng in
            let asArray = rng.chance(0.25)
            var items = randomCollection(&rng, maxCount: 30)
            let pretty = rng.chance(0.5)
            var old = ChildList(document: document(documentText(items, asArray: asArray, pretty: pretty)).0, path: itemsPath)
            for step in 0..<4 {
                items = randomEdit(items, &rng, keysAreIndexes: asArray)
                // Sometimes a duplicate key (the later one wins), or its removal.
                if !asArray && rng.chance(0.15) && !items.isEmpty {
                    let dup = items[rng.int(0..<items.count)]
                    items.insert((dup.key, randomChildValue(&rng)), at: rng.int(0..<(items.count + 1)))
                }
                let doc = document(documentText(items, asArray: asArray, pretty: pretty)).0
                let full = ChildList(document: doc, path: itemsPath)
                total += 1
                if let d = derive(old, doc, itemsPath) {
                    derivedCount += 1
                    #expect(columns(d.list) == columns(full), "seed \(seed) step \(step)")
                    #expect(d.list.isArray == full.isArray && d.list.hasShadowed == full.hasShadowed)
                    let ot = old
                    old.document.withTapeReader { otape in
                        doc.withTapeReader { ntape in
                            for i in 0..<d.prefix {
                                #expect(ot.sameKey(i, otape, i, of: full, ntape) && ot.sameValue(i, otape, i, of: full, ntape), "seed \(seed) prefix \(i)")
                            }
                            for i in 0..<d.suffix {
                                let o = ot.count - 1 - i, n = full.count - 1 - i
                                #expect(ot.sameKey(o, otape, n, of: full, ntape) && ot.sameValue(o, otape, n, of: full, ntape), "seed \(seed) suffix \(i)")
                            }
                        }
                    }
                } else {
                    #expect(full.hasShadowed || old.hasShadowed || full.count == 0 || old.count == 0 || old.isArray != full.isArray,
                            "seed \(seed) step \(step): not derived without a reason")
                }
                old = full
            }
        }
        // Most revisions are derived (the test would prove nothing otherwise).
        #expect(derivedCount * 2 > total, "\(derivedCount) of \(total) derived")
    }

    /// A growing log: each revision's list is derived from the last derived one, sharing its
    /// buffers and writing past their end. Every list equals a full read, an older list never
    /// changes when a newer one extends it, and two lists derived from the same one do not see
    /// each other's children.
    @Test func listsOfAGrowingLogShareTheirBuffersAndStayExact() {
        var shared = 0
        forEachSeed(60, base: 4242) { seed, rng in
            var builder = JSONLinesBuilder(mode: .lines)
            var old = ChildList(document: builder.document(), path: .root)
            var kept: [(list: ChildList, columns: [[Int64]])] = []
            for step in 0..<30 {
                var text = ""
                for _ in 0..<rng.int(1...4) {
                    text += rng.chance(0.15) ? "\n" : rng.chance(0.2) ? "\(rng.int(0...9))\n" : "{\"n\":\(rng.int(0...99)),\"s\":\"x\"}\n"
                }
                builder.append(Array(text.utf8))
                let doc = builder.document()
                let full = ChildList(document: doc, path: .root)
                guard let d = derive(old, doc, .root) else {
                    Issue.record("seed \(seed) step \(step): an append was not derived")
                    return
                }
                #expect(columns(d.list) == columns(full), "seed \(seed) step \(step)")
                if d.list.nodes != nil && d.list.nodes == old.nodes { shared += 1 }
                if rng.chance(0.2), let other = derive(old, doc, .root) {
                    // A second list from the same old one: its own copy, equally exact.
                    #expect(columns(other.list) == columns(full), "seed \(seed) step \(step): second derivation")
                }
                if rng.chance(0.3) { kept.append((old, columns(old))) }
                old = d.list
            }
            for (list, before) in kept { #expect(columns(list) == before, "seed \(seed): an older list changed") }
        }
        #expect(shared > 600, "only \(shared) lists shared their buffers")
    }

    /// An object parsed on two threads is listed by two (tuned): the list is the one a plain
    /// parse's document lists on one. Mixed:
    /// nulls, metadata keys (one spelled with an escape) and duplicates in both halves. Tight: a
    /// scalar each and nothing left out, so that the second half is written less than a page
    /// after the first and moved onto itself.
    @Test(arguments: [false, true]) func aListReadInHalvesIsTheListReadWhole(tight: Bool) throws {
        var rng = SplitMix64(seed: 61)
        var members: [String] = []
        var bytes = 0
        while bytes < 17 << 20 {
            let k = members.count
            let key = tight ? "m\(k)" : rng.chance(0.02) ? "m\(rng.int(0...k))" : rng.chance(0.01) ? ".p\(k)"
                : rng.chance(0.01) ? "\\u002ep\(k)" : "m\(k)"
            let value = tight ? "\(k)" : rng.chance(0.05) ? "null" : rng.chance(0.8) ? "\(rng.int(0..<1000))" : "{\"score\": \(k)}"
            members.append("\"\(key)\": \(value)")
            bytes += members[k].utf8.count + 4
        }
        let text = DocumentBytes(Array(("{\"items\": {\n  " + members.joined(separator: ",\n  ") + "\n}}").utf8))
        let doc = try JSONDocument.parsedOnTwoThreads(text), plain = try JSONDocument(parsing: text, tuning: .plain)
        let node = try #require(doc.root.node(at: itemsPath))
        let middle = try #require(doc.memberNearMiddle(of: node.index))
        #expect(middle > node.index + 2)
        let halves = ChildList(document: doc, path: itemsPath, splitFrom: splitCount(.tuned))
        let whole = ChildList(document: plain, path: itemsPath, splitFrom: splitCount(.plain))
        #expect(whole.count > 100_000 && whole.hasShadowed == !tight)
        #expect(halves.count == whole.count && halves.hasShadowed == whole.hasShadowed)
        let (a, b) = (columns(halves), columns(whole))
        let difference = a.indices.first { $0 >= b.count || a[$0] != b[$0] }
        #expect(difference == nil, "first difference at ordinal \(difference ?? -1)")
    }

    /// A document whose only metadata keys (one spelled with an escape) are in the half the
    /// parse's second thread read: the list still leaves them out (the parse notes such keys;
    /// where there are none, the list reads no key).
    @Test func metadataKeysInTheSecondHalfAreLeftOut() throws {
        var members = (0..<1_000_000).map { "\"m\($0)\": \($0)" }
        members[900_000] = "\".p\": 1"
        members[950_000] = "\"\\u002eq\": 2"
        let doc = try JSONDocument.parsedOnTwoThreads(
            DocumentBytes(Array(("{\"items\": {\n  " + members.joined(separator: ",\n  ") + "\n}}").utf8)))
        let node = try #require(doc.root.node(at: itemsPath))
        #expect(try #require(doc.memberNearMiddle(of: node.index)) < node.index + 2 + 2 * 900_000)
        #expect(doc.mayHaveMetadataKeys)
        for list in [ChildList(document: doc, path: itemsPath, splitFrom: splitCount(.tuned)),
                     ChildList(document: doc, path: itemsPath, splitFrom: splitCount(.plain))] {
            #expect(list.count == members.count - 2)
            #expect(list.key(899_999) == "m899999" && list.key(900_000) == "m900001")
            #expect(list.key(949_998) == "m949999" && list.key(949_999) == "m950001")
        }
        // A "." in a value is not a key's; an escape in a key may hide one.
        #expect(!(try JSONDocument(parsing: Array(#"{"a": 1.5, "b": {"c": ".d"}}"#.utf8))).mayHaveMetadataKeys)
        #expect(try JSONDocument(parsing: Array(#"{"a": 1, "b": {"c\u0065": 2}}"#.utf8)).mayHaveMetadataKeys)
    }

    @Test func duplicateKeysAreDetected() throws {
        let doc = try JSONDocument(parsing: #"{"items":{"a":1,"b":2,"c":3}}"#)
        let old = ChildList(document: doc, path: itemsPath)
        #expect(!old.hasShadowed)
        // A duplicate of "a" added later: "a" at the front is overridden, so it cannot be copied.
        let dup = try JSONDocument(parsing: #"{"items":{"a":1,"b":2,"a":4,"c":3}}"#)
        #expect(derive(old, dup, itemsPath) == nil)
        #expect(ChildList(document: dup, path: itemsPath).hasShadowed)
        #expect(columns(ChildList(document: dup, path: itemsPath)).count == 3)
        // The same edit re-parsed in place (the list's object alone: the rest of the file is
        // longer): "a" at the front lies in the bytes parsed anew, and its flag is read.
        let pad = String(repeating: "x", count: 80)
        let padded = try JSONDocument(parsing: #"{"items":{"a":1,"b":2,"c":3},"pad":"\#(pad)"}"#)
        let again = try padded.reparsing(Array(#"{"items":{"a":1,"b":2,"a":4,"c":3},"pad":"\#(pad)"}"#.utf8))
        #expect(again.reparsedBytes(since: padded) != nil)
        #expect(derive(ChildList(document: padded, path: itemsPath), again, itemsPath) == nil)
    }

    /// An edit inside one child keeps the re-read middle's keys (the path that skips the leading
    /// children's flags): the derived list equals a full read. A middle child renamed to a
    /// leading child's key (raw bytes differ too: an escape) still shadows it. (Whether the skip
    /// was taken is not observable here: the bench's profile shows it.)
    @Test func aMiddleWithItsOldKeysOrANewDuplicate() throws {
        func text(_ members: [(String, Int)]) -> String {
            "{\"items\":{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}}"
        }
        let members = (0..<200).map { ("k\($0)", $0) }
        let old = ChildList(document: try JSONDocument(parsing: text(members)), path: itemsPath)
        var edited = members
        edited[150].1 = 7
        let doc = try JSONDocument(parsing: text(edited))
        let derived = try #require(derive(old, doc, itemsPath))
        #expect(columns(derived.list) == columns(ChildList(document: doc, path: itemsPath)) && !derived.list.hasShadowed)
        #expect(derived.prefix == 150 && derived.suffix == 49)
        for key in ["k3", "\\u006b3"] {
            var renamed = members
            renamed[150].0 = key
            let dup = try JSONDocument(parsing: text(renamed))
            #expect(ChildList(document: dup, path: itemsPath).hasShadowed, "\(key)")
            #expect(derive(old, dup, itemsPath) == nil, "\(key)")
        }
    }

    /// A long suffix of children after the edit, copied with its tape indexes shifted by the
    /// entries the edit added or removed (none, some, fewer), and in an array with nulls its
    /// element indexes shifted by elements inserted too: equal to the list read whole.
    @Test func aLongSuffixIsCopiedShifted() throws {
        func object(_ values: [String]) -> String {
            "{\"items\":{" + values.enumerated().map { "\"k\($0.offset)\":\($0.element)" }.joined(separator: ",") + "}}"
        }
        func array(_ values: [String]) -> String { "{\"items\":[" + values.joined(separator: ",") + "]}" }
        // Child 40 is [0,0] (four tape entries); in the array every seventh element is null, so
        // its list keeps element indexes.
        var members = (0..<600).map { "\($0)" }, elements = (0..<600).map { $0 % 7 == 0 ? "null" : "\($0)" }
        members[40] = "[0,0]"
        elements[40] = "[0,0]"
        let after = { (values: [String]) in values[41...].filter { $0 != "null" }.count }
        var cases: [(name: String, old: String, new: String, suffix: Int)] = []
        for edit in ["[1,2]", "[1,{\"a\":2},3]", "7"] {
            var m = members, e = elements
            m[40] = edit
            e[40] = edit
            cases.append(("object, child 40 → \(edit)", object(members), object(m), after(members)))
            cases.append(("array, element 40 → \(edit)", array(elements), array(e), after(elements)))
        }
        var inserted = elements
        inserted.insert(contentsOf: ["null", "1", "null"], at: 41)
        // Copied shifted, but reported as no suffix: their keys (element indexes) moved.
        cases.append(("array, elements inserted", array(elements), array(inserted), 0))
        for c in cases {
            let old = ChildList(document: try JSONDocument(parsing: c.old), path: itemsPath)
            let doc = try JSONDocument(parsing: c.new)
            let derived = try #require(derive(old, doc, itemsPath), "\(c.name)")
            #expect(columns(derived.list) == columns(ChildList(document: doc, path: itemsPath)), "\(c.name)")
            #expect(derived.suffix == c.suffix, "\(c.name): suffix \(derived.suffix) of \(c.suffix)")
        }
    }

    /// A list whose ordinals are a mapping of their own (over 8 MiB; plain maps blocks that
    /// large) derived across an edit that leaves every member at its tape index (a number one
    /// digit longer) takes the old list's buffer as it is; across one that moves the members
    /// after it (a number becomes an array), it copies. Either way it is the list read in full,
    /// and the lists before it read as they did — also one that had extended the shared buffer
    /// past the old list's end, when a list extends the sharing one in turn.
    @Test func aListWhoseChildrenKeepTheirIndexesSharesTheOldBuffer() throws {
        let n = (1 << 21) + 1024, edited = 1_000_000
        var members = (0..<n).map { "\"k\($0)\":\($0 % 1000)" }
        func document(_ value: String, appending extra: [String] = []) throws -> JSONDocument {
            members[edited] = "\"k\(edited)\":" + value
            return try JSONDocument(parsing: "{\"items\":{" + (members + extra).joined(separator: ",") + "}}")
        }
        func expectRead(_ list: ChildList, _ label: String) {
            let full = ChildList(document: list.document, path: itemsPath)
            #expect(list.count == full.count && (0..<full.count).allSatisfy { list.node($0) == full.node($0) }, "\(label)")
        }
        // The first list's buffer is sized for every entry; the list after it has one of its size.
        let first = ChildList(document: try document("7"), path: itemsPath)
        let old = try #require(derive(first, try document("8"), itemsPath)).list
        for (value, shares) in [("12345678", true), ("[1,2]", false)] {
            let derived = try #require(derive(old, try document(value), itemsPath), "\(value)").list
            #expect((derived.nodes == old.nodes) == shares, "\(value)")
            expectRead(derived, value)
            #expect(derived.value(edited).serialized() == Array(value.utf8), "\(value)")
            expectRead(old, "the old list after \(value)")
        }
        // A list extending a buffer with room (`grown`'s: a list that added children gets room
        // for more), then one sharing it, then one extending that: the last cannot write where
        // the first reads (its second added child sits at another tape index than theirs).
        let grown = try #require(derive(old, try document("8", appending: [#""a":1"#]), itemsPath)).list
        let extended = try #require(derive(grown, try document("8", appending: [#""a":1"#, #""b":2"#, #""e":3"#]), itemsPath)).list
        let sharing = try #require(derive(grown, try document("9", appending: [#""a":1"#]), itemsPath)).list
        #expect(extended.nodes == grown.nodes && sharing.nodes == grown.nodes)
        let extendedAgain = try #require(derive(sharing, try document("9", appending: [#""a":1"#, #""c":[1,2]"#, #""d":2"#]), itemsPath)).list
        expectRead(extendedAgain, "extending the sharing list")
        expectRead(extended, "the first extension")
        expectRead(grown, "the list they extend and share")
    }

    @Test func metadataNullsAndEscapedKeys() throws {
        let doc = try JSONDocument(parsing: #"{"a":null,".priority":1,"\u002ehidden":2,"\u0062":3,"c":4}"#)
        let l = ChildList(document: doc, path: .root)
        #expect((0..<l.count).map { l.key($0) } == ["b", "c"])
    }

    /// An array keeps per child only what its tape does not say: nothing for scalars without
    /// nulls, tape indexes without element indexes when no element is null, both otherwise.
    /// Each list reads the same children as the reference, and derives the next revision's.
    @Test func arraysKeepOnlyWhatTheTapeDoesNotSay() throws {
        let cases: [(text: String, nodes: Bool, indexes: Bool)] = [
            ("[1,2.5,\"x\",true]", false, false),
            ("[1,[],{}]", true, false),  // a container takes two tape entries, even empty
            ("[]", false, false),
            ("[1,{\"a\":[2]},3]", true, false),
            ("[1,null,3]", true, true),
            ("[null,1]", true, true),
            ("[1,2,null]", true, false),
        ]
        for c in cases {
            let doc = try JSONDocument(parsing: c.text)
            let list = ChildList(document: doc, path: .root)
            #expect((list.nodes != nil) == c.nodes && (list.indexes != nil) == c.indexes, "\(c.text)")
            var expected = [(key: String, value: JSON)]()
            for (i, e) in doc.root.elements.enumerated() where !e.isNull { expected.append((String(i), e.json)) }
            #expect((0..<list.count).map { list.key($0) } == expected.map(\.key), "\(c.text)")
            #expect((0..<list.count).map { list.value($0).json } == expected.map(\.value), "\(c.text)")
        }
        // A long array of numbers, one edited: derived from a list that keeps nothing per child.
        let numbers = (0..<500).map { String($0 * 7 % 101) }
        let old = ChildList(document: try JSONDocument(parsing: "[" + numbers.joined(separator: ",") + "]"), path: .root)
        #expect(old.nodes == nil)
        for edit in ["1234", "null", "[5]"] {
            var edited = numbers
            edited[250] = edit
            let doc = try JSONDocument(parsing: "[" + edited.joined(separator: ",") + "]")
            let full = ChildList(document: doc, path: .root)
            let derived = try #require(derive(old, doc, .root), "\(edit)")
            #expect(columns(derived.list) == columns(full), "\(edit)")
        }
    }
}
