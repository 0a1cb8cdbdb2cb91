// `synctable events`: the event stream of a real process watching a real file, as it arrives,
// and ended by a signal (the rest: Tests/CommandsTests).
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

}

/// The line that ends a revision's events.
func isValueLine(_ line: String) -> Bool { line.hasPrefix(#"{"event":"value""#) }
