// The store's write API: its own listeners see a write at once, as one revision, with the
// events another process's write would give; the file system's later notice adds nothing.
#if canImport(Glibc)
import Glibc
#endif
@testable import FileStore
import JSONTree
import LiveQuery
import Testing
import TestSupport

private let players = """
    {
      "players": {
        "a": {"score": 1},
        "b": {"score": 2}
      },
      "title": "Scores"
    }

    """

/// A store on `file`, with its first revision read.
private func openStore(_ file: String) throws -> RecordingStore {
    let recording = try RecordingStore(path: file)
    recording.run { recording.store.currentRevision != nil }
    return recording
}

/// Every event of `ref` from now on, as text.
private func recordEvents(_ ref: StoreReference) -> EventLog {
    let log = EventLog()
    ref.observeChanges { change in
        log.lines += change.childEvents.map(\.description) + ["value \(change.new.keys.joined(separator: ","))"]
    }
    log.lines = []  // the initial window
    return log
}

final class EventLog { var lines: [String] = [] }

@Suite struct WriteStoreTests {
    @Test func listenersSeeTheWriteAsOneRevisionAtOnce() throws {
        let folder = ScratchFolder()
        let file = folder.file("scores.json")
        writeInPlace(file, players)
        let recording = try openStore(file)
        let store = recording.store
        let events = recordEvents(try store.reference(Path("/players")).orderByChild(Path("score")))
        let before = recording.revisions.count

        let result = try store.update(Path("/players"), [(Path("a/score"), 5), (Path("c"), ["score": 0])])

        // Before any loop turn: one new revision, the file's new bytes, and its events.
        #expect(recording.revisions.count == before + 1)
        #expect(store.currentRevision?.document.bytes.array == readAll(file))
        #expect(result.changed && result.attempts == 1)
        #expect(events.lines == [
            "child_added c prev null @0",
            "child_moved a prev b @2 from 0",
            "child_changed a prev b @2 from 0",
            "value c,b,a",
        ])
        // The file system's notice of our write finds the same bytes: no second revision.
        recording.settle(milliseconds: 400)
        #expect(recording.revisions.count == before + 1)
        #expect(events.lines.count == 4)
        // The write was minimal.
        #expect(Disk.text(file) == """
            {
              "players": {
                "a": {"score": 5},
                "b": {"score": 2},
                "c": {
                  "score": 0
                }
              },
              "title": "Scores"
            }

            """)
    }

    @Test func eventsAreTheSameAsForAnotherProcessesWrite() throws {
        let folder = ScratchFolder()
        let ours = folder.file("ours.json"), theirs = folder.file("theirs.json")
        writeInPlace(ours, players)
        writeInPlace(theirs, players)
        let a = try openStore(ours), b = try openStore(theirs)
        let query = { (s: FileStore) throws -> StoreReference in try s.reference(Path("/players")).orderByChild(Path("score")).limitToFirst(2) }
        let ourEvents = recordEvents(try query(a.store)), theirEvents = recordEvents(try query(b.store))

        try a.store.set(Path("/players/b"), nil)
        try a.store.reference(Path("/players")).push(["score": -1])
        // Another process writes the same states to the other file.
        for revision in a.revisions.suffix(2) {
            writeByRename(theirs, String(decoding: revision.document.bytes, as: UTF8.self))
            b.waitForContent(String(decoding: revision.document.bytes, as: UTF8.self))
        }
        #expect(ourEvents.lines.count > 2)
        #expect(ourEvents.lines == theirEvents.lines)
    }

    @Test func aWriteAppliesToTheFilesNewestContent() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"n": 1}"#)
        let recording = try openStore(file)
        // Another process changes the file; the store has not seen it yet.
        writeByRename(file, #"{"n": 10, "theirs": true}"#)
        try recording.store.set(Path("/n"), [".sv": ["increment": 1]])
        #expect(Disk.text(file) == #"{"n": 11, "theirs": true}"#)
        #expect(recording.currentText == #"{"n": 11, "theirs": true}"#)
        recording.settle(milliseconds: 300)
        #expect(recording.contents == [#"{"n": 1}"#, #"{"n": 11, "theirs": true}"#])
    }

    @Test func aFailedWriteChangesNothing() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, #"{"a": [1]}"#)
        let recording = try openStore(file)
        // An array's children are its indexes: "b" cannot be one.
        #expect(throws: WriteError.self) { try recording.store.set(Path("/a/b"), true) }
        #expect(recording.revisions.count == 1)
        #expect(Disk.text(file) == #"{"a": [1]}"#)
        // A write that changes nothing makes no revision either.
        let result = try recording.store.remove(Path("/missing"))
        #expect(!result.changed && recording.revisions.count == 1)
    }

    @Test func referencesWriteTheirLocation() throws {
        let folder = ScratchFolder()
        let file = folder.file("data.json")
        writeInPlace(file, "{}")
        let recording = try openStore(file)
        let store = recording.store
        let list = store.reference(try Path("/list"))
        let first = try list.push("one"), second = try list.push("two")
        try list.child("x").set(["y": 1])
        #expect(Disk.text(file) == "{\n  \"list\": {\n    \"\(first.path.lastKey!)\": \"one\",\n    \"\(second.path.lastKey!)\": \"two\",\n    \"x\": {\n      \"y\": 1\n    }\n  }\n}")
        try first.remove()
        try second.remove()
        try list.child("x").update([(Path("y"), nil)])
        #expect(Disk.text(file) == "{}")
        #expect(store.currentRevision?.document.bytes.array == Array("{}".utf8))
        #expect(recording.revisions.count == 1 + 6)
    }
}

// Item 1: a write must never block the loop thread (the viewer's), even while another writer
// holds the file's lock.
@Suite struct StartedWriteTests {
    @Test func aStartedWriteReturnsAtOnceAndIsDeliveredOnTheLoop() throws {
        let folder = ScratchFolder()
        let file = folder.file("scores.json")
        writeInPlace(file, players)
        let recording = try openStore(file)
        let store = recording.store
        // Another process holds the file's lock (and its folder's, which older writers took)
        // until told to stop.
        let holder = try startProcess(["/usr/bin/flock", folder.path, "/usr/bin/flock", file, "/bin/sh", "-c", #"touch "$1.held"; while [ ! -e "$1.go" ]; do sleep 0.01; done"#, "sh", file])
        defer { _ = waitForExit(holder) }
        recording.run { access(file + ".held", F_OK) == 0 }

        var results: [Result<WriteResult, WriteError>] = []
        store.startWrite(JSONWrite.set(try Path("/players/a/score"), 5)) { results.append($0) }
        let key = store.startPush(try Path("/players"), ["score": 0]) { results.append($0) }
        // Returned while the lock is held: nothing written, nobody told.
        #expect(results.isEmpty)
        #expect(readAll(file) == Array(players.utf8))
        store.waitAndProcessChanges(timeoutMilliseconds: 200)
        #expect(results.isEmpty)

        writeInPlace(file + ".go", "")
        recording.run { results.count == 2 }
        #expect(results.allSatisfy { (try? $0.get())?.changed == true })
        let root = try JSONDocument(parsing: readAll(file)!).root
        #expect(root.node(at: try Path("/players/a/score"))?.json == 5)
        #expect(root.node(at: try Path("/players/\(key)/score"))?.json == 0)
        // The push may finish after the set's revision was published, and is then not made
        // current itself: the file's next read brings it (see `startWrite`).
        let written = readAll(file)
        recording.run { store.currentRevision?.document.bytes.array == written }
    }

    @Test func aStartedWritesFailureIsDeliveredAndChangesNothing() throws {
        let folder = ScratchFolder()
        let file = folder.file("scores.json")
        let text = #"{"list": [1, 2]}"#
        writeInPlace(file, text)
        let recording = try openStore(file)
        let revision = recording.store.currentRevision?.number
        var result: Result<WriteResult, WriteError>?
        // An array's children are its indexes: "x" cannot be one.
        recording.store.startWrite(JSONWrite.set(try Path("/list/x"), 1)) { result = $0 }
        recording.run { result != nil }
        guard case .failure(.edit) = result else { Issue.record("got \(String(describing: result))"); return }
        #expect(readAll(file) == Array(text.utf8))
        #expect(recording.store.currentRevision?.number == revision)
    }
}
