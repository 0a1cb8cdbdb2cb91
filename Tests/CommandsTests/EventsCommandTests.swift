// `synctable events` run in-process, to the revisions it is asked for: error lines, untrusted
// text escaped, bad flags named.
import CommandTestSupport
import JSONTree
import Testing
import TestSupport

@Suite struct EventsCommandTests {
    // Issue 13 item 8: an invalid file never ended `--exit-after-revisions 1`.
    @Test func anErrorStateCountsAsARevisionForExitAfterRevisions() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        writeFileInPlace(path, Array("{\n\"a\":1,\n}".utf8))
        let events = try synctable(["events", path, "--exit-after-revisions", "1"])
        let line = try #require(events.output.split(separator: "\n").first.map(String.init))
        #expect(line.hasPrefix(#"{"event":"error","#) && line.contains(#""line":3"#), "\(line)")
        #expect(events.status == 0)
        let missing = try synctable(["events", folder.file("none.json"), "--exit-after-revisions", "1"])
        #expect(missing.output == #"{"event":"error","message":"file not found","line":null,"column":null}"# + "\n")
        #expect(missing.status == 0)
    }

    /// Keys and strings from the file cannot break the one-event-per-line format or smuggle
    /// terminal controls: DEL, C1 controls, U+2028/U+2029 are escaped; each line is valid JSON.
    @Test func untrustedTextIsEscaped() throws {
        let folder = ScratchFolder()
        let path = folder.file("data.json")
        let nasty = "{\"k\\u001b[31m\\u007f\u{202E}\":\"\\u009b2J\u{7F}\u{85}\u{2028}\u{2029}\u{2066}\u{200F}\",\"q\\\"\\\\\":[\n1,\n2]}"
        writeFileInPlace(path, Array(nasty.utf8))
        let events = try synctable(["events", path, "--exit-after-revisions", "1"])
        let lines = events.output.split(separator: "\n").map(String.init)
        #expect(events.status == 0)
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

    @Test func badFlagsAreNamed() throws {
        let zero = try synctable(["events", "x.json", "--exit-after-revisions", "0"])
        #expect(zero.status == 2)
        #expect(zero.errors.contains("--exit-after-revisions"))
        let path = try synctable(["events", "x.json", "--path", "/a~2"])
        #expect(path.status == 2)
        #expect(path.errors.contains("--path"))
        let query = try synctable(["events", "x.json", "--limit-to-first", "2", "--limit-to-last", "3"])
        #expect(query.status == 2)
        #expect(query.errors.contains("--limit-to-last"))
    }
}
