import JSONTree
import Testing
import TestSupport

@Suite struct PathTests {
    @Test func parsesAndPrints() throws {
        #expect(try Path("/").isRoot)
        #expect(try Path("").isRoot)
        #expect(try Path("/users/alice/age").keys == ["users", "alice", "age"])
        #expect(try Path("users//alice/").keys == ["users", "alice"])
        #expect(try Path("/a~1b/c~0d").keys == ["a/b", "c~d"])
        #expect(Path(keys: ["a/b", "c~d"]).description == "/a~1b/c~0d")
        #expect(Path.root.description == "/")
    }

    @Test func splitsAtCodeUnitsNotCharacters() throws {
        // "/" + U+0301 is one Character; it still separates two keys.
        #expect(try Path("/a/\u{301}b").keys == ["a", "\u{301}b"])
        let key = "~\u{301}/"
        #expect(Path(keys: [key]).description == "/~0\u{301}~1")
        #expect(try Path(Path(keys: [key]).description).keys == [key])
    }

    @Test func rejectsBadEscapes() {
        #expect(throws: PathError.self) { try Path("/a~2") }
        #expect(throws: PathError.self) { try Path("/a~") }
    }

    @Test func roundTripsGeneratedKeys() throws {
        var r = SplitMix64(seed: 3)
        for _ in 0..<500 {
            let keys = (0..<Int.random(in: 0...4, using: &r)).map { _ in Gen.string(&r, maxLength: 4) + (Bool.random(using: &r) ? "\u{301}" : "") }
                .filter { !$0.isEmpty }
            let path = Path(keys: keys)
            #expect(try Path(path.description) == path, "\(keys)")
        }
    }

    @Test func looksUpChildrenInTreesAndArrays() throws {
        let doc = try JSONDocument(parsing: #"{"a": {"b/c": [10, 20, {"d": true}]}}"#)
        #expect(doc.root.node(at: try Path("/a/b~1c/1"))?.doubleValue == 20)
        #expect(doc.root.node(at: try Path("/a/b~1c/2/d"))?.boolValue == true)
        #expect(doc.root.node(at: try Path("/a/b~1c/01")) == nil)
        #expect(doc.root.node(at: try Path("/a/x")) == nil)
        let v: JSON = ["a": ["b": [1, 2]]]
        #expect(v[path: try Path("/a/b/1")] == 2)
    }
}

@Suite struct KeyOrderTests {
    @Test func utf16OrderMatchesJavaScript() {
        var r = SplitMix64(seed: 11)
        for _ in 0..<3000 {
            let a = Gen.string(&r), b = Gen.string(&r)
            let expected = Array(a.utf16).lexicographicallyPrecedes(Array(b.utf16)) ? -1 : (Array(a.utf16) == Array(b.utf16) ? 0 : 1)
            #expect(utf16Compare(a, b) == expected, "\(Array(a.unicodeScalars)) vs \(Array(b.unicodeScalars))")
        }
        // U+FFFF sorts after U+1F600 in UTF-16 (surrogates are lower), unlike in UTF-8.
        #expect(utf16Compare("\u{FFFF}", "😀") == 1)
    }

    @Test func keysCompareByCodeUnits() {
        #expect(JSONKey("é") != JSONKey("e\u{301}"))
        #expect(Set([JSONKey("é"), JSONKey("e\u{301}")]).count == 2)
    }
}
