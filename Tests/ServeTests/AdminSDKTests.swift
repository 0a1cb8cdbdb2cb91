// Conformance: the official Firebase Admin SDK for Python (PyPI firebase-admin), pointed at
// `synctable serve` as at the Firebase emulator (FIREBASE_DATABASE_EMULATOR_HOST).
#if canImport(Glibc)
import Glibc
#endif
import CommandTestSupport
import FileStore
import Foundation
import JSONTree
import Serve
import Testing
import TestSupport

/// Each test spawns `synctable serve`, as an app's test suite runs the emulator. An in-process
/// server shares this process with every other serve test (at most four run at once): under the
/// whole suite one waited up to a minute to start, and the SDKs waited past their own timeouts.
@Suite(.serialized) struct AdminSDKTests {
    // MARK: - Queries

    @Test func everyQueryKindAnswersWhatListPrints() throws {
        try forEachSeed(3) { seed, random in
            let folder = ScratchFolder()
            let tree = RandomTree.make(&random)
            let file = folder.write("db.json", tree.serializedString(.pretty))
            let server = try TestServer(file: file)
            let sdk = try adminSDK("queries.py", port: server.port)
            var selectedSome = 0
            for _ in 0..<20 {
                let query = RandomQuery.make(&random, tree: tree)
                sdk.send(query.spec.serializedString())
                let answer = try #require(sdk.readJSON())
                let listed = try synctable(["list", file, "--path", "/items", "--format", "json"] + query.listFlags)
                let rows = try JSONDocument(parsing: listed.output).root.json.arrayValue ?? []
                let expected = JSON.object(JSONObject(rows.map { ($0["key"]!.stringValue!, $0["value"]!) }))
                let actual = JSON.object(JSONObject((answer.arrayValue ?? []).map { ($0.arrayValue![0].stringValue!, $0.arrayValue![1]) }))
                #expect(answer["error"] == nil, "seed \(seed): \(query.spec.serializedString()): \(answer.serializedString())")
                #expect(actual == expected, "seed \(seed): \(query.spec.serializedString())")
                if !rows.isEmpty { selectedSome += 1 }
            }
            // The random bounds come from the tree, so most queries select something.
            #expect(selectedSome >= 10, "seed \(seed)")
            sdk.closeInput()
            #expect(sdk.wait() == 0, "\(sdk.standardError())")
            #expect(server.stop() == 0)
        }
    }

    @Test func theReadmeExampleWorks() throws {
        let folder = ScratchFolder()
        let demo = folder.write("demo.json", try String(contentsOfFile: packageRoot + "/Sources/Commands/Demo/leaderboard.json", encoding: .utf8))
        let server = try TestServer(file: demo)
        let listed = try synctable(["list", demo, "--path", "/players", "--order-by-child", "score", "--limit-to-last", "5", "--format", "json"])
        let sdk = try adminSDK("readme.py", port: server.port)
        let top = try #require(sdk.readJSON()?.arrayValue)
        let rows = try #require(try JSONDocument(parsing: listed.output).root.json.arrayValue)
        #expect(rows.count == 5)
        // The SDK sorts the answer by score itself, as list prints it.
        #expect(top.map { $0.arrayValue![0] } == rows.map { $0["key"]! })
        #expect(top.map { $0.arrayValue![1] } == rows.map { $0["value"]! })
        let key = try #require(sdk.readJSON()?.stringValue)
        #expect(sdk.wait() == 0, "\(sdk.standardError())")
        let saved = try JSONDocument(parsing: folder.read("demo.json")).root.json
        #expect(saved["players"]?[key] == json(#"{"name":"Edsger Dijkstra","score":9999}"#))
        #expect(server.stop() == 0)
    }

