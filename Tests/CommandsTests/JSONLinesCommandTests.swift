// `list`, `set`, `update`, `remove` and `validate` on JSON Lines files and on standard input, run in-process.
import CommandTestSupport
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite struct JSONLinesCommandTests {
    @Test func listReadsLinesAsChildrenWithErrorRowsAndQueriesThem() throws {
        let folder = ScratchFolder()
        let path = folder.file("app.jsonl")
        try Data("{\"level\":\"info\",\"n\":1}\n\n{\"level\":\"error\",\"n\":2}\n{bad\n{\"level\":\"error\",\"n\":4}\n".utf8)
            .write(to: URL(fileURLWithPath: path))
        let all = try synctable(["list", path, "--format", "jsonl"])
        #expect(all.status == 0)
        #expect(all.output.split(separator: "\n").map(String.init) == [
            #"{"key":"0","value":{"level":"info","n":1}}"#,
            #"{"key":"2","value":{"level":"error","n":2}}"#,
            #"{"key":"3","value":{"$error":{"line":4,"column":2,"message":"expected a string key, found 'b'"}}}"#,
            #"{"key":"4","value":{"level":"error","n":4}}"#,
        ])
        let errors = try synctable([
            "list", path, "--format", "jsonl", "--order-by-child", "level", "--equal-to", "error", "--limit-to-last", "1",
        ])
        #expect(errors.output == #"{"key":"4","value":{"level":"error","n":4}}"# + "\n")
        // Any file can be read as JSON Lines; `--path` reaches into the records.
        let renamed = folder.file("app.log")
        try FileManager.default.copyItem(atPath: path, toPath: renamed)
        let inner = try synctable(["list", renamed, "--input", "jsonl", "--path", "/4", "--format", "jsonl"])
        #expect(inner.output == #"{"key":"level","value":"error"}"# + "\n" + #"{"key":"n","value":4}"# + "\n")
    }

    @Test func theNewestLinesOfALogAreTheSameReadWholeOrFromItsEnd() throws {
        let folder = ScratchFolder()
        let path = folder.file("tail.jsonl")
        var text = ""
        for i in 0..<300 {
            text += i % 17 == 0 ? "\n" : i % 23 == 0 ? "{broken\n" : i % 29 == 0 ? "null\n" : "{\"i\":\(i),\"s\":\"é\"}\n"
        }
        try Data((text + "{\"last\":true}").utf8).write(to: URL(fileURLWithPath: path))
        for k in [1, 5, 40] {
            // With a range the whole file is read; without, only its end (JSONLinesBuilder.tail).
            let whole = try synctable([
                "list", path, "--order-by-key", "--start-at", #""0""#, "--limit-to-last", "\(k)", "--format", "jsonl",
            ])
            let end = try synctable(["list", path, "--order-by-key", "--limit-to-last", "\(k)", "--format", "jsonl"])
            let byDefault = try synctable(["list", path, "--limit-to-last", "\(k)", "--format", "jsonl"])
            #expect(whole.status == 0 && whole.output.split(separator: "\n").count == k)
            #expect(end.output == whole.output, "k \(k)")
            #expect(byDefault.output == whole.output, "k \(k)")
        }
    }

    @Test func listOfStandardInputTakesADocumentOrAStreamOfValues() throws {
        let stream = try synctable(["list", "-", "--format", "jsonl"], stdin: "1 2\n{\"a\":\n 3}")
        #expect(stream.output.split(separator: "\n").map(String.init) == [
            #"{"key":"0","value":1}"#, #"{"key":"1","value":2}"#, #"{"key":"2","value":{"a":3}}"#,
        ])
        let document = try synctable(["list", "-", "--format", "jsonl"], stdin: "{\"x\": {\"y\": 1},\n \"z\": 2}\n")
        #expect(document.output.split(separator: "\n").map(String.init) == [#"{"key":"x","value":{"y":1}}"#, #"{"key":"z","value":2}"#])
    }

    @Test func rewritesOfAJSONLinesFileAreRefusedAndLeaveItAlone() throws {
        let folder = ScratchFolder()
        let path = folder.file("keep.jsonl")
        let text = "{\"a\":1}\n{\"a\":2}\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        for arguments in [["set", path, "/0/a", "5"], ["update", path, "/", "{\"0/a\":5}"], ["remove", path, "/1"]] {
            let result = try synctable(arguments)
            #expect(result.status == 1)
            #expect(result.errors.contains("a JSON Lines file is only appended to"), "\(result.errors)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    /// Issue 40 item 2: `validate` reads JSON Lines as every command does, naming each bad line.
    @Test func validateReadsJSONLinesAndNamesEachBadLine() throws {
        let folder = ScratchFolder()
        let good = folder.file("ok.jsonl")
        try Data("{\"a\":1}\n{\"a\":2}\n\n[3]\n".utf8).write(to: URL(fileURLWithPath: good))
        #expect(try synctable(["validate", good]).status == 0)
        // The same bytes under another name are one document, which they are not; --input says how.
        let other = folder.file("ok.log")
        try Data("{\"a\":1}\n{\"a\":2}\n".utf8).write(to: URL(fileURLWithPath: other))
        #expect(try synctable(["validate", other]).status == 1)
        #expect(try synctable(["validate", "--input", "jsonl", other]).status == 0)
        let bad = folder.file("bad.ndjson")
        try Data("{\"a\":1}\n{\"a\":}\n{\"a\":3}\n  {\"b\" 4}\n".utf8).write(to: URL(fileURLWithPath: bad))
        let result = try synctable(["validate", bad])
        #expect(result.status == 1)
        let lines = result.errors.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("\(bad):2:6: error: ") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("\(bad):4:8: error: ") == true, "\(lines)")
        let piped = try synctable(["validate", "--input", "jsonl", "-"], stdin: "{\"a\":1}\n{\"a\":2}\n")
        #expect(piped.status == 0, "\(piped)")
    }
}
