// Faults: the server killed and restarted, a proxy that stalls or cuts the stream. Each ends
// online with the file's current value.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
@testable import RemoteStore
import Testing
import TestSupport

@Suite struct ReconnectTests {
    private func isReconnecting(_ state: ConnectionState?, _ reason: String = "") -> Bool {
        if case .reconnecting(_, _, let why) = state { reason.isEmpty || why.contains(reason) } else { false }
    }

    @Test func aRestartedServerIsFollowedAgain() async throws {
        let folder = ScratchFolder("remote-restart")
        let file = folder.write("db.json", #"{"p": {"a": 1, "b": 2}}"#)
        let server = try ServedFile(file: file, arguments: ["--keep-alive-ms", "200"])
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let (connection, recorder) = try follow(server.url("/p"), client: client)
        defer { connection.stop() }
        #expect(await eventually { recorder.state == .online && recorder.value == ["a": 1, "b": 2] })

        server.kill()
        #expect(await eventually { isReconnecting(recorder.state) })
        // Edited while the server is down.
        writeFileByRename(file, Array(#"{"p": {"a": 1, "b": 3, "c": 4}}"#.utf8))
        try server.start()
        #expect(await eventually { recorder.state == .online && recorder.rootPuts == 2 })
        #expect(recorder.value == ["a": 1, "b": 3, "c": 4])

        // connecting, online, one or more tries, online; the fresh put is one batch of its own.
        let states = recorder.states
        #expect(states.prefix(2) == [.connecting, .online] && states.last == .online)
        #expect(states.dropFirst(2).dropLast().allSatisfy { isReconnecting($0) } && states.count >= 4)
        if case .reconnecting(let attempt, let delay, _) = states[2] {
            #expect(attempt == 1 && (50...100).contains(delay))
        }
        let fresh = recorder.batches.last { $0.contains { if case .put(let path, _) = $0 { path.isRoot } else { false } } }
        #expect(fresh == [.put(.root, ["a": 1, "b": 3, "c": 4])])
        #expect(recorder.problems.isEmpty)
    }

    @Test func aStalledStreamIsDroppedAfterTheIdleTimeout() async throws {
        let folder = ScratchFolder("remote-stall")
        let file = folder.write("db.json", #"{"p": {"a": 1}}"#)
        let server = try ServedFile(file: file, arguments: ["--keep-alive-ms", "100"])
        let proxy = try Proxy(target: server.port, folder: folder)
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let (connection, recorder) = try follow("http://127.0.0.1:\(proxy.port)/p", client: client,
                                                options: .init(idleTimeout: .milliseconds(1500)))
        defer { connection.stop() }
        #expect(await eventually { recorder.state == .online && recorder.value == ["a": 1] })

        proxy.send("stall")
        writeFileByRename(file, Array(#"{"p": {"a": 2}}"#.utf8))
        #expect(await eventually { recorder.states.contains { isReconnecting($0, "nothing received for 1500 ms") } })
        proxy.send("resume")
        #expect(await eventually { recorder.state == .online && recorder.value == ["a": 2] })
        #expect(recorder.rootPuts >= 2)
        #expect(recorder.problems.isEmpty)
    }

    @Test func aCutStreamIsFollowedAgain() async throws {
        let folder = ScratchFolder("remote-cut")
        let file = folder.write("db.json", #"{"p": {"a": 1}}"#)
        let server = try ServedFile(file: file)
        let proxy = try Proxy(target: server.port, folder: folder)
        let client = RemoteClient()
        defer { try? client.syncShutdown() }
        let (connection, recorder) = try follow("http://127.0.0.1:\(proxy.port)/p", client: client)
        defer { connection.stop() }
        #expect(await eventually { recorder.state == .online })

        proxy.send("stall")
        writeFileByRename(file, Array(#"{"p": {"a": 5, "z": 0}}"#.utf8))
        proxy.send("cut")
        proxy.send("resume")
        #expect(await eventually { recorder.rootPuts == 2 && recorder.state == .online && recorder.value == ["a": 5, "z": 0] })
        #expect(recorder.states.contains { isReconnecting($0) })
        #expect(recorder.problems.isEmpty)
    }
}
