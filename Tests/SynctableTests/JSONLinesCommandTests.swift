// `list`, `events` and `push` on JSON Lines files and on standard input, run as processes.
import Foundation
import JSONTree
import Testing
import TestSupport

/// `synctable ARGUMENTS` running in `directory`, its output read line by line as it is written.
private func streaming(_ arguments: [String], directory: String) throws -> ChildProcess {
    try ChildProcess([try synctableBinary()] + arguments, directory: directory)
}

extension ChildProcess {
    /// Lines up to and including the first that contains `needle`.
    fileprivate func lines(through needle: String, seconds: Double = 15) -> [String] {
        let lines = readLines(until: { $0.contains(needle) }, seconds: seconds)
        if lines.last?.contains(needle) != true { Issue.record("no line with \(needle) after \(lines)") }
        return lines
    }
}

/// The peak resident size of process `pid` so far, in bytes.
private func peakResident(_ pid: pid_t) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
    return try #require(Int(line.split(separator: " ")[1])) * 1024
}

private func append(_ text: String, to path: String) throws {
    let handle = try #require(FileHandle(forWritingAtPath: path))
    handle.seekToEndOfFile()
    handle.write(Data(text.utf8))
    try handle.close()
}

@Suite struct JSONLinesCommandTests {
    @Test func listReadsLinesAsChildrenWithErrorRowsAndQueriesThem() throws {
        let folder = ScratchFolder()
        let path = folder.file("app.jsonl")
        try Data("{\"level\":\"info\",\"n\":1}\n\n{\"level\":\"error\",\"n\":2}\n{bad\n{\"level\":\"error\",\"n\":4}\n".utf8)
            .write(to: URL(fileURLWithPath: path))
        let all = try runProgram(try synctableBinary(), ["list", path, "--format", "jsonl"])
        #expect(all.status == 0)
        #expect(all.output.split(separator: "\n").map(String.init) == [
            #"{"key":"0","value":{"level":"info","n":1}}"#,
            #"{"key":"2","value":{"level":"error","n":2}}"#,
            #"{"key":"3","value":{"$error":{"line":4,"column":2,"message":"expected a string key, found 'b'"}}}"#,
            #"{"key":"4","value":{"level":"error","n":4}}"#,
        ])
        let errors = try runProgram(try synctableBinary(), [
            "list", path, "--format", "jsonl", "--order-by-child", "level", "--equal-to", "error", "--limit-to-last", "1",
        ])
        #expect(errors.output == #"{"key":"4","value":{"level":"error","n":4}}"# + "\n")
        // Any file can be read as JSON Lines; `--path` reaches into the records.
        let renamed = folder.file("app.log")
        try FileManager.default.copyItem(atPath: path, toPath: renamed)
        let inner = try runProgram(try synctableBinary(), ["list", renamed, "--input", "jsonl", "--path", "/4", "--format", "jsonl"])
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
            let whole = try runProgram(try synctableBinary(), [
                "list", path, "--order-by-key", "--start-at", #""0""#, "--limit-to-last", "\(k)", "--format", "jsonl",
            ])
            let end = try runProgram(try synctableBinary(), ["list", path, "--order-by-key", "--limit-to-last", "\(k)", "--format", "jsonl"])
            let byDefault = try runProgram(try synctableBinary(), ["list", path, "--limit-to-last", "\(k)", "--format", "jsonl"])
            #expect(whole.status == 0 && whole.output.split(separator: "\n").count == k)
            #expect(end.output == whole.output, "k \(k)")
            #expect(byDefault.output == whole.output, "k \(k)")
        }
    }

    @Test func listOfStandardInputTakesADocumentOrAStreamOfValues() throws {
        let folder = ScratchFolder()
        let stream = try streaming(["list", "-", "--format", "jsonl"], directory: folder.path)
        stream.write("1 2\n{\"a\":\n 3}")
        stream.closeInput()
        #expect(stream.lines(through: #""key":"2""#) == [
            #"{"key":"0","value":1}"#, #"{"key":"1","value":2}"#, #"{"key":"2","value":{"a":3}}"#,
        ])
        let document = try streaming(["list", "-", "--format", "jsonl"], directory: folder.path)
        document.write("{\"x\": {\"y\": 1},\n \"z\": 2}\n")
        document.closeInput()
        #expect(document.lines(through: #""key":"z""#) == [#"{"key":"x","value":{"y":1}}"#, #"{"key":"z","value":2}"#])
    }

    @Test func eventsFollowAppendsAndPrintAnErrorEventForABadLine() throws {
        let folder = ScratchFolder()
        let path = folder.file("events.ndjson")
        try Data("{\"n\":0}\n".utf8).write(to: URL(fileURLWithPath: path))
        let events = try streaming(["events", path], directory: folder.path)
        #expect(events.lines(through: #""event":"value""#) == [
            #"{"event":"child_added","key":"0","prevKey":null,"index":0,"value":{"n":0}}"#, #"{"event":"value","count":1}"#,
        ])
        // Half a line first: nothing until its newline arrives.
        try append("{\"n\":", to: path)
        try append("1}\n{oops\n{\"n\":3}\n", to: path)
        let lines = events.lines(through: #""key":"3""#) + events.lines(through: #""event":"error""#)
        #expect(lines.contains(#"{"event":"child_added","key":"1","prevKey":"0","index":1,"value":{"n":1}}"#))
        #expect(lines.contains(#"{"event":"child_added","key":"2","prevKey":"1","index":2,"value":{"$error":{"line":3,"column":2,"message":"expected a string key, found 'o'"}}}"#))
        #expect(lines.contains(#"{"event":"error","key":"2","message":"expected a string key, found 'o'","line":3,"column":2}"#))
        #expect(lines.last(where: { $0.contains("child_added") })?.contains(#""key":"3""#) == true)
    }

    @Test func eventsOnTheNewestLinesOfALargeLogReadOnlyItsEnd() throws {
        // Over the 32 MB from which a log opens at its newest records; `--limit-to-last` in line
        // order never needs an older record, so the older ones are never read as records.
        let folder = ScratchFolder()
        let path = folder.file("large.jsonl")
        let pad = String(repeating: "x", count: 180)
        let count = 190_000
        var text = ""
        text.reserveCapacity(count * 200)
        for i in 0..<count { text += "{\"i\":\(i),\"pad\":\"\(pad)\"}\n" }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let size = text.utf8.count
        text = ""
        let events = try streaming(["events", path, "--limit-to-last", "2"], directory: folder.path)
        let first = events.lines(through: #""event":"value""#)
        #expect(first.count == 3 && first[0].contains(#""key":"\#(count - 2)""#) && first[1].contains(#""key":"\#(count - 1)""#), "\(first)")
        try append("{oops\n{\"i\":\"new\"}\n", to: path)
        let next = events.lines(through: #""key":"\#(count + 1)""#)
        #expect(next.contains { $0.contains(#""event":"child_removed","key":"\#(count - 1)""#) })
        #expect(next.contains { $0.contains(#""event":"child_added","key":"\#(count)""#) && $0.contains("$error") })
        #expect(next.last?.contains(#""value":{"i":"new"}"#) == true, "\(next)")
        // Its memory: the newest records and a `null` per older line. With a range, every record
        // is read: that costs at least the file's size more.
        let whole = try streaming(["events", path, "--order-by-key", "--start-at", #""0""#, "--limit-to-last", "2"],
                                  directory: folder.path)
        #expect(whole.lines(through: #""event":"value""#).count == 3)
        let (tailPeak, wholePeak) = (try peakResident(events.pid), try peakResident(whole.pid))
        #expect(tailPeak + size < wholePeak, "peak \(tailPeak / 1_000_000) MB from the end, \(wholePeak / 1_000_000) MB whole, for a \(size / 1_000_000) MB log")
        for process in [events, whole] {
            process.signal(SIGTERM)
            _ = process.wait()
        }
    }

    @Test func eventsOfStandardInputEndWithTheInput() throws {
        let folder = ScratchFolder()
        let events = try streaming(["events", "-"], directory: folder.path)
        events.write("{\"a\":1}\n")
        #expect(events.lines(through: #""event":"value""#).first == #"{"event":"child_added","key":"0","prevKey":null,"index":0,"value":{"a":1}}"#)
        events.write("{\"a\":2}\n")
        #expect(events.lines(through: #""event":"value""#).first == #"{"event":"child_added","key":"1","prevKey":"0","index":1,"value":{"a":2}}"#)
        events.closeInput()
        #expect(events.readLine() == nil)
        #expect(events.wait() == 0)
    }

    @Test func racingPushesAppendWholeLinesWithDistinctKeys() throws {
        let folder = ScratchFolder()
        let path = folder.file("race.jsonl")
        let binary = try synctableBinary()
        // Two shells push 40 records each at the same time.
        let script = """
            for w in a b; do
              (i=0; while [ $i -lt 40 ]; do "$1" push "$2" / "{\\"w\\":\\"$w\\",\\"i\\":$i,\\"pad\\":\\"$(printf '%0500d' 0)\\"}" >> "$3.$w" || exit 1; i=$((i+1)); done) &
            done
            wait
            """
        let result = try runProgram("/bin/sh", ["-c", script, "sh", binary, path, folder.file("keys")])
        #expect(result.status == 0, "\(result.errors)")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 81 && lines.last == "")
        for line in lines.dropLast() {
            let record = try JSONDocument(parsing: String(line)).root
            #expect(record.child("pad")?.stringValue?.count == 500)
        }
        let keys = try ["a", "b"].flatMap { w in
            try String(contentsOfFile: folder.file("keys.\(w)"), encoding: .utf8).split(separator: "\n").map { Int($0)! }
        }
        #expect(keys.sorted() == Array(0..<80))
        // Each printed key is the index of the line holding that record.
        for w in ["a", "b"] {
            let own = try String(contentsOfFile: folder.file("keys.\(w)"), encoding: .utf8).split(separator: "\n").map { Int($0)! }
            for (i, key) in own.enumerated() {
                let record = try JSONDocument(parsing: String(lines[key])).root
                #expect(record.child("w")?.stringValue == w && record.child("i")?.doubleValue == Double(i))
            }
        }
    }

    @Test func rewritesOfAJSONLinesFileAreRefusedAndLeaveItAlone() throws {
        let folder = ScratchFolder()
        let path = folder.file("keep.jsonl")
        let text = "{\"a\":1}\n{\"a\":2}\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        for arguments in [["set", path, "/0/a", "5"], ["update", path, "/", "{\"0/a\":5}"], ["remove", path, "/1"]] {
            let result = try runProgram(try synctableBinary(), arguments)
            #expect(result.status == 1)
            #expect(result.errors.contains("a JSON Lines file is only appended to"), "\(result.errors)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    /// Issue 40 item 2: `validate` reads JSON Lines as every command does, naming each bad line.
    @Test func validateReadsJSONLinesAndNamesEachBadLine() throws {
        let binary = try synctableBinary()
        let folder = ScratchFolder()
        let good = folder.file("ok.jsonl")
        try Data("{\"a\":1}\n{\"a\":2}\n\n[3]\n".utf8).write(to: URL(fileURLWithPath: good))
        #expect(try runProgram(binary, ["validate", good]).status == 0)
        // The same bytes under another name are one document, which they are not; --input says how.
        let other = folder.file("ok.log")
        try Data("{\"a\":1}\n{\"a\":2}\n".utf8).write(to: URL(fileURLWithPath: other))
        #expect(try runProgram(binary, ["validate", other]).status == 1)
        #expect(try runProgram(binary, ["validate", "--input", "jsonl", other]).status == 0)
        let bad = folder.file("bad.ndjson")
        try Data("{\"a\":1}\n{\"a\":}\n{\"a\":3}\n  {\"b\" 4}\n".utf8).write(to: URL(fileURLWithPath: bad))
        let result = try runProgram(binary, ["validate", bad])
        #expect(result.status == 1)
        let lines = result.errors.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("\(bad):2:6: error: ") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("\(bad):4:8: error: ") == true, "\(lines)")
        let piped = try runProgram("/bin/bash", ["-c", #"printf '{"a":1}\n{"a":2}\n' | exec "$1" validate --input jsonl -"#, "bash", binary])
        #expect(piped.status == 0, "\(piped)")
    }
}
