import JSONTree
import Testing
@testable import LiveQuery
import TestSupport

@Suite struct WindowTests {
    func window(_ json: String, _ path: String = "/", _ query: Query = Query()) throws -> Window {
        Window(query: query, path: try Path(path), document: try JSONDocument(parsing: json))
    }

    func keys(_ w: Window) -> [String] { w.keys }

    @Test func childrenOfObjectsAndArrays() throws {
        // Metadata members and nulls are not children; array elements are keyed by index.
        let w = try window(#"{"b":1,".priority":5,"a":null,".value":2,"c":{"x":1}}"#)
        #expect(keys(w) == ["b", "c"])
        let a = try window(#"{"list":["x",null,"z",{"k":1}]}"#, "/list")
        #expect(keys(a) == ["0", "2", "3"])
        #expect(a.value(at: 1).stringValue == "z")
    }

    @Test func missingPathOrLeafIsEmpty() throws {
        #expect(try window(#"{"a":{"b":1}}"#, "/nope").isEmpty)
        #expect(try window(#"{"a":{"b":1}}"#, "/a/b").isEmpty)
        #expect(try window(#"{"a":{"b":1}}"#, "/a/b/c").isEmpty)
        #expect(try window(#"5"#).isEmpty)
        #expect(try window(#"{"a":{"b":1}}"#, "/a").keys == ["b"])
    }

    @Test func defaultOrderIsPriorityThenKey() throws {
        let json = #"{"z":{".priority":1},"y":{".priority":"a"},"x":{},"w":{".priority":0.5},"b":2,"a":{".priority":true}}"#
        // null priorities (x, b, a: a boolean is no priority) by key, then numbers, then strings.
        #expect(try keys(window(json)) == ["a", "b", "x", "w", "z", "y"])
        #expect(try keys(window(#"{"b":1,"10":1,"a":1,"9":1}"#)) == ["9", "10", "a", "b"])
    }

    @Test func valueOrderAcrossKinds() throws {
        let json = #"{"s":"a","o":{"x":1},"n":2,"t":true,"f":false,"m":-1,"arr":[1],"e":"","u":"é"}"#
        let w = try window(json, "/", Query().orderByValue())
        #expect(keys(w) == ["f", "t", "m", "n", "e", "s", "u", "arr", "o"])
    }

    @Test func childOrderWithNestedPathAndMissingValues() throws {
        let json = #"{"a":{"m":{"v":3}},"b":{"m":{"v":1}},"c":{"m":{}},"d":{"m":{"v":"x"}},"e":5}"#
        let w = try window(json, "/", Query().orderByChild("m/v"))
        #expect(keys(w) == ["c", "e", "b", "a", "d"])
    }

    @Test func stringsByUTF16CodeUnits() throws {
        // U+1F600 (surrogates D83D DE00) sorts before U+FF61 in UTF-16, after it by code point.
        let json = #"{"a":"\uff61","b":"😀","c":"é","d":"e\u0301"}"#
        #expect(try keys(window(json, "/", Query().orderByValue())) == ["d", "c", "b", "a"])
    }

    @Test func boundsWithAndWithoutKeys() throws {
        let json = #"{"a":1,"b":1,"c":2,"d":2,"e":3}"#
        let byValue = try Query().orderByValue()
        #expect(try keys(window(json, "/", byValue.startAt(2))) == ["c", "d", "e"])
        #expect(try keys(window(json, "/", byValue.startAt(1, key: "b"))) == ["b", "c", "d", "e"])
        // startAfter(v) without a key excludes every child equal to v.
        #expect(try keys(window(json, "/", byValue.startAfter(1))) == ["c", "d", "e"])
        #expect(try keys(window(json, "/", byValue.startAfter(1, key: "a"))) == ["b", "c", "d", "e"])
        #expect(try keys(window(json, "/", byValue.endAt(2))) == ["a", "b", "c", "d"])
        #expect(try keys(window(json, "/", byValue.endAt(2, key: "c"))) == ["a", "b", "c"])
        #expect(try keys(window(json, "/", byValue.endBefore(2))) == ["a", "b"])
        #expect(try keys(window(json, "/", byValue.endBefore(2, key: "d"))) == ["a", "b", "c"])
        #expect(try keys(window(json, "/", byValue.equalTo(2))) == ["c", "d"])
        #expect(try keys(window(json, "/", byValue.equalTo(2, key: "d"))) == ["d"])
        let byKey = try Query().orderByKey()
        #expect(try keys(window(json, "/", byKey.startAt("b").endBefore("e"))) == ["b", "c", "d"])
        #expect(try keys(window(json, "/", byKey.startAfter("b").endAt("d"))) == ["c", "d"])
    }

    @Test func limitsKeepFirstOrLastInAscendingOrder() throws {
        let json = #"{"a":5,"b":1,"c":4,"d":2,"e":3}"#
        let q = try Query().orderByValue()
        #expect(try keys(window(json, "/", q.limitToFirst(2))) == ["b", "d"])
        #expect(try keys(window(json, "/", q.limitToLast(2))) == ["c", "a"])
        #expect(try keys(window(json, "/", q.startAt(2).limitToFirst(10))) == ["d", "e", "c", "a"])
    }

    @Test func distinctKeysThatSwiftCallsEqual() throws {
        let w = try window(#"{"é":1,"e\u0301":2}"#, "/", Query().orderByKey())
        #expect(w.count == 2)
        #expect(w.index(ofKey: "é") == 1)
        #expect(w.index(ofKey: "e\u{301}") == 0)
        #expect(w.index(ofKey: "e") == nil)
    }

    @Test func keyLookup() throws {
        let w = try window(#"{"x":3,"y":1,"z":2}"#, "/", Query().orderByValue())
        #expect(w.index(ofKey: "x") == 2)
        #expect(w.index(ofKey: "y") == 0)
        #expect(w.index(ofKey: "w") == nil)
        #expect(w[1].key == "z")
        #expect(w[1].value.doubleValue == 2)
    }

    @Test func duplicateKeysLastWins() throws {
        let w = try window(#"{"a":1,"b":2,"a":3}"#, "/", Query().orderByValue())
        #expect(keys(w) == ["b", "a"])
        #expect(w.value(at: 1).doubleValue == 3)
    }

    /// A child's ordered member is its last duplicate, however the key is spelled, in a list
    /// long enough to be selected with a cut (its values read before its keys).
    @Test func duplicateMembersOfAChildLastWins() throws {
        // a, b and c come after the cut is made (a list is cut from 1,024 children held).
        var members = (0..<1500).map { "\"k\($0)\":{\"s\":\(10 + $0 % 50),\"s\":\(20 + $0 % 70)}" }
        members += [#""a":{"s":5,"t":0,"s":1}"#, #""b":{"s":2}"#, #""c":{"\u0073":9,"s":0,"u":{"s":7}}"#]
        let doc = try JSONDocument(parsing: "{" + members.joined(separator: ",") + "}")
        for q in [try Query().orderByChild("s").limitToFirst(3), try Query().orderByChild("s").limitToLast(30)] {
            let w = Window(query: q, document: doc)
            #expect(rows(w) == refWindow(q, doc.root.json, .root), "\(q)")
        }
        #expect(keys(Window(query: try Query().orderByChild("s").limitToFirst(3), document: doc)) == ["c", "a", "b"])
    }

    @Test func largeLimitedWindowsSelectCorrectly() throws {
        // Enough children to go through selection and the reserve (more than limit + reserve).
        var rng = SplitMix64(seed: 42)
        var members = [String]()
        for i in 0..<1500 { members.append("\"k\(i)\":\(rng.int(0..<500))") }
        let doc = try JSONDocument(parsing: "{" + members.joined(separator: ",") + "}")
        let root = doc.root.json
        for q in [try Query().orderByValue().limitToFirst(7), try Query().orderByValue().limitToLast(40),
                  try Query().orderByValue().startAt(100).endAt(300).limitToLast(1000), try Query().orderByKey().limitToFirst(1200)] {
            let w = Window(query: q, document: doc)
            #expect(rows(w) == refWindow(q, root, .root), "\(q)")
            #expect(w.invariantViolations().isEmpty, "\(q)")
        }
    }

    @Test func matchesReferenceOnRandomTrees() {
        forEachSeed(500) { seed, rng in
            let items = randomCollection(&rng)
            let asArray = rng.chance(0.2)
            let (doc, root) = document(documentText(items, asArray: asArray, pretty: rng.chance(0.5)))
            let q = randomQuery(&rng)
            let w = Window(query: q, path: itemsPath, document: doc)
            let expected = refWindow(q, root, itemsPath)
            #expect(rows(w) == expected, "seed \(seed): \(q)\n got \(w.keys)\n want \(expected.map(\.key))")
            #expect(w.invariantViolations().isEmpty, "seed \(seed): \(w.invariantViolations())")
        }
    }

    /// A limited window over thousands of children keeps only its best children while it reads
    /// (pruned several times over): the same rows, members and boundary as the reference.
    @Test func limitedWindowsOverManyChildrenMatchReference() throws {
        try forEachSeed(24) { seed, rng in
            let items = (0..<5000).map { i -> (key: String, value: JSON) in
                ("c\(rng.int(0..<100_000))-\(i)", rng.chance(0.5) ? .number(JSONNumber(Double(rng.int(0..<300)))) : randomChildValue(&rng))
            }
            var q = randomQuery(&rng)
            if q.limit == nil { q = try q.limitToFirst(rng.int(1..<40)) }
            let (doc, root) = document(documentText(items, asArray: rng.chance(0.2), pretty: false))
            let w = Window(query: q, path: itemsPath, document: doc)
            let expected = refWindow(q, root, itemsPath)
            #expect(rows(w) == expected, "seed \(seed): \(q)\n got \(w.keys)\n want \(expected.map(\.key))")
            #expect(w.invariantViolations().isEmpty, "seed \(seed): \(w.invariantViolations())")
        }
    }

    /// A large list is evaluated by two threads, a half each, each half with sort keys of its
    /// own (escaped keys and strings decoded into its own arena): split in halves at every size
    /// from two children, the same rows, members and boundary as the reference.
    @Test func listsEvaluatedByTwoThreadsMatchReference() {
        forEachSeed(500) { seed, rng in
            let items = rng.chance(0.5) ? randomLargeCollection(&rng) : randomCollection(&rng)
            let (doc, root) = document(documentText(items, asArray: rng.chance(0.2), pretty: rng.chance(0.5)))
            let q = randomQuery(&rng)
            let w = Window.evaluate(q, itemsPath, ChildList(document: doc, path: itemsPath), splitFrom: 2)
            let expected = refWindow(q, root, itemsPath)
            #expect(rows(w) == expected, "seed \(seed): \(q)\n got \(w.keys)\n want \(expected.map(\.key))")
            #expect(w.invariantViolations().isEmpty, "seed \(seed): \(w.invariantViolations())")
            #expect(sameBoundary(w, doc, q), "seed \(seed): \(q)")
        }
    }

    /// Halves of thousands of children, each pruned several times over while it reads, then
    /// joined: the same window as the reference.
    @Test func prunedHalvesMatchReference() throws {
        try forEachSeed(8) { seed, rng in
            let items = (0..<5000).map { i -> (key: String, value: JSON) in
                (rng.chance(0.1) ? "q\"\(i)" : "c\(rng.int(0..<100_000))-\(i)",
                 rng.chance(0.5) ? .number(JSONNumber(Double(rng.int(0..<300)))) : randomChildValue(&rng))
            }
            var q = randomQuery(&rng)
            if q.limit == nil { q = try q.limitToLast(rng.int(1..<700)) }
            let (doc, root) = document(documentText(items, asArray: false, pretty: false))
            let w = Window.evaluate(q, itemsPath, ChildList(document: doc, path: itemsPath), splitFrom: 1000)
            let expected = refWindow(q, root, itemsPath)
            #expect(rows(w) == expected, "seed \(seed): \(q)\n got \(w.keys.prefix(20))\n want \(expected.prefix(20).map(\.key))")
            #expect(w.invariantViolations().isEmpty, "seed \(seed): \(w.invariantViolations())")
            #expect(sameBoundary(w, doc, q), "seed \(seed): \(q)")
        }
        // The first half pruned on its last child to exactly what the window keeps, the second
        // with no child in range: the window still has its boundary.
        let items = (0..<2048).map { i -> (key: String, value: JSON) in
            ("k\(10_000 + i)", ["score": i < 1024 ? .number(JSONNumber(Double(i % 300))) : .string("s")])
        }
        let q = try Query().orderByChild("score").endAt(1000).limitToLast(5)
        let (doc, root) = document(documentText(items, asArray: false, pretty: false))
        let w = Window.evaluate(q, itemsPath, ChildList(document: doc, path: itemsPath), splitFrom: 2)
        #expect(rows(w) == refWindow(q, root, itemsPath))
        #expect(w.boundary != nil && sameBoundary(w, doc, q))
    }

    /// Whether `w` has the boundary a one-thread evaluation of `query` over `doc` gives.
    private func sameBoundary(_ w: Window, _ doc: JSONDocument, _ query: Query) -> Bool {
        let one = Window.evaluate(query, itemsPath, ChildList(document: doc, path: itemsPath), splitFrom: Int.max)
        return String(describing: w.boundary) == String(describing: one.boundary)
    }

    /// A file whose children are already in query order takes the one-pass evaluation (no sort
    /// keys kept per child); its windows must be exactly those of the reference, limits,
    /// boundaries and ranges included.
    @Test func matchesReferenceWhenFileOrderIsQueryOrder() throws {
        try forEachSeed(400) { seed, rng in
            var items = rng.chance(0.5) ? randomLargeCollection(&rng) : randomCollection(&rng)
            let q = randomQuery(&rng)
            // Every child, in the query's order, then the nulls (not children).
            let (_, unordered) = document(documentText(items, asArray: false, pretty: false))
            let order = refWindow(try orderOnly(q), unordered, itemsPath).map(\.key)
            // By code units: "é" and "e\u{301}" are two keys.
            let place = Dictionary(uniqueKeysWithValues: order.enumerated().map { (Array($0.element.utf8), $0.offset) })
            items.sort { (place[Array($0.key.utf8)] ?? Int.max) < (place[Array($1.key.utf8)] ?? Int.max) }
            let (doc, root) = document(documentText(items, asArray: false, pretty: rng.chance(0.5)))
            let w = Window(query: q, path: itemsPath, document: doc)
            let expected = refWindow(q, root, itemsPath)
            #expect(rows(w) == expected, "seed \(seed): \(q)\n got \(w.keys)\n want \(expected.map(\.key))")
            #expect(w.invariantViolations().isEmpty, "seed \(seed): \(w.invariantViolations())")
        }
    }

    /// An array is in key order: limited windows over more children than they keep.
    @Test func arraysByKeyWithLimitsMatchReference() throws {
        let values = (0..<3000).map { i -> JSON in i % 7 == 3 ? .null : .number(JSONNumber(Double(i % 100))) }
        let (doc, root) = document(JSON.object(JSONObject([(key: "items", value: .array(values))])).serializedString())
        for q in [Query(), try Query().orderByKey(), try Query().orderByKey().limitToFirst(7), try Query().limitToLast(40),
                  try Query().orderByKey().startAt("100").limitToLast(1200), try Query().orderByPriority().limitToFirst(1100)] {
            let w = Window(query: q, path: itemsPath, document: doc)
            #expect(rows(w) == refWindow(q, root, itemsPath), "\(q)")
            #expect(w.invariantViolations().isEmpty, "\(q)")
        }
    }
}

/// `query`'s ordering alone: no range, no limit.
private func orderOnly(_ query: Query) throws -> Query {
    switch query.ordering {
    case .priority: try Query().orderByPriority()
    case .key: try Query().orderByKey()
    case .value: try Query().orderByValue()
    case .child(let path): try Query().orderByChild(path)
    case .computed(let value): try Query().orderByComputed(value)
    }
}
