// `synctable list`, run in-process: formats, query flags, errors and untrusted text.
import CommandTestSupport
import JSONTree
import Foundation
import Testing
import TestSupport

@Suite struct ListCommandTests {
    /// Runs `synctable list` with `arguments`, the file holding `json` first (unless nil); a
    /// file name without a folder (`nope.json`) is one beside it.
    func list(_ json: String?, _ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        let folder = ScratchFolder("list")
        let file = folder.file("data.json")
        if let json { try Data(json.utf8).write(to: URL(fileURLWithPath: file)) }
        let arguments = arguments.map { $0.hasSuffix(".json") && !$0.contains("/") ? folder.file($0) : $0 }
        return try synctable(["list"] + (json == nil ? [] : [file]) + arguments, stdin: stdin, folder: folder.path)
    }

    let players = #"""
        {"game": {"players": {
          "ann": {"name": "Ann", "score": 12, "tags": ["a"]},
          "bob": {"name": "Bob", "score": -5},
          "cy": {"name": "Cy", "score": 30, ".priority": 1},
          "dee": 7,
          "eve": null
        }}}
        """#

    @Test func jsonAndJSONLines() throws {
        let r = try list(players, ["--path", "/game/players", "--order-by-child", "score", "--format", "json"])
        #expect(r.status == 0)
        #expect(r.output == """
            [
              {"key":"dee","value":7},
              {"key":"bob","value":{"name":"Bob","score":-5}},
              {"key":"ann","value":{"name":"Ann","score":12,"tags":["a"]}},
              {"key":"cy","value":{"name":"Cy","score":30,".priority":1}}
            ]

            """)
        let lines = try list(players, ["--path=/game/players", "--order-by-child=score", "--limit-to-last=2", "--format=jsonl"])
        #expect(lines.output == """
            {"key":"ann","value":{"name":"Ann","score":12,"tags":["a"]}}
            {"key":"cy","value":{"name":"Cy","score":30,".priority":1}}

            """)
    }

    @Test("--columns picks the fields (in order) or hides some (-name), for every format")
    func columns() throws {
        let base = ["--path", "/game/players", "--order-by-key", "--end-before", "c"]
        #expect(try list(players, base + ["--columns", "score,name", "--format", "table"]).output == """
            key  score  name
            ---  -----  ----
            ann     12  Ann
            bob     -5  Bob

            """)
        #expect(try list(players, base + ["--columns", "score,name", "--format", "tsv"]).output
            == "key\tscore\tname\n" + "ann\t12\tAnn\n" + "bob\t-5\tBob\n")
        #expect(try list(players, base + ["--columns", "-tags,-name", "--format", "jsonl"]).output
            == #"{"key":"ann","value":{"score":12}}"# + "\n" + #"{"key":"bob","value":{"score":-5}}"# + "\n")
        #expect(try list(players, base + ["--columns=-tags", "--format", "tsv"]).output
            == "key\tname\tscore\n" + "ann\tAnn\t12\n" + "bob\tBob\t-5\n")
        #expect(try list(players, base + ["--columns", "score", "--format", "json"]).output
            == "[\n" + #"  {"key":"ann","value":{"score":12}},"# + "\n" + #"  {"key":"bob","value":{"score":-5}}"# + "\n]\n")
        let mixed = try list(players, base + ["--columns", "score,-name"])
        #expect(mixed.status == 2 && mixed.errors.contains("--columns: either names to show"))
    }

    // The table has the viewer's columns and cells (one policy): metadata left out, containers by size.
    @Test func tableAndTSV() throws {
        let table = try list(players, ["--path", "/game/players", "--order-by-key", "--format", "table"])
        #expect(table.output == """
            key  name  score  tags  value
            ---  ----  -----  ----  -----
            ann  Ann      12  [1]   {3}
            bob  Bob      -5        {2}
            cy   Cy       30        {3}
            dee                     7

