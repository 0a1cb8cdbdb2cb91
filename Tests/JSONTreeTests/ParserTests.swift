import JSONTree
import Testing
import TestSupport

@Suite struct ParserTests {
    func error(_ text: String) -> JSONParseError? {
        do {
            _ = try JSONDocument(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    func error(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try JSONDocument(parsing: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func errorsSayLineColumnOffsetAndWhatWasExpected() throws {
        let e = try #require(error("{\n  \"a\": 1,\n  \"b\": 2 \"c\": 3\n}"))
        #expect(e.line == 3)
        #expect(e.column == 10)
        #expect(e.offset == 21)
        #expect(e.message == "expected ',' or '}' after object member, found '\"'")
        #expect(e.description == "line 3, column 10: expected ',' or '}' after object member, found '\"'")
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let e = try #require(error("[\"日本\", x]"))
        #expect(e.line == 1)
        #expect(e.column == 8)
        #expect(e.offset == 11)
    }

    @Test(arguments: [
        ("", "expected a JSON value, found end of input"),
        ("[1,]", "expected a value, found ']'"),
        ("{\"a\" 1}", "expected ':' after object key, found '1'"),
        ("{1:2}", "expected a string key, found '1'"),
        ("[01]", "leading zeros are not allowed in numbers"),
        ("[1.]", "expected a digit after '.'"),
        ("[1e]", "expected a digit in the exponent"),
        ("[-]", "expected a digit after '-'"),
        ("[tru]", "invalid literal, expected 'true'"),
        ("\"a\\x\"", "invalid escape '\\x' in string"),
        ("\"\\uD800\"", "lone surrogate \\uD800: a high surrogate must be followed by a low one"),
        ("\"\\uDC00\"", "lone surrogate \\uDC00 without a high surrogate before it"),
        ("\"a\nb\"", "control character U+000A must be escaped in a string"),
        ("[1] 2", "unexpected '2' after the JSON value"),
        ("\"abc", "unterminated string (opened at byte 0)"),
        ("[1", "expected ',' or ']' after array element, found end of input"),
    ])
    func messages(_ input: String, _ message: String) throws {
        let e = try #require(error(input))
        #expect(e.message == message)
    }

    @Test func invalidUTF8IsAnErrorWithItsPosition() throws {
        let e = try #require(error(Array("[\"ab".utf8) + [0xFF] + Array("\"]".utf8)))
        #expect(e.offset == 4)
        #expect(e.message == "invalid UTF-8 byte 0xFF in string")
        let overlong = try #require(error(Array("\"".utf8) + [0xC0, 0xAF] + Array("\"".utf8)))
        #expect(overlong.offset == 1)
        let surrogate = try #require(error(Array("\"".utf8) + [0xED, 0xA0, 0x80] + Array("\"".utf8)))
        #expect(surrogate.offset == 2)
    }

    @Test func millionOpeningBracketsIsADepthErrorNotACrash() throws {
        let e = try #require(error([UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)))
        #expect(e.message == "nesting deeper than \(maximumJSONDepth) levels")
        #expect(e.offset == maximumJSONDepth)
        let deepest = String(repeating: "[", count: maximumJSONDepth) + String(repeating: "]", count: maximumJSONDepth)
        #expect(error(deepest) == nil)
    }

    @Test func duplicateKeysLastOneWins() throws {
        let doc = try JSONDocument(parsing: #"{"a": 1, "b": 2, "a": 3, "\u0062": 4}"#)
        #expect(doc.root.count == 2)
        #expect(doc.root.members.map { $0.key.stringValue! } == ["a", "b"])
        #expect(doc.root[key: "a"]?.doubleValue == 3)
        #expect(doc.root[key: "b"]?.doubleValue == 4)
        // Large objects take the hashed path.
        let many = "{" + (0..<40).map { "\"k\($0 % 20)\": \($0)" }.joined(separator: ",") + "}"
        let big = try JSONDocument(parsing: many)
        #expect(big.root.count == 20)
        #expect(big.root[key: "k3"]?.doubleValue == 23)
        // An escaped spelling is the same key, in small and large objects alike.
        for size in [3, 9, 40] {
            let members = (0..<size).map { "\"k\($0)\": \($0)" } + [#""\u006b0": "last""#, #""k\u0031": "again""#]
            let doc = try JSONDocument(parsing: "{" + members.joined(separator: ",") + "}")
            #expect(doc.root.count == size, "size \(size)")
            #expect(doc.root[key: "k0"]?.stringValue == "last", "size \(size)")
            #expect(doc.root[key: "k1"]?.stringValue == "again", "size \(size)")
        }
    }

    @Test func canonicallyEquivalentKeysAreDistinct() throws {
        let doc = try JSONDocument(parsing: "{\"é\": 1, \"e\u{301}\": 2}")
        #expect(doc.root.count == 2)
        #expect(doc.root[key: "é"]?.doubleValue == 1)
        #expect(doc.root[key: "e\u{301}"]?.doubleValue == 2)
    }

    @Test func nodesKnowTheirByteRanges() throws {
        let text = #"{"name": "Ada", "n": [1, 2.50, {"x": null}]}"#
        let doc = try JSONDocument(parsing: text)
        let bytes = Array(text.utf8)
        func slice(_ n: JSONNode) -> String { String(decoding: bytes[n.byteRange], as: UTF8.self) }
        let name = try #require(doc.root[key: "name"])
        #expect(slice(name) == "\"Ada\"")
        let n = try #require(doc.root[key: "n"])
        #expect(slice(n) == #"[1, 2.50, {"x": null}]"#)
        #expect(slice(try #require(n[index: 1])) == "2.50")
        #expect(slice(try #require(n[index: 2])) == #"{"x": null}"#)
        #expect(slice(doc.root) == text)
    }

    @Test func numbersKeepTheirSpellingAndCompareAsDouble() throws {
        let doc = try JSONDocument(parsing: "[1.0, 1e3, 12345678901234567890, -0, 0.1, 1E+2, 123456789012345678901234567890e-10]")
        let items = Array(doc.root.elements)
        #expect(items.map { $0.numberText! } == ["1.0", "1e3", "12345678901234567890", "-0", "0.1", "1E+2", "123456789012345678901234567890e-10"])
        let big = Double("12345678901234567890")!
        #expect(items.map { $0.doubleValue! } == [1, 1000, big, 0, 0.1, 100, big])
        #expect(items[0].json == JSON.number(JSONNumber(1)))
        #expect(items[0].json.serializedString() == "1.0")
    }

    @Test func decodesEscapes() throws {
        let doc = try JSONDocument(parsing: #"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\ud83d\ude00\u0000"]"#)
        let items = Array(doc.root.elements)
        #expect(items[0].stringValue == "a\"b\\c/d\u{8}\u{C}\n\r\t")
        #expect(items[1].stringValue == "é😀\u{0}")
        #expect(items[1].hasEscapes)
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let doc = try JSONDocument(parsing: [0xEF, 0xBB, 0xBF] + Array("{\"a\":1}".utf8))
        #expect(doc.root[key: "a"]?.doubleValue == 1)
        #expect(error([0xEF, 0xBB, 0xBF]) != nil)
    }

    @Test func fastDoubleConversionMatchesTheLibrary() throws {
        var r = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            let digits = String(UInt64.random(in: 0...UInt64.max, using: &r)).prefix(Int.random(in: 1...19, using: &r))
            let trimmed = digits.drop { $0 == "0" }
            let mantissa = trimmed.isEmpty ? "0" : String(trimmed)
            let exp = Int.random(in: -30...30, using: &r)
            let text = (Bool.random(using: &r) ? "-" : "") + mantissa + (Bool.random(using: &r) ? ".5" : "") + "e\(exp)"
            #expect(parseJSONNumber(text) == Double(text), "\(text)")
        }
    }
}
