// `events --key` on standard input, as a process reads it while it arrives.
import Foundation
import Testing
import TestSupport

@Suite("Logs folded by a key")
struct KeyedLogCommandTests {
    private static let records = [
        #"{"type": "ADDED", "metadata": {"name": "web"}, "ready": 0}"#,
        #"{"type": "ADDED", "metadata": {"name": "db"}, "ready": 1}"#,
        #"{"type": "MODIFIED", "metadata": {"name": "web"}, "ready": 1}"#,
        #"{"type": "DELETED", "metadata": {"name": "db"}, "ready": 1}"#,
        #"{"type": "BROKEN"}"#,
    ]

    @Test("events --key on standard input: a record for a key seen before changes its child")
    func eventsFromStandardInput() throws {
        let events = try ChildProcess([try synctableBinary(), "events", "-", "--key", ".metadata.name"])
        events.send(Self.records[0])
        #expect(events.readLine()?.hasPrefix(#"{"event":"child_added","key":"web""#) == true, "\(events.standardError())")
        #expect(events.readLine() == #"{"event":"value","count":1}"#)
        events.send(Self.records[2])
        #expect(events.readLine() == #"{"event":"child_changed","key":"web","prevKey":null,"index":0,"value":{"type":"MODIFIED","metadata":{"name":"web"},"ready":1}}"#)
        #expect(events.readLine() == #"{"event":"value","count":1}"#)
        events.closeInput()
        #expect(events.wait(seconds: 30) == 0)
    }
}
