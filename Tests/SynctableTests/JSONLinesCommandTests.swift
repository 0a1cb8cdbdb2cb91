// `events` and `push` on JSON Lines files and on standard input, run as processes (the rest:
// Tests/CommandsTests).
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
}
