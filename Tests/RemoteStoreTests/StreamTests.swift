// Following a location of `synctable serve`: the first put, every edit of the file by another
// process, and stopping.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
@testable import RemoteStore
import Testing
import TestSupport
import Synchronization

@Suite struct StreamTests {
    static let players = Path(keys: ["players"])

    @Test func theStreamBuildsTheFileAsItIsEdited() async throws {
        let folder = ScratchFolder("remote-stream")
        var model: JSON = ["players": ["alice": ["score": 1], "bob": ["score": 2]], "other": 0]
        let file = folder.write("db.json", model.serializedString(.pretty))
        let server = try ServedFile(file: file, arguments: ["--keep-alive-ms", "200"])
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let (connection, recorder) = try follow(server.url("/players"), client: client)
        defer { connection.stop() }
        #expect(await eventually { recorder.state == .online })
        #expect(recorder.batches.first == [.put(.root, model["players"]!)], "the first batch is the whole location")
        #expect(recorder.value == model["players"])

        // Random edits of the file by another process, saved in place and by rename; after
        // each, the events applied in order give the file's value.
        var random = SplitMix64(seed: 0x5EED)
        for step in 0..<24 {
            var players = model["players"]?.objectValue ?? JSONObject()
            let name = ["alice", "bob", "carol", "dave", "eve"].randomElement(using: &random)!
            switch Int.random(in: 0..<4, using: &random) {
            case 0: players[name] = nil
            case 1: players[name] = ["score": .number(JSONNumber(Int.random(in: 0...99, using: &random))), "team": .string("t\(step % 3)")]
            case 2: for key in players.keys { players[key] = ["score": .number(JSONNumber(step))] }
            default: model = ["players": .object(players), "other": .number(JSONNumber(step))]
            }
            model = ["players": .object(players), "other": model["other"] ?? 0]
            let bytes = Array(model.serializedString(step % 2 == 0 ? .pretty : .compact).utf8)
            if step % 3 == 0 { writeFileInPlace(file, bytes) } else { writeFileByRename(file, bytes) }
            #expect(await eventually { recorder.value == (fileValue(file, at: Self.players) ?? .null) }, "step \(step)")
        }
        #expect(recorder.value == normalized(model["players"] ?? .null))
        #expect(recorder.problems.isEmpty)
        #expect(recorder.rootPuts == 1, "one connection all along")
        #expect(recorder.states == [.connecting, .online])
    }

    @Test func stopEndsTheTaskAndTheCallbacks() async throws {
        let folder = ScratchFolder("remote-stop")
        let file = folder.write("db.json", #"{"a": {"x": 1}}"#)
        let server = try ServedFile(file: file)
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let (connection, recorder) = try follow(server.url("/a"), client: client)
        #expect(await eventually { recorder.state == .online })
        await connection.stop()
        #expect(connection.hasEnded)
        let delivered = recorder.batches.count
        await connection.stop()  // again: nothing

        // An edit the server streams: a second connection sees it, the stopped one does not.
        let (witness, seen) = try follow(server.url("/a"), client: client)
        defer { witness.stop() }
        #expect(await eventually { seen.state == .online })
        writeFileByRename(file, Array(#"{"a": {"x": 2}}"#.utf8))
        #expect(await eventually { seen.value == ["x": 2] })
        #expect(recorder.batches.count == delivered)
    }

    @Test func stopIsPromptWhileWaitingToReconnect() async throws {
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        // Nothing listens on this port: every try fails, and the next one is a minute away.
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let (connection, recorder) = try follow(closed.url("/a"), client: client,
                                                options: .init(backoff: Backoff(initial: .seconds(60), maximum: .seconds(60))))
        #expect(await eventually { if case .reconnecting = recorder.state { true } else { false } })
        // Were stop to wait out the backoff, this would take a minute; it returns with the task
        // ended. (Not timed: on a loaded machine the test's own resumption may take longer.)
        await connection.stop()
        #expect(connection.hasEnded)
    }

    @Test func stopFromInsideACallbackDoesNotWaitForItself() async throws {
        let folder = ScratchFolder("remote-stop-inside")
        let server = try ServedFile(file: folder.write("db.json", #"{"a": 1}"#))
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let box = Shared<EventStreamConnection?>(nil)
        let recorder = Recorder()
        let connection = EventStreamConnection(
            client: client, url: try DatabaseURL(parsing: server.url("/a"), environment: [:]), credential: nil,
            onEvents: recorder.onEvents,
            onState: { state in
                recorder.onState(state)
                if state == .online { box.withLock { $0 }?.stop() }
            })
        box.withLock { $0 = connection }
        connection.start()
        #expect(await eventually { connection.hasEnded })
        #expect(recorder.states == [.connecting, .online])
        #expect(recorder.value == 1)
    }
}

/// A value shared between tasks and threads.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
