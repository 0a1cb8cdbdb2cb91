// Decoding straight from the parsed tree: containers, nested types, optionals, numbers with
// range checks, and errors that name the path.
@testable import JSONTree
import Testing

private func node(_ text: String) throws -> JSONNode { try JSONDocument(parsing: text).root }

private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONNodeDecoder().decode(type, from: node(text))
}

/// The one-line description of the error decoding `text` as `T` throws.
private func failure<T: Decodable>(_ type: T.Type, _ text: String) -> String? {
    do {
        _ = try decode(type, text)
        return nil
    } catch {
        return JSONNodeDecoder.describe(error)
    }
}

private struct Player: Decodable, Equatable {
    struct Metrics: Decodable, Equatable {
        var views: Int
        var ratio: Double?
    }
    enum Role: String, Decodable { case admin, user }
    var name: String
    var score: Int
    var active: Bool
    var metrics: Metrics
    var tags: [String]
    var nickname: String?
    var role: Role
    var extra: [String: Int]?
}

@Suite struct JSONNodeDecoderTests {
    @Test func nestedTypesOptionalsArraysAndDictionaries() throws {
        let p = try decode(Player.self, #"""
        {"name":"ann","score":7,"active":true,"metrics":{"views":12,"ratio":null},"tags":["a","b"],
         "role":"admin","extra":{"x":1,".priority":5,"gone":null,"y":2}}
        """#)
        #expect(p == Player(
            name: "ann", score: 7, active: true, metrics: .init(views: 12, ratio: nil), tags: ["a", "b"],
            nickname: nil, role: .admin, extra: ["x": 1, "y": 2]))
    }

    @Test func scalarsAtTheTop() throws {
        #expect(try decode(Int.self, "42") == 42)
        #expect(try decode(String.self, #""h\u00e9""#) == "h\u{E9}")
        #expect(try decode(Bool.self, "false") == false)
        #expect(try decode(Double.self, "-1.5e-3") == -0.0015)
        #expect(try decode(Int?.self, "null") == nil)
        #expect(try decode([Int?].self, "[1,null,3]") == [1, nil, 3])
        #expect(try decode([[Int]].self, "[[1],[],[2,3]]") == [[1], [], [2, 3]])
        #expect(try decode([String: [Bool]].self, #"{"a":[true]}"#) == ["a": [true]])
    }

    @Test func integersAreExactAndRangeChecked() throws {
        #expect(try decode(Int.self, "1e3") == 1000)
        #expect(try decode(Int.self, "2.0") == 2)
        #expect(try decode(Int.self, "-0") == 0)
        #expect(try decode(Int.self, "-1.50e2") == -150)
        #expect(try decode(Int64.self, "9223372036854775807") == Int64.max)
        #expect(try decode(Int64.self, "-9223372036854775808") == Int64.min)
        #expect(try decode(UInt64.self, "18446744073709551615") == UInt64.max)
        #expect(try decode(Int64.self, "1.2345678901234567e18") == 1_234_567_890_123_456_700)
        #expect(try decode(Int.self, "0e99999") == 0)
        #expect(failure(Int8.self, "300") == "the number 300 does not fit in Int8")
        #expect(failure(UInt.self, "-1") == "the number -1 does not fit in UInt")
        #expect(failure(Int64.self, "9223372036854775808") == "the number 9223372036854775808 does not fit in Int64")
        #expect(failure(Int.self, "1e30") == "the number 1e30 does not fit in Int")
        #expect(failure(Int.self, "2.5") == "the number 2.5 is not an integer, as Int requires")
        #expect(failure(Int.self, "1e-2") == "the number 1e-2 is not an integer, as Int requires")
        #expect(failure(Int.self, #""7""#) == "expected Int, found a string")
    }

    @Test func floatingPointMustBeFinite() throws {
        #expect(try decode(Float.self, "0.5") == 0.5)
        #expect(failure(Float.self, "1e39") == "the number 1e39 does not fit in Float")
        #expect(failure(Double.self, "1e400") == "the number 1e400 does not fit in Double")
    }

    @Test func errorsNameThePath() throws {
        #expect(failure(Player.self, #"{"name":"a","score":1,"active":true,"metrics":{"views":"many"},"tags":[],"role":"user"}"#)
            == "metrics.views: expected Int, found a string")
        #expect(failure(Player.self, #"{"name":"a","score":1,"active":true,"metrics":{"views":1},"tags":["x",2],"role":"user"}"#)
            == "tags[1]: expected String, found a number")
        #expect(failure(Player.self, #"{"score":1}"#) == #"no member "name""#)
        #expect(failure(Player.self, #"{"name":null}"#) == "name: expected String, found null")
        #expect(failure(Player.self, "[1]") == "expected an object, found an array")
        #expect(failure([Int].self, "{}") == "expected an array, found an object")
        #expect(failure(Player.Role.self, #""root""#)?.contains("root") == true)
    }

    /// Keys match by code units: "é" precomposed and "e" + combining acute are different members.
    @Test func keysMatchByCodeUnits() throws {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Pair: Decodable {
            var pre: Int
            var de: Int
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Key.self)
                pre = try c.decode(Int.self, forKey: Key(stringValue: "\u{E9}"))
                de = try c.decode(Int.self, forKey: Key(stringValue: "e\u{301}"))
            }
        }
        let pair = try decode(Pair.self, "{\"e\u{301}\":2,\"\u{E9}\":1}")
        #expect(pair.pre == 1 && pair.de == 2)
    }

    /// Large objects are looked up through a table; the result is the same.
    @Test func largeObjects() throws {
        let members = (0..<40).map { "\"m\($0)\":\($0)" }.joined(separator: ",")
        let all = try decode([String: Int].self, "{\(members)}")
        #expect(all.count == 40 && all["m39"] == 39)
        struct Last: Decodable { var m39: Int; var m0: Int }
        let last = try decode(Last.self, "{\(members)}")
        #expect(last.m39 == 39 && last.m0 == 0)
    }

    @Test func unkeyedAndSuperDecodersAndUserInfo() throws {
        struct Triple: Decodable {
            var values: [Int] = []
            var tail: String
            var flag: Bool
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                #expect(c.count == 4)
                values.append(try c.decode(Int.self))
                #expect(try c.decodeNil())
                values.append(try c.decode(Int.self))
                tail = try String(from: c.superDecoder())
                #expect(c.isAtEnd)
                #expect(throws: DecodingError.self) { _ = try c.decode(Int.self) }
                flag = decoder.userInfo[CodingUserInfoKey(rawValue: "flag")!] as? Bool ?? false
            }
        }
        var decoder = JSONNodeDecoder()
        decoder.userInfo[CodingUserInfoKey(rawValue: "flag")!] = true
        let t = try decoder.decode(Triple.self, from: node(#"[1,null,2,"end"]"#))
        #expect(t.values == [1, 2] && t.tail == "end" && t.flag)
    }
}
