// Accept: text/event-stream: the first put, then put/patch for each revision from any writer.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
@testable import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct StreamTests {
    /// Opens a stream of `target`; returns the connection after its first event.
    static func open(_ server: some ServedForTest, _ target: String) throws -> (HTTPConnection, ServerEvent) {
        let connection = try server.connect()
        connection.send(HTTPConnection.requestBytes("GET", target, headers: [("Accept", "text/event-stream")]))
        let head = try connection.readHead()
        #expect(head.status == 200 && head.header("content-type") == "text/event-stream; charset=utf-8")
        let first = try #require(try connection.readDataEvent())
        return (connection, first)
    }

    @Test func streamsEveryRevisionFromAnyWriter() async throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"players": {"alice": {"score": 1}, "bob": {"score": 2}}, "other": 0}"#)
        let server = try await InProcessServer(file: file)
        let (stream, first) = try Self.open(server, "/players.json")
        #expect(first.name == "put")
        #expect(first.json == json(#"{"path":"/","data":{"alice":{"score":1},"bob":{"score":2}}}"#))

        // A REST write: the deepest location that changed.
        _ = try server.request("PUT", "/players/alice/score.json", body: "5")
        #expect(try stream.readDataEvent()?.json == json(#"{"path":"/alice/score","data":5}"#))
        // Paths are the database's: a key with "~" is as it is (no JSON-pointer escapes).
        _ = try server.request("PUT", "/players/alice/a~b.json", body: "1")
        #expect(try stream.readDataEvent()?.json == json(#"{"path":"/alice/a~b","data":1}"#))
        _ = try server.request("DELETE", "/players/alice/a~b.json")
        #expect(try stream.readDataEvent()?.json == json(#"{"path":"/alice/a~b","data":null}"#))

        // Another process's edit of the file (an editor's save by rename), changing two children: a patch.
        folder.write("db.json", #"{"players": {"alice": {"score": 5}, "bob": {"score": 3}, "carol": {"score": 4}}, "other": 0}"#)
        let patch = try #require(try stream.readDataEvent())
        #expect(patch.name == "patch")
        #expect(patch.json == json(#"{"path":"/","data":{"bob":{"score":3},"carol":{"score":4}}}"#))

        // A change elsewhere in the file sends nothing; a removal is a put of null.
        folder.write("db.json", #"{"players": {"alice": {"score": 5}, "bob": {"score": 3}, "carol": {"score": 4}}, "other": 1}"#)
        _ = try server.request("DELETE", "/players/carol.json")
        let removal = try #require(try stream.readDataEvent())
        #expect(removal.name == "put" && removal.json == json(#"{"path":"/carol","data":null}"#))
        try await server.stop()
    }

    @Test func idleStreamsGetKeepAlives() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", #"{"a": 1}"#), options: ServeOptions(keepAliveMilliseconds: 50))
        let (stream, _) = try Self.open(server, "/a.json")
        let event = try #require(try stream.readEvent())
        #expect(event == ServerEvent(name: "keep-alive", data: "null"))
        try await server.stop()
    }

    @Test func removingTheFileCancelsStreams() async throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"a": 1}"#)
        let server = try await InProcessServer(file: file)
        let (stream, _) = try Self.open(server, "/a.json")
        unlink(file)
        #expect(try stream.readDataEvent(seconds: 30)?.name == "cancel")
        #expect(try stream.readEvent() == nil)
        try await server.stop()
    }

    /// 150 streams of an 11 MB file that never read held 1.7 GB, and each serialised the file:
    /// the first put is serialised once for all, a stream holds a slice of it, and a stream
    /// that still owes more than its limit when the file changes is dropped.
    @Test func streamsThatDoNotReadShareOnePutAndAreDroppedPastTheirBytes() async throws {
        let folder = ScratchFolder()
        // Larger than the kernel's send buffer (4 MB at most here) and the limit together.
        let big = String(repeating: "b", count: 6_000_000)
        let file = folder.write("db.json", #"{"big": "\#(big)", "n": 0}"#)
        let served = try await InProcessServer(file: file, options: ServeOptions(streamUnsentLimit: 1 << 20))
        var slow = [HTTPConnection]()
        for _ in 0..<6 {
            let connection = try served.connect(receiveBuffer: 4096)
            connection.send(HTTPConnection.requestBytes("GET", "/.json", headers: [("Accept", "text/event-stream")]))
            slow.append(connection)
        }
        let (reader, first) = try StreamTests.open(served, "/n.json")
        #expect(first.json == json(#"{"path":"/","data":0}"#))
        // Every slow stream is stuck in its put, owing most of it.
        eventually("six streams stuck in their first put") {
            served.server.feed.unsentBytes.filter { $0 > 1 << 20 }.count == 6
        }
        #expect(served.server.events.computations == 2, "one put of the file for six streams, one of /n")

        _ = try served.request("PUT", "/n.json", body: "1")
        #expect(try reader.readDataEvent()?.json == json(#"{"path":"/","data":1}"#))
        eventually("the slow streams dropped") { served.server.feed.streamCount == 1 }
        #expect(await closedByServer(slow, seconds: 10) == Array(repeating: true, count: slow.count))
        try await served.stop()
    }

    /// The event computed on parsed trees is the one computed on whole values, for random edits
    /// of random trees (with priorities, which a stream leaves out).
    @Test func eventsFromTreesMatchEventsFromValues() throws {
        var events = [String: Int]()
        try forEachSeed(200, base: 0x57AE) { seed, random in
            let old = RandomTree.withPriorities(RandomTree.make(&random), &random)
            var items = old["items"]!.objectValue!.members
            for _ in 0..<random.int(0...3) {
                let i = random.int(0..<items.count)
                switch random.int(0..<4) {
                case 0: items.remove(at: i)
                case 1: items[i].value = RandomTree.child(&random)
                case 2: items.append(("new\(random.int(0...99))", RandomTree.child(&random)))
                default:
                    if case .object(let fields) = items[i].value {
                        items[i].value = .object(JSONObject(fields.members.filter { $0.key != "name" } + [("name", "renamed")]))
                    }
                }
            }
            var unique = [String: Int]()
            items = items.filter { unique.updateValue(1, forKey: $0.key) == nil }
            let new = JSON.object(JSONObject([("items", .object(JSONObject(items)))]))
            let oldDocument = JSONDocument(old), newDocument = JSONDocument(new)
            for export in [false, true] {
                let fromTrees = StreamChange.between(oldDocument.root, newDocument.root, export: export)
                let fromValues = StreamChange(from: ServedValue.value(oldDocument.root, export: export),
                                              to: ServedValue.value(newDocument.root, export: export))
                #expect(fromTrees == fromValues, "seed \(seed), export \(export)")
                events[fromValues.map { $0.path.isRoot ? "\($0.name) /" : "\($0.name) deeper" } ?? "none", default: 0] += 1
            }
        }
        // The edits make every kind of event: puts deep down, patches, and none at all.
        #expect(events["put deeper", default: 0] > 20 && events["patch deeper", default: 0] > 20 && events["none", default: 0] > 20,
                "\(events)")
    }

    @Test func streamChangesAreTheSmallestEvent() {
        #expect(StreamChange(from: json(#"{"a":1}"#), to: json(#"{"a":1}"#)) == nil)
        #expect(StreamChange(from: json(#"{"a":{"b":1}}"#), to: json(#"{"a":{"b":2}}"#))
                == StreamChange(name: "put", path: try! Path("/a/b"), data: json("2")))
        #expect(StreamChange(from: json(#"{"a":1,"b":1}"#), to: json(#"{"a":2,"c":3}"#))
                == StreamChange(name: "patch", path: .root, data: json(#"{"a":2,"c":3,"b":null}"#)))
        #expect(StreamChange(from: json("1"), to: json(#"{"x":1}"#))
                == StreamChange(name: "put", path: .root, data: json(#"{"x":1}"#)))
    }
}
