// `synctable events`: the event stream of a real process watching a real file.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite struct EventsCommandTests {
    @Test func streamsTheWindowThenEachRevision() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"items":{"a":{"score":3},"b":{"score":1}}}"#)
        let events = try ChildProcess([try synctableBinary(), "events", path, "--path", "/items",
                                       "--order-by-child", "score", "--exit-after-revisions", "3"])
        #expect(events.readLines(until: isValueLine) == [
            #"{"event":"child_added","key":"b","prevKey":null,"index":0,"value":{"score":1}}"#,
            #"{"event":"child_added","key":"a","prevKey":"b","index":1,"value":{"score":3}}"#,
            #"{"event":"value","count":2}"#,
        ])
        // In place, pretty-printed: values come out on one line, as written (number spelling kept).
        writeInPlace(path, "{\n  \"items\": {\n    \"a\": {\"score\": 0.50},\n    \"b\": {\"score\": 1}\n  }\n}\n")
        #expect(events.readLines(until: isValueLine) == [
            #"{"event":"child_moved","key":"a","prevKey":null,"index":0,"fromIndex":1,"value":{"score":0.50}}"#,
            #"{"event":"child_changed","key":"a","prevKey":null,"index":0,"value":{"score":0.50}}"#,
            #"{"event":"value","count":2}"#,
        ])
        writeByRename(path, #"{"items":{"a":{"score":0.5}}}"#)
        #expect(events.readLines(until: isValueLine) == [
            #"{"event":"child_removed","key":"b","index":1,"value":{"score":1}}"#,
            #"{"event":"value","count":1}"#,
        ])
        #expect(events.wait() == 0)
    }

    @Test func indexesReferToTheListAsReplayedSoFar() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"A":1,"B":2,"D":3}"#)
        let events = try ChildProcess([try synctableBinary(), "events", path, "--order-by-value", "--exit-after-revisions", "2"])
        var rows = [String]()
        /// Applies printed events by index alone, as a list UI would.
        func apply(_ lines: [String]) throws {
            for line in lines.dropLast() {
                let event = try JSONDocument(parsing: line).root
                let key = try #require(event.child("key")?.stringValue)
                let index = Int(try #require(event.child("index")?.doubleValue))
                switch event.child("event")?.stringValue {
                case "child_removed":
                    #expect(rows[index] == key)
                    rows.remove(at: index)
                case "child_added": rows.insert(key, at: index)
                case "child_moved":
                    // Never null: a child added in the same revision has a place to move from too.
                    let from = Int(try #require(event.child("fromIndex")?.doubleValue))
                    #expect(rows[from] == key)
                    rows.remove(at: from)
                    rows.insert(key, at: index)
                default: #expect(rows[index] == key)
                }
            }
        }
        try apply(events.readLines(until: isValueLine))
        #expect(rows == ["A", "B", "D"])
        // D goes, B moves first, C arrives after B and must move again after the move (DESIGN.md).
        writeByRename(path, #"{"A":1,"B":0,"C":0.5}"#)
        let lines = events.readLines(until: isValueLine)
        #expect(lines.contains { $0.hasPrefix(#"{"event":"child_moved","key":"C""#) && !$0.contains(#""fromIndex":null"#) })
        try apply(lines)
        #expect(rows == ["B", "C", "A"])
        #expect(events.wait() == 0)
    }

    // Issue 13 item 8: an invalid file never ended `--exit-after-revisions 1`.
    @Test func anErrorStateCountsAsARevisionForExitAfterRevisions() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, "{\n\"a\":1,\n}")
        let events = try ChildProcess([try synctableBinary(), "events", path, "--exit-after-revisions", "1"])
        let line = try #require(events.readLine())
        #expect(line.hasPrefix(#"{"event":"error","#) && line.contains(#""line":3"#), "\(line)")
        #expect(events.wait() == 0)
        let missing = try ChildProcess([try synctableBinary(), "events", folder.file("none.json"), "--exit-after-revisions", "1"])
        #expect(missing.readLine() == #"{"event":"error","message":"file not found","line":null,"column":null}"#)
        #expect(missing.wait() == 0)
    }

    @Test func errorsAreReportedAndTheStreamGoesOn() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, #"{"a":1}"#)
        let events = try ChildProcess([try synctableBinary(), "events", path])
        _ = events.readLines(until: isValueLine)
        let broken = "{\n\"a\":1,\n}"
        writeInPlace(path, broken)
        let expected: JSONParseError
        do {
            _ = try JSONDocument(parsing: broken)
            Issue.record("the fixture should be invalid")
            return
        } catch { expected = error }
        let error = try JSONDocument(parsing: try #require(events.readLine()))
        #expect(error.root.child("event")?.stringValue == "error")
        #expect(error.root.child("message")?.stringValue == expected.message)
        #expect(error.root.child("line")?.doubleValue == 3)
        #expect(error.root.child("column")?.doubleValue == Double(expected.column))
        writeInPlace(path, "{\n\"a\":2\n}")
        let lines = events.readLines(until: isValueLine)
        #expect(lines.last == #"{"event":"value","count":1}"#)
        unlink(path)
        #expect(events.readLine() == #"{"event":"error","message":"file not found","line":null,"column":null}"#)
        writeByRename(path, #"{"b":true}"#)
        #expect(events.readLines(until: isValueLine).count == 3)
        kill(events.pid, SIGTERM)
        #expect(events.wait() == 0)
    }

    @Test func interruptExitsCleanly() throws {
        let folder = ScratchFolder()
        let path = folder.file("missing.json")
        let events = try ChildProcess([try synctableBinary(), "events", path])
        #expect(events.readLine()?.contains("file not found") == true)
        kill(events.pid, SIGINT)
        #expect(events.wait() == 0)
    }

    /// Issue 43 item 8: a busy or blocked loop (here: writing a large window to a reader that
    /// does not read) still ends on SIGTERM.
    @Test func aSignalEndsItWhileItsOutputIsBlocked() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeInPlace(path, "{" + (0..<20_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}")
        let events = try ChildProcess([try synctableBinary(), "events", path])
        // The first line is out: the stop signal is armed, and the rest (far more than a pipe
        // holds) waits for a reader that never comes.
        #expect(events.readLine()?.hasPrefix(#"{"event":"child_added""#) == true)
        kill(events.pid, SIGTERM)
        let status = events.wait(seconds: 10)
        #expect(status == 0, "still running 10 s after SIGTERM")
        if status == nil { kill(events.pid, SIGKILL) }
    }

    /// Keys and strings from the file cannot break the one-event-per-line format or smuggle
    /// terminal controls: DEL, C1 controls, U+2028/U+2029 are escaped; each line is valid JSON.
    @Test func untrustedTextIsEscaped() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        let nasty = "{\"k\\u001b[31m\\u007f\u{202E}\":\"\\u009b2J\u{7F}\u{85}\u{2028}\u{2029}\u{2066}\u{200F}\",\"q\\\"\\\\\":[\n1,\n2]}"
        writeInPlace(path, nasty)
        let events = try ChildProcess([try synctableBinary(), "events", path, "--exit-after-revisions", "1"])
        let lines = events.readLines(until: isValueLine)
        #expect(events.wait() == 0)
        #expect(lines.count == 3)
        for line in lines {
            #expect(!line.unicodeScalars.contains { isInvisibleControl($0.value) }, "\(line)")
            let doc = try JSONDocument(parsing: line)
            #expect(doc.root.kind == .object)
        }
        // The escaped line means the same as the file: same key, same value.
        let first = try JSONDocument(parsing: lines[0])
        let file = try JSONDocument(parsing: nasty)
        let member = try #require(file.root.members.first { _ in true })
        #expect(first.root.child("key")?.stringValue == member.key.stringValue)
        #expect(first.root.child("value")?.valueEquals(member.value) == true)
        #expect(lines[1] == #"{"event":"child_added","key":"q\"\\","prevKey":"k\u001b[31m\u007f\u202e","index":1,"value":[1,2]}"#)
    }

    // Issue 16: a file seen cut short (a writer half-way through it) was parsed on two threads,
    // and the second thread, failing at the cut, kept its tape: a follower of a large file grew
    // by megabytes each time, more on a busy machine, where readers meet half-written files.
    @Test func aLargeFileSeenCutShortLeavesNoMemoryBehind() throws {
        let folder = ScratchFolder()
        let path = folder.file("large.json")
        // Over 16 MiB: parsed whole on two threads.
        var rest = #", "team": "red"}"#
        rest.reserveCapacity(20_000_000)
        for i in 1..<260_000 { rest += #", "p\#(1_000_000 + i)": {"name": "player \#(i)", "score": \#(i % 977), "team": "blue"}"# }
        rest += "}}"
        func document(_ first: Int) -> String { #"{"players": {"p000000": {"name": "player 0", "score": "# + "\(first)" + rest }
        let whole = Array(document(0).utf8)
        #expect(whole.count > 16 << 20)
        writeByRename(path, document(0))
        let events = try ChildProcess([try synctableBinary(), "events", path, "--path", "/players",
                                       "--order-by-key", "--limit-to-first", "1"])
        #expect(events.readLines(until: isValueLine).count == 2)
        /// Cuts the file at `fraction` of its length (the error is reported), then writes it
        /// whole with the first child's score `first` (its change is reported).
        func cutThenWhole(_ fraction: Double, _ first: Int) {
            writeByRename(path, String(decoding: whole[..<Int(Double(whole.count) * fraction)], as: UTF8.self))
            let error = events.readLine() ?? ""
            #expect(error.hasPrefix(#"{"event":"error","#), "\(error)")
            writeByRename(path, document(first))
            #expect(events.readLines(until: isValueLine).first?.contains(#""score":\#(first),"#) == true)
        }
        // Once: the spare blocks a follower keeps are made.
        cutThenWhole(0.9, 1)
        let before = try residentAnonymousBytes(events.pid)
        for k in 0..<12 { cutThenWhole(0.8 + 0.015 * Double(k), 2 + k) }
        let grown = try residentAnonymousBytes(events.pid) - before
        // With the second thread's tapes kept, it grew by 22 MB here; given back, by 2 MB.
        #expect(grown < 10 << 20, "grew \(grown >> 20) MB over 12 cuts")
    }

    @Test func badFlagsAreNamed() throws {
        let binary = try synctableBinary()
        let zero = try ChildProcess([binary, "events", "x.json", "--exit-after-revisions", "0"])
        #expect(zero.wait() == 2)
        #expect(zero.standardError().contains("--exit-after-revisions"))
        let path = try ChildProcess([binary, "events", "x.json", "--path", "/a~2"])
        #expect(path.wait() == 2)
        #expect(path.standardError().contains("--path"))
        let query = try ChildProcess([binary, "events", "x.json", "--limit-to-first", "2", "--limit-to-last", "3"])
        #expect(query.wait() == 2)
        #expect(query.standardError().contains("--limit-to-last"))
    }
}

/// The line that ends a revision's events.
func isValueLine(_ line: String) -> Bool { line.hasPrefix(#"{"event":"value""#) }

/// A process's resident anonymous memory (`RssAnon`), in bytes.
func residentAnonymousBytes(_ pid: pid_t) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
    return (Int(line.filter(\.isNumber)) ?? 0) * 1024
}
