import Testing
@testable import JSONTree

// Minimal edits on hand-written documents, with the exact bytes expected.

/// The document's text after applying `writes`.
private func edited(_ text: String, _ writes: [JSONWrite], serverTime: Int64? = nil) throws -> String {
    let doc = try JSONDocument(parsing: text)
    let result = try doc.applying(writes, serverTime: serverTime)
    return String(decoding: result.bytes, as: UTF8.self)
}


@Suite struct EditPrettyTests {
    let twoSpaces = """
        {
          "a": 1,
          "b": {
            "c": "x"
          }
        }

        """

    @Test func replacingAScalarRewritesOnlyIt() throws {
        #expect(try edited(twoSpaces, set("/a", "z")) == twoSpaces.replacingOccurrences("\"a\": 1", "\"a\": \"z\""))
    }

    @Test func newMemberFollowsItsSiblings() throws {
        #expect(try edited(twoSpaces, set("/b/d", 2)) == """
            {
              "a": 1,
              "b": {
                "c": "x",
                "d": 2
              }
            }

            """)
    }

    @Test func newNestedValueIsIndentedFromItsLine() throws {
        #expect(try edited(twoSpaces, set("/e", ["f": [1, 2]])) == """
            {
              "a": 1,
              "b": {
                "c": "x"
              },
              "e": {
                "f": [
                  1,
                  2
                ]
              }
            }

            """)
    }

    @Test func fourSpacesAndTabsAreFollowed() throws {
        let four = "{\n    \"a\": {\n        \"b\": 1\n    }\n}"
        #expect(try edited(four, set("/a/c", ["d": true])) == "{\n    \"a\": {\n        \"b\": 1,\n        \"c\": {\n            \"d\": true\n        }\n    }\n}")
        let tabs = "{\n\t\"a\": [\n\t\t1\n\t]\n}\n"
        #expect(try edited(tabs, set("/a/1", ["x": 1])) == "{\n\t\"a\": [\n\t\t1,\n\t\t{\n\t\t\t\"x\": 1\n\t\t}\n\t]\n}\n")
    }

    @Test func removingAMemberTakesItsCommaAndLine() throws {
        #expect(try edited(twoSpaces, remove("/a")) == "{\n  \"b\": {\n    \"c\": \"x\"\n  }\n}\n")
        let three = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}"
        #expect(try edited(three, remove("/c")) == "{\n  \"a\": 1,\n  \"b\": 2\n}")
        #expect(try edited(three, remove("/b")) == "{\n  \"a\": 1,\n  \"c\": 3\n}")
        #expect(try edited(three, update("/", [("b", nil), ("c", nil)])) == "{\n  \"a\": 1\n}")
    }

    @Test func removingTheLastChildPrunesEmptyParents() throws {
        #expect(try edited(twoSpaces, remove("/b/c")) == "{\n  \"a\": 1\n}\n")
        #expect(try edited(#"{"a":{"b":{"c":1}},"d":2}"#, remove("/a/b/c")) == #"{"d":2}"#)
        // An object left with only null members has no children: it goes too.
        #expect(try edited(#"{"a":{"b":null,"c":1},"d":2}"#, remove("/a/c")) == #"{"d":2}"#)
    }

    @Test func theRootIsNeverRemoved() throws {
        #expect(try edited("{\"a\": {\"b\": 1}}\n", remove("/a/b")) == "{}\n")
        #expect(try edited("[1]", remove("/0")) == "[]")
        #expect(try edited(" [1, 2] ", set("/", nil)) == " {} ")
        #expect(try edited("{}", remove("/")) == "{}")
    }

    @Test func emptyObjectTakesTheStyleOfItsSurroundings() throws {
        #expect(try edited("{\n  \"a\": {},\n  \"b\": 1\n}", set("/a/x", 1)) == "{\n  \"a\": {\n    \"x\": 1\n  },\n  \"b\": 1\n}")
        #expect(try edited(#"{"a":{},"b":1}"#, set("/a/x", 1)) == #"{"a":{"x":1},"b":1}"#)
        // No style anywhere: two-space pretty printing.
        #expect(try edited("{}\n", set("/a", ["b": 1])) == "{\n  \"a\": {\n    \"b\": 1\n  }\n}\n")
    }

    @Test func missingIntermediateObjectsAreCreated() throws {
        #expect(try edited(#"{"a":1}"#, set("/x/y/z", 1)) == #"{"a":1,"x":{"y":{"z":1}}}"#)
        // A null on the way counts as missing.
        #expect(try edited(#"{"a": null}"#, set("/a/b", 1)) == #"{"a": {"b": 1}}"#)
    }
}

@Suite struct EditCompactAndOddTests {
    @Test func compact() throws {
        let doc = #"{"a":1,"b":{"c":"x"},"n":[1,2]}"#
        #expect(try edited(doc, set("/b/d", 2)) == #"{"a":1,"b":{"c":"x","d":2},"n":[1,2]}"#)
        #expect(try edited(doc, set("/n/2", ["k": [true]])) == #"{"a":1,"b":{"c":"x"},"n":[1,2,{"k":[true]}]}"#)
        #expect(try edited(doc, remove("/a")) == #"{"b":{"c":"x"},"n":[1,2]}"#)
    }

    @Test func oneLineWithSpaces() throws {
        // Python's json.dumps style: ", " and ": ".
        let doc = #"{"a": 1, "b": {"c": "x"}}"#
        #expect(try edited(doc, set("/b/d", [1, 2])) == #"{"a": 1, "b": {"c": "x", "d": [1, 2]}}"#)
        #expect(try edited("{ \"a\": 1 }", set("/b", 2)) == "{ \"a\": 1, \"b\": 2 }")
        #expect(try edited("{ \"a\": 1, \"b\": 2 }", remove("/a")) == "{ \"b\": 2 }")
    }

    @Test func crlfSpacesBeforeColonsAndTrailingWhitespace() throws {
        let doc = "{\r\n  \"a\" : 1 ,  \r\n  \"b\" : [ 1 ]   \r\n}\r\n"
        #expect(try edited(doc, set("/c", ["d": 1])) == "{\r\n  \"a\" : 1 ,  \r\n  \"b\" : [ 1 ],\r\n  \"c\" : {\r\n    \"d\" : 1\r\n  }   \r\n}\r\n")
        #expect(try edited(doc, remove("/a")) == "{\r\n  \"b\" : [ 1 ]   \r\n}\r\n")
        #expect(try edited(doc, set("/b/0", 2)) == "{\r\n  \"a\" : 1 ,  \r\n  \"b\" : [ 2 ]   \r\n}\r\n")
    }

    @Test func numberSpellingAndEscapesElsewhereStay() throws {
        let doc = #"{"x": 1.50e+01, "s": "\u0041\n", "y": 2}"#
        #expect(try edited(doc, set("/y", 3)) == #"{"x": 1.50e+01, "s": "\u0041\n", "y": 3}"#)
        // Setting an equal value (by JSON equality) keeps the spelling.
        #expect(try edited(doc, set("/x", 15)) == doc)
        #expect(try edited(doc, set("/", ["x": 15, "s": "A\n", "y": 4])) == #"{"x": 1.50e+01, "s": "\u0041\n", "y": 4}"#)
    }

    @Test func settingAnObjectEditsOnlyTheMembersThatDiffer() throws {
        let doc = "{\n  \"u\": {\n    \"name\": \"x\",\n    \"age\": 1.0,\n    \"old\": true\n  }\n}"
        #expect(try edited(doc, set("/u", ["age": 1, "name": "y", "new": nil, "z": 0]))
            == "{\n  \"u\": {\n    \"name\": \"y\",\n    \"age\": 1.0,\n    \"z\": 0\n  }\n}")
    }

    @Test func byteOrderMarkAndSurroundingWhitespaceStay() throws {
        let doc = "\u{FEFF}  {\"a\":1}  \n\n"
        #expect(try edited(doc, set("/a", 2)) == "\u{FEFF}  {\"a\":2}  \n\n")
    }

    @Test func duplicateKeysEditTheEffectiveOne() throws {
        #expect(try edited(#"{"a":1,"b":0,"a":2}"#, set("/a", 3)) == #"{"a":1,"b":0,"a":3}"#)
        // Removing takes every duplicate, so an earlier value cannot come back.
        #expect(try edited(#"{"a":1,"b":0,"a":2}"#, remove("/a")) == #"{"b":0}"#)
        #expect(try edited(#"{"a":1,"a":2}"#, remove("/a")) == "{}")
    }

    @Test func unicodeKeysAreMatchedByCodeUnits() throws {
        // "é" precomposed and decomposed are different keys.
        let doc = "{\"\u{E9}\":1,\"e\u{301}\":2}"
        #expect(try edited(doc, set(Path(keys: ["e\u{301}"]), 3)) == "{\"\u{E9}\":1,\"e\u{301}\":3}")
        #expect(try edited(doc, set(Path(keys: ["a~b"]), 1)) == "{\"\u{E9}\":1,\"e\u{301}\":2,\"a~b\":1}")
    }
}

@Suite struct EditArrayTests {
    @Test func replaceAppendAndPad() throws {
        #expect(try edited("[1, 2, 3]", set("/1", "b")) == #"[1, "b", 3]"#)
        #expect(try edited("[1, 2, 3]", set("/3", 4)) == "[1, 2, 3, 4]")
        #expect(try edited("[1, 2, 3]", set("/5", 6)) == "[1, 2, 3, null, null, 6]")
        #expect(try edited("{\"a\": []}", set("/a/1", 6)) == "{\"a\": [null, 6]}")
    }

    @Test func removingKeepsTheOtherIndexes() throws {
        #expect(try edited("[1, 2, 3]", remove("/1")) == "[1, null, 3]")
        #expect(try edited("[1, 2, 3]", remove("/2")) == "[1, 2]")
        // Removing the last element drops the null placeholders before it.
        #expect(try edited("[1, null, 3]", remove("/2")) == "[1]")
        #expect(try edited("{\"a\": [null, 3], \"b\": 1}", remove("/a/1")) == "{\"b\": 1}")
        // A null element is already absent.
        #expect(try edited("[1, null]", remove("/1")) == "[1, null]")
    }

    @Test func settingAnArrayOverAnArray() throws {
        #expect(try edited("[1, 2, 3, null]", set("/", [1, 5])) == "[1, 5]")
        #expect(try edited("[1, 2]", set("/", [1, 2, nil, 4])) == "[1, 2, null, 4]")
    }

    @Test func keysThatAreNotIndexesAreErrors() throws {
        let error = try #require(throws: JSONEditError.self) { try edited("{\"a\": [1]}", set("/a/x", 1)) }
        #expect(error.reason == .notAnIndex(write: path("/a/x"), array: path("/a"), key: "x"))
        #expect(error.description == "cannot write /a/x: /a is an array, and 'x' is not an index (0, 1, 2, …)")
        // A leading zero makes a key that is not an index.
        #expect(throws: JSONEditError.self) { try edited("[1]", set("/01", 1)) }
        // Removing such a key removes nothing.
        #expect(try edited("[1]", remove("/x")) == "[1]")
    }

    @Test func farPastTheEndIsAnError() throws {
        let error = try #require(throws: JSONEditError.self) { try edited("[1]", set("/5000", 1)) }
        #expect(error.reason == .indexTooFar(write: path("/5000"), array: path("/"), index: 5000, count: 1))
    }
}

@Suite struct EditErrorTests {
    @Test func writingBelowALeafReplacesItWithAnObject() throws {
        #expect(try edited(#"{"a": 1, "z": 2}"#, set("/a/b/c", 2)) == #"{"a": {"b": {"c": 2}}, "z": 2}"#)
        #expect(try edited(#"{"a": "", "z": 2}"#, update("/a", [("name", "n"), ("n", .null)])) == #"{"a": {"name": "n"}, "z": 2}"#)
        #expect(try edited(#"{"a": true}"#, set("/a/b", .null)) == #"{"a": true}"#)
    }

    @Test func removingBelowAScalarDoesNothing() throws {
        let doc = try JSONDocument(parsing: #"{"a": 1}"#)
        #expect(try doc.applying(remove("/a/b")) === doc)
    }

    @Test func overlappingPathsInOneUpdateAreAnError() throws {
        let e1 = try #require(throws: JSONEditError.self) {
            try edited("{}", update("/x", [("a", 1), ("a/b", 2)]))
        }
        #expect(e1.reason == .overlapping(ancestor: path("/x/a"), descendant: path("/x/a/b")))
        let e2 = try #require(throws: JSONEditError.self) {
            try edited("{}", update("/x", [("a/b", 1), ("a", 2)]))
        }
        #expect(e2.reason == .overlapping(ancestor: path("/x/a"), descendant: path("/x/a/b")))
        let e3 = try #require(throws: JSONEditError.self) {
            try edited("{}", update("/", [("a", 1), ("a", 2)]))
        }
        #expect(e3.description == "path /a is written twice in one update")
    }

    @Test func updateFromAnObjectTakesRelativePaths() throws {
        let writes = try JSONWrite.update(path("/u"), JSONObject([("a/b", 1), ("c", nil)]))
        #expect(try edited(#"{"u":{"c":0,"d":0}}"#, writes) == #"{"u":{"d":0,"a":{"b":1}}}"#)
        #expect(throws: JSONEditError.self) { try JSONWrite.update(path("/"), JSONObject([("a~2", 1)])) }
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var out = "", rest = Substring(self)
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound] + replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