    @Test func theSDKsEmulatorCredentialIsTheOwnerToken() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"doc": {"v": 1}}"#)
        // The Admin SDK sends `Authorization: Bearer owner` to an emulator.
        let owner = try TestServer(file: file, options: ServeOptions(authToken: "owner"))
        let sdk = try adminSDK("etags.py", port: owner.port, ["/doc"])
        sdk.send(#"{"do":"get"}"#)
        #expect(sdk.readJSON()?["value"] == json(#"{"v":1}"#))
        sdk.closeInput()
        #expect(sdk.wait() == 0)
        #expect(owner.stop() == 0)
        // Any other token refuses it: the SDK reports the 401.
        let other = try TestServer(file: file, options: ServeOptions(authToken: "s3cret"))
        let refused = try adminSDK("etags.py", port: other.port, ["/doc"])
        refused.send(#"{"do":"get"}"#)
        refused.closeInput()
        #expect(refused.wait() != 0)
        #expect(refused.standardError().contains("a valid auth token is needed"))
        #expect(other.stop() == 0)
    }

    // MARK: - Writes

    @Test func setUpdatePushAndDeleteLeaveTheFileAsTheSDKSeesIt() throws {
        let folder = ScratchFolder()
        let original = """
            {
              "players": {"alice": {"score": 30, "name": "Alice"}, "erin": {"score": 3}},
              "queue": ["first", "second"],
              "untouched": { "keep":   [1,  2.50] }
            }
            """
        let file = folder.write("db.json", original)
        let server = try TestServer(file: file)
        let sdk = try adminSDK("writes.py", port: server.port)
        let report = try #require(sdk.readJSON())
        #expect(sdk.wait() == 0, "\(sdk.standardError())")
        let content = folder.read("db.json")
        let onDisk = try JSONDocument(parsing: content).root.json
        // What the SDK reads back is the file.
        #expect(report["root"] == onDisk)
        #expect(onDisk["players"]?["alice"] == json(#"{"score":31,"name":"Alice"}"#))
        #expect(onDisk["players"]?["bob"] == json(#"{"score":12,"name":"Bob","tags":["x","y"]}"#))
        #expect(onDisk["players"]?["carol"] == json(#"{"score":25}"#))
        #expect(onDisk["players"]?["dave"] == json(#"{"score":1,"name":"Dave"}"#))
        #expect(onDisk["players"]?["erin"] == nil)
        #expect(onDisk["counter"] == json("3"))
        // A push onto an array appends at its next index; elsewhere it makes a push id.
        #expect(report["appended"] == json(#""2""#))
        #expect(onDisk["queue"] == json(#"["first","second","third"]"#))
        let pushed = try #require(report["pushed"]?.stringValue)
        #expect(onDisk["messages"]?[pushed]?["text"] == json(#""hello""#))
        #expect(onDisk["messages"]?[pushed]?["at"]?.doubleValue ?? 0 > 1_700_000_000_000)
        // Bytes outside what was written stay as they were.
        #expect(content.contains(#""untouched": { "keep":   [1,  2.50] }"#))
        #expect(server.stop() == 0)
    }

    // MARK: - Transactions

    @Test func transactionsFromFourProcessesLoseNoUpdateWhileAFifthEditsTheFile() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"counter": 0, "others": {}}"#)
        let server = try TestServer(file: file)
        let incrementers = try (0..<4).map { _ in try adminSDK("transaction.py", port: server.port, ["/counter", "50"]) }
        // The fifth process writes the file itself, beside the server, until the others finish.
        let editor = try ChildProcess(["/bin/sh", "-c", """
            i=0; while [ ! -e "$1/stop" ]; do i=$((i+1)); "$0" set "$1/db.json" /others/e$((i % 7)) $i || exit 1; done; echo $i
            """, try builtProduct("synctable"), folder.path])
        for incrementer in incrementers {
            let report = try #require(incrementer.readJSON(seconds: 600))
            #expect(report == json(#"{"committed":50}"#), "\(incrementer.standardError())")
            #expect(incrementer.wait() == 0)
        }
        folder.write("stop", "")
        let edits = Int(editor.readLine(seconds: 60) ?? "") ?? 0
        #expect(editor.wait() == 0, "\(editor.standardError())")
        #expect(edits > 0)
        let final = try JSONDocument(parsing: folder.read("db.json")).root.json
        #expect(final["counter"] == json("200"))
        #expect(final["others"]?.objectValue?.count == min(edits, 7))
        #expect(server.stop() == 0)
    }

    // MARK: - Listening

    @Test func listenHearsEditsFromOtherProcessesInEverySaveStyle() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"board": {"a": 1}}"#)
        let server = try TestServer(file: file)
        let listener = try adminSDK("listen.py", port: server.port, ["/board"])
        #expect(listener.readJSON() == json(#"{"type":"put","path":"/","data":{"a":1}}"#))

        // An editor's save: a new file renamed over the old one.
        folder.write("db.json", #"{"board": {"a": 2}}"#)
        #expect(listener.readJSON() == json(#"{"type":"put","path":"/a","data":2}"#))
        // A save in place: truncate and write.
        let fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC)
        var bytes = Array(#"{"board": {"a": 2, "b": 3}}"#.utf8)
        _ = Glibc.write(fd, &bytes, bytes.count)
        close(fd)
        #expect(listener.readJSON() == json(#"{"type":"put","path":"/b","data":3}"#))
        // Another synctable process's atomic write.
        _ = try synctableProcess(["update", file, "/board", #"{"a": 5, "c": 6}"#])
        #expect(listener.readJSON() == json(#"{"type":"patch","path":"/","data":{"a":5,"c":6}}"#))
        // A REST write through the server by another client.
        _ = try server.request("DELETE", "/board/b.json")
        #expect(listener.readJSON() == json(#"{"type":"put","path":"/b","data":null}"#))
        kill(listener.pid, SIGKILL)
        #expect(server.stop() == 0)
    }

    /// The event stream names its charset: the SDK's HTTP library would otherwise decode it as
    /// Latin-1 (`né` arriving as `nÃ©`).
    @Test func listenDecodesNonASCIIKeysAndValues() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"board": {"né": "café", "日本": "東京"}}"#)
        let server = try TestServer(file: file)
        let listener = try adminSDK("listen.py", port: server.port, ["/board"])
        #expect(listener.readJSON() == json(#"{"type":"put","path":"/","data":{"né":"café","日本":"東京"}}"#))
        _ = try server.request("PUT", "/board/%C3%A9t%C3%A9.json", body: #""🙂 über""#)
        #expect(listener.readJSON() == json(#"{"type":"put","path":"/été","data":"🙂 über"}"#))
        kill(listener.pid, SIGKILL)
        #expect(server.stop() == 0)
    }

    // MARK: - Rules

    /// `databaseAuthVariableOverride`: the SDK reads and writes as the user it names (or as no
    /// one, with None), held to the rules; without it, as the admin.
    @Test func authVariableOverrideActsAsTheUser() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"users": {"alice": {"name": "Alice"}, "bob": {"name": "Bob"}}, "public": 1}"#)
        let rules = folder.write("database.rules.json", #"""
            {"rules": {"public": {".read": true},
                       "users": {"$uid": {".read": "auth != null && auth.uid === $uid", ".write": "auth.uid === $uid"}}}}
            """#)
        let server = try TestServer(file: file, options: ServeOptions(rulesFile: rules))
        let sdk = try adminSDK("users.py", port: server.port)
        func run(_ command: String) -> JSON? {
            sdk.send(command)
            return sdk.readJSON()
        }
        #expect(run(#"{"as": "alice", "do": "get", "path": "/users/alice"}"#) == json(#"{"value": {"name": "Alice"}}"#))
        #expect(run(#"{"as": "alice", "do": "get", "path": "/users/bob"}"#)?["error"]?.stringValue?.contains("Permission denied") == true)
        #expect(run(#"{"as": "bob", "do": "get", "path": "/users/bob/name"}"#) == json(#"{"value": "Bob"}"#))
        #expect(run(#"{"as": null, "do": "get", "path": "/users/bob"}"#)?["error"]?.stringValue?.contains("Permission denied") == true)
        #expect(run(#"{"as": null, "do": "get", "path": "/public"}"#) == json(#"{"value": 1}"#))
        let before = folder.read("db.json")
        #expect(run(#"{"as": "bob", "do": "set", "path": "/users/alice/name", "value": "B"}"#)?["error"]?.stringValue?.contains("Permission denied") == true)
        #expect(run(#"{"as": "alice", "do": "update", "path": "/users", "value": {"alice/age": 3, "bob/age": 4}}"#)?["error"] != nil)
        #expect(folder.read("db.json") == before)
        #expect(run(#"{"as": "alice", "do": "update", "path": "/users/alice", "value": {"age": 3}}"#) == json(#"{"value": null}"#))
        #expect(run(#"{"as": "bob", "do": "set", "path": "/users/bob/name", "value": "Robert"}"#) == json(#"{"value": null}"#))
        let saved = try JSONDocument(parsing: folder.read("db.json")).root.json
        #expect(saved["users"] == json(#"{"alice": {"name": "Alice", "age": 3}, "bob": {"name": "Robert"}}"#))
        sdk.closeInput()
        #expect(sdk.wait() == 0, "\(sdk.standardError())")
        #expect(server.stop() == 0)
    }

    // MARK: - ETags

    @Test func etagsGetIfChangedAndSetIfUnchanged() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"doc": {"v": 1}}"#)
        let server = try TestServer(file: file)
        let sdk = try adminSDK("etags.py", port: server.port, ["/doc"])
        sdk.send(#"{"do":"get"}"#)
        let first = try #require(sdk.readJSON())
        #expect(first["value"] == json(#"{"v":1}"#))
        let etag = try #require(first["etag"]?.stringValue)

        sdk.send(#"{"do":"if_changed","etag":"\#(etag)"}"#)
        #expect(sdk.readJSON() == json(#"{"changed":false,"value":null,"etag":null}"#))

        // Another process edits the file: the ETag no longer matches.
        folder.write("db.json", #"{"doc": {"v": 2}}"#)
        var changed: JSON?
        eventually("the server to read the edit") {
            sdk.send(#"{"do":"if_changed","etag":"\#(etag)"}"#)
            changed = sdk.readJSON()
            return changed?["changed"] == json("true")
        }
        #expect(changed?["value"] == json(#"{"v":2}"#))
        let current = try #require(changed?["etag"]?.stringValue)
        #expect(current != etag)

        sdk.send(#"{"do":"set_if_unchanged","etag":"\#(etag)","value":{"v":99}}"#)
        #expect(sdk.readJSON() == json(#"{"ok":false,"value":{"v":2},"etag":"\#(current)"}"#))
        sdk.send(#"{"do":"set_if_unchanged","etag":"\#(current)","value":{"v":3}}"#)
        #expect(sdk.readJSON()?["ok"] == json("true"))
        #expect(try JSONDocument(parsing: folder.read("db.json")).root.json == json(#"{"doc":{"v":3}}"#))
        sdk.closeInput()
        #expect(sdk.wait() == 0)
        #expect(server.stop() == 0)
    }
}

// MARK: - Random trees and queries

enum RandomTree {
    static let words = ["apple", "Banana", "cherry", "date", "élan", "fig", "Grape", "kiwi", "lemon", "mango", "z", ""]

    /// `{"items": {…}}`: 10 to 40 children with integer-like, word and push-id-like keys; objects
    /// with a `score` of any type (or none), a `name` and `nested/v`, and some scalar children.
    static func make(_ random: inout SplitMix64) -> JSON {
        var members = [(key: String, value: JSON)]()
        var used = Set<String>()
        for i in 0..<random.int(10...40) {
            var key: String
            switch random.int(0..<3) {
            case 0: key = String(random.int(-5...60))
            case 1: key = random.pick(words.filter { !$0.isEmpty }) + String(i)
            default: key = "-P" + String(random.next() % 1_000_000_000, radix: 36)
            }
            if used.contains(key) { key += "x\(i)" }
            used.insert(key)
            members.append((key, child(&random)))
        }
        return .object(JSONObject([("items", .object(JSONObject(members)))]))
    }

    static func scalar(_ random: inout SplitMix64) -> JSON {
        switch random.int(0..<6) {
        case 0: return .bool(random.chance(0.5))
        case 1: return .number(JSONNumber(random.int(-20...20)))
        case 2: return .number(JSONNumber(Double(random.int(-400...400)) / 8))
        case 3, 4: return .string(random.pick(words))
        default: return .string(String(random.int(0...30)))
        }
    }

    static func child(_ random: inout SplitMix64) -> JSON {
        if random.chance(0.2) { return scalar(&random) }
        var fields = [(key: String, value: JSON)]()
        if random.chance(0.85) { fields.append(("score", scalar(&random))) }
        fields.append(("name", .string(random.pick(words))))
        if random.chance(0.7) { fields.append(("nested", .object(JSONObject([("v", .number(JSONNumber(random.int(0...9))))])))) }
        return .object(JSONObject(fields))
    }
}

struct RandomQuery {
    var spec: JSON
    var listFlags: [String]

    static func make(_ random: inout SplitMix64, tree: JSON) -> RandomQuery {
        let children = tree["items"]!.objectValue!.members
        var spec: [(key: String, value: JSON)] = [("path", "/items")]
        var flags = [String]()
        let order = random.pick(["score", "nested/v", "$key", "$value"])
        spec.append(("orderBy", .string(order)))
        switch order {
        case "$key": flags.append("--order-by-key")
        case "$value": flags.append("--order-by-value")
        default: flags += ["--order-by-child", order]
        }
        // Bounds drawn from the tree, so that ranges select something.
        func bound() -> JSON {
            let child = random.pick(children)
            switch order {
            case "$key": return .string(child.key)
            case "$value": return child.value.isScalar ? child.value : RandomTree.scalar(&random)
            default:
                let value = child.value[path: try! Path(order)] ?? RandomTree.scalar(&random)
                return value.isScalar && !value.isNull ? value : RandomTree.scalar(&random)
            }
        }
        if random.chance(0.2) {
            let value = bound()
            spec.append(("equalTo", value))
            flags.append("--equal-to=\(value.serializedString())")
        } else {
            if random.chance(0.5) {
                let value = bound()
                spec.append(("startAt", value))
                flags.append("--start-at=\(value.serializedString())")
            }
            if random.chance(0.5) {
                let value = bound()
                spec.append(("endAt", value))
                flags.append("--end-at=\(value.serializedString())")
            }
        }
        if random.chance(0.6) {
            let n = random.int(1...10)
            let first = random.chance(0.5)
            spec.append((first ? "limitToFirst" : "limitToLast", .number(JSONNumber(n))))
            flags.append("--limit-to-\(first ? "first" : "last")=\(n)")
        }
        return RandomQuery(spec: .object(JSONObject(spec)), listFlags: flags)
    }
}