            """)
        let tsv = try list(players, ["--path", "/game/players", "--order-by-key", "--end-before", "c", "--format", "tsv"])
        #expect(tsv.output == "key\tname\tscore\ttags\n" + "ann\tAnn\t12\t[\"a\"]\n" + "bob\tBob\t-5\t\n")
        #expect(try list(#"{"a":{}}"#, ["--path", "/b", "--format", "table"]).output == "(no children)\n")
    }

    @Test func boundsAndKeys() throws {
        // A bound that starts with "-" in the --flag=value form; a JSON scalar bound.
        let r = try list(players, ["--path", "/game/players", "--order-by-child", "score", "--start-at=-5", "--end-at", "12", "--format", "jsonl"])
        #expect(r.output.split(separator: "\n").map { String($0.prefix(13)) } == [#"{"key":"bob","#, #"{"key":"ann","#])
        // Without a key, startAfter excludes every child equal to the value; with one, only up to it.
        let values = #"{"a":1,"b":1,"c":2}"#
        #expect(try list(values, ["--order-by-value", "--start-after", "1", "--format", "jsonl"]).output == #"{"key":"c","value":2}"# + "\n")
        #expect(try list(values, ["--order-by-value", "--start-after", "1", "--start-after-key", "a", "--format", "jsonl"]).output
            == #"{"key":"b","value":1}"# + "\n" + #"{"key":"c","value":2}"# + "\n")
        #expect(try list(values, ["--order-by-value", "--equal-to", "1", "--equal-to-key", "b", "--format", "jsonl"]).output
            == #"{"key":"b","value":1}"# + "\n")
        // With key order a bound is a key, a string: '"2"' on an array is the key "2".
        let array = try list(#"{"l":["x","y","z","w"]}"#, ["--path", "/l", "--order-by-key", "--start-at", #""2""#, "--format", "jsonl"])
        #expect(array.output == #"{"key":"2","value":"z"}"# + "\n" + #"{"key":"3","value":"w"}"# + "\n")
        // A string that is not JSON is a string; "5" in quotes is the string 5.
        let strings = #"{"a":"5","b":5,"c":"abc"}"#
        #expect(try list(strings, ["--order-by-value", "--equal-to", "abc", "--format", "jsonl"]).output == #"{"key":"c","value":"abc"}"# + "\n")
        #expect(try list(strings, ["--order-by-value", "--equal-to", #""5""#, "--format", "jsonl"]).output == #"{"key":"a","value":"5"}"# + "\n")
        #expect(try list(strings, ["--order-by-value", "--equal-to", "5", "--format", "jsonl"]).output == #"{"key":"b","value":5}"# + "\n")
    }

    @Test func missingPathsAndLeavesAreEmpty() throws {
        #expect(try list(players, ["--path", "/nope", "--format", "json"]) .output == "[]\n")
        #expect(try list(players, ["--path", "/game/players/ann/score", "--format", "json"]).output == "[]\n")
        #expect(try list(players, ["--path", "/game/players/eve", "--format", "jsonl"]).output == "")
    }

    @Test func badFlagsExitTwoNamingTheFlag() throws {
        let cases: [([String], String)] = [
            (["--limit-to-first", "0"], "--limit-to-first"),
            (["--limit-to-last", "x"], "--limit-to-last"),
            (["--limit-to-first", "2", "--limit-to-last", "3"], "--limit-to-last"),
            (["--order-by-key", "--order-by-value"], "--order-by-value"),
            (["--order-by-child", "a", "--order-by-priority"], "--order-by-child"),
            (["--order-by-value", "--start-at", #"{"a":1}"#], "--start-at"),
            (["--order-by-value", "--end-before", "[1]"], "--end-before"),
            (["--order-by-key", "--start-at", "a", "--start-at-key", "b"], "--start-at-key"),
            // With orderByKey a bound is a string (a key): numbers and booleans are refused.
            (["--order-by-key", "--start-at", "5"], "--start-at"),
            (["--order-by-key", "--end-before", "true"], "--end-before"),
            (["--end-at-key", "b"], "--end-at-key"),
            (["--start-at", "1", "--equal-to", "2"], "--start-at"),
            (["--start-at", "true"], "--start-at"),
            (["--path", "/a~2"], "--path"),
            (["--order-by-child", "x~"], "--order-by-child"),
            (["--order-by-child", "/"], "--order-by-child"),
        ]
        for (arguments, flag) in cases {
            let r = try list(players, arguments)
            #expect(r.status == 2, "\(arguments)")
            #expect(r.errors.hasPrefix("synctable: error: \(flag): "), "\(arguments): \(r.errors)")
            #expect(r.output.isEmpty)
        }
        for (bound, text) in [("--start-at", "5"), ("--end-before", "true")] {
            let r = try list(players, ["--order-by-key", bound, text])
            #expect(r.status == 2 && r.errors.hasPrefix("synctable: error: \(bound): with orderByKey a bound must be a string (a key), not \(text)"), "\(r.errors)")
        }
    }

    @Test func invalidJSONExitsOneLikeValidate() throws {
        let r = try list("{\"a\": 1,\n  \"b\" 2}", [])
        #expect(r.status == 1)
        #expect(r.errors == "data.json:2:7: error: expected ':' after object key, found '2'\n")
        let stdin = try list(nil, ["-"], stdin: "[1,")
        #expect(stdin.status == 1)
        #expect(stdin.errors.hasPrefix("<stdin>:1:4: error: "))
        let missing = try list(nil, ["nope.json"])
        #expect(missing.status == 2)
        #expect(missing.errors.hasPrefix("nope.json: error: "))
    }

    @Test func standardInput() throws {
        let r = try list(nil, ["-", "--order-by-value", "--format", "jsonl"], stdin: #"{"x":2,"y":1}"#)
        #expect(r.output == #"{"key":"y","value":1}"# + "\n" + #"{"key":"x","value":2}"# + "\n")
    }

    /// Text from the file never reaches the terminal raw: control characters and bidirectional
    /// overrides become visible escapes in tables; JSON output escapes them.
    @Test func untrustedTextIsEscaped() throws {
        let hostile = #"{"k\u001b]0;x\u0007":{"name":"a\u001b[31mred\nline\ttab\u009b\u202eevil","n":1}}"#
        let table = try list(hostile, ["--format", "table"])
        let tsv = try list(hostile, ["--format", "tsv"])
        for out in [table.output, tsv.output] {
            #expect(!out.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
            #expect(out.contains(#"a\x1b[31mred\nline\ttab\u009b\u202eevil"#))
            #expect(out.contains(#"k\x1b]0;x\x07"#))
        }
        #expect(tsv.output.split(separator: "\n").count == 2)
        for format in ["jsonl", "json"] {
            let json = try list(hostile + "\n", ["--format", format])
            #expect(json.output.contains(#"\u001b[31mred\nline\ttab\u009b\u202eevil"#), "\(format)")
            #expect(!json.output.unicodeScalars.contains { isInvisibleControl($0.value) && $0 != "\n" }, "\(format)")
            // Still JSON with the same values.
            let line = json.output.split(separator: "\n").first { $0.contains("name") }!
            let text = format == "json" ? String(line.drop { $0 == " " }).trimmingCharacters(in: CharacterSet(charactersIn: ",")) : String(line)
            let row = try JSONDocument(parsing: text)
            #expect(row.root[key: "value"]?[key: "name"]?.stringValue == "a\u{1b}[31mred\nline\ttab\u{9b}\u{202e}evil")
        }
    }

    /// Output larger than the buffer `list` drains (1 MiB), from a window that keeps nothing per
    /// child (an array of numbers by key) and from one long string: exactly the rows, in order.
    @Test func largeOutputIsWrittenExactlyAsItGoes() throws {
        let numbers = (0..<200_000).map { String($0 * 7919 % 1_000_003) }
        let array = try list("[" + numbers.joined(separator: ",") + "]", ["--format", "jsonl"])
        #expect(array.status == 0)
        #expect(array.output == numbers.enumerated().map { #"{"key":"\#($0.offset)","value":\#($0.element)}"# + "\n" }.joined())
        let text = String(repeating: "ab\u{1}é\u{202E}\"", count: 300_000)
        let string = try list(String(decoding: JSON.object(JSONObject([(key: "s", value: .string(text))])).serialized(), as: UTF8.self),
                              ["--format", "json"])
        #expect(string.status == 0)
        let value = String(decoding: JSON.string(text).serialized(escaping: .invisibles), as: UTF8.self)
        #expect(string.output == "[\n  {\"key\":\"s\",\"value\":" + value + "}\n]\n")
    }

    /// Issue 40 item 9: a child path no child holds orders every child as missing: a warning says so.
    @Test func orderByAChildNoChildHasWarns() throws {
        let json = #"{"p": {"a": {"visits": 3, "name": "x"}, "b": {"visits": 1, "name": "y"}}}"#
        let typo = try list(json, ["--path", "/p", "--order-by-child", "vists", "--format", "jsonl"])
        #expect(typo.status == 0)
        #expect(typo.errors.contains(#"warning: no child has "vists" (--order-by-child)"#) && typo.errors.contains(#""visits", "name""#), "\(typo.errors)")
        let right = try list(json, ["--path", "/p", "--order-by-child", "visits", "--format", "jsonl"])
        #expect(right.status == 0 && right.errors.isEmpty, "\(right.errors)")
    }
}
