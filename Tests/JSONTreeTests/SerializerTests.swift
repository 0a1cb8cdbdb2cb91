import JSONTree
import Testing
import TestSupport

@Suite struct SerializerTests {
    @Test func roundTripsGeneratedTrees() throws {
        for seed in UInt64(1)...400 {
            var r = SplitMix64(seed: seed)
            let value = Gen.value(&r)
            for style in [JSONStyle.compact, .pretty, .pretty(indent: "\t")] {
                let bytes = value.serialized(style)
                let doc = try JSONDocument(parsing: bytes)
                #expect(doc.root.json == value, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
                #expect(doc.root.valueEquals(value), "seed \(seed)")
            }
        }
    }

    @Test func compactAndPrettyLayouts() {
        let v: JSON = ["a": [1, true, nil], "b": [:], "c": []]
        #expect(v.serializedString() == #"{"a":[1,true,null],"b":{},"c":[]}"#)
        #expect(v.serializedString(.pretty) == """
            {
              "a": [
                1,
                true,
                null
              ],
              "b": {},
              "c": []
            }
            """)
    }

    @Test func escapesWhatJSONRequires() {
        let v = JSON.string("q\"b\\n\n\u{1}\u{7F}é")
        #expect(v.serializedString() == #""q\"b\\n\n\u0001"# + "\u{7F}é\"")
    }

    @Test func equalityIsJSONs() {
        #expect(JSON.string("é") != JSON.string("e\u{301}"))
        #expect(JSON.number(JSONNumber(text: "1.0")!) == JSON.number(JSONNumber(1)))
        let a: JSON = ["x": 1, "y": 2]
        let b: JSON = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(JSONObject([(key: "a", value: 1), (key: "b", value: 2), (key: "a", value: 3)]).keys == ["b", "a"])
    }

    @Test func generatedNumbersReadBackExactly() {
        var r = SplitMix64(seed: 7)
        for _ in 0..<5000 {
            let d = Double(bitPattern: r.next())
            guard d.isFinite else { continue }
            let n = JSONNumber(d)
            #expect(parseJSONNumber(n.text) == d, "\(n.text)")
        }
    }
}
