// The official Firebase JS SDK (../shared/firebase-js-sdk, run by Debian's node) as an app
// would use it, against `synctable serve` over the database's WebSocket protocol.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Foundation
import JSONTree
import LiveQuery
import Serve
import Testing
import TestSupport

/// The SDK bundle beside the clone, when there is one (CI has it).
private let sdkBundle = packageRoot + "/../shared/firebase-js-sdk/firebase-database.cjs"
private let sdkAvailable = access(sdkBundle, R_OK) == 0 && access("/usr/bin/node", X_OK) == 0

/// A Node client (Tests/ServeTests/Node/client.js) connected to `port`; the SDK's log goes to
/// `log` when given.
private func jsClient(port: Int, log: String? = nil) throws -> ChildProcess {
    try ChildProcess(["/usr/bin/node", packageRoot + "/Tests/ServeTests/Node/client.js", String(port), sdkBundle] + (log.map { [$0] } ?? []),
                     environment: ["NODE_PATH": "/usr/share/nodejs"])
}

/// The last `count` lines of the file at `path`.
private func lastLines(of path: String, _ count: Int = 30) -> String {
    (readFileText(path) ?? "").split(separator: "\n").suffix(count).joined(separator: "\n")
}

extension ChildProcess {
    /// Reads lines until one is `expected` (as JSON); false when none was within `seconds`.
    fileprivate func waitFor(_ expected: JSON, seconds: Double = 20) -> Bool {
        var found = false
        _ = readLines(until: { line in
            found = (try? JSONDocument(parsing: line).root.json) == expected
            return found
        }, seconds: seconds)
        return found
    }
}

/// A client's list as it last printed it, read on until it is the expected one (an edit that
/// leaves the window as it was prints nothing).
private struct PrintedList {
    var last: JSON?

    mutating func reach(_ expected: JSON, from client: ChildProcess, seconds: Double = 20) -> Bool {
        if last == expected { return true }
        var found = false
        _ = client.readLines(until: { line in
            last = try? JSONDocument(parsing: line).root.json
            found = last == expected
            return found
        }, seconds: seconds)
        return found
    }
}

/// Each test spawns `synctable serve`, as an app's test suite runs the emulator. An in-process
/// server shares this process with every other serve test (at most four run at once): under the
/// whole suite one waited up to a minute to start, and the SDKs waited past their own timeouts.
@Suite(.serialized, .enabled(if: sdkAvailable, "needs ../shared/firebase-js-sdk and /usr/bin/node (skipped: not beside this clone)"))
struct JSClientTests {
    @Test func aListBoundToALimitedQueryFollowsEditsByAnotherProcess() throws {
        let folder = ScratchFolder()
        var random = SplitMix64(seed: 0x51DE)
        var scores = (0..<30).map { _ in Int(random.next() % 100) }
        func document() -> String {
            let players = scores.enumerated().map { "\"p\($0.offset)\": {\"score\": \($0.element)}" }
            return "{\"players\": {" + players.joined(separator: ", ") + "}}"
        }
        let file = folder.write("db.json", document())
        let server = try TestServer(file: file)
        let log = folder.file("sdk.log")
        let client = try jsClient(port: server.port, log: log)
        client.send(#"{"do":"list","path":"players","child":"score","last":10}"#)
        let query = try Query().orderByChild("score").limitToLast(10)
        func expected() throws -> JSON {
            let parsed = try JSONDocument(parsing: Array(document().utf8))
            let window = Window(query: query, path: Path(keys: ["players"]), document: parsed)
            return ["list": .array(window.map { .array([.string($0.key), $0.value.json]) })]
        }
        // What a failure shows: both sides of the connection. The test stops at its first
        // failure (each later wait would only wait out its time).
        func sides() -> String {
            "port \(server.port); the client's standard error: \(client.standardError())\nthe SDK's log ends:\n\(lastLines(of: log))"
        }
        var printed = PrintedList()
        let first = printed.reach(try expected(), from: client)
        try #require(first, "the first window: \(sides())")
        for edit in 0..<200 {
            scores[Int(random.next() % 30)] = Int(random.next() % 100)
            // Every save style: rewritten in place, or replaced by rename, as editors save.
            if edit % 2 == 0 {
                writeFileInPlace(file, Array(document().utf8))
            } else {
                writeFileByRename(file, Array(document().utf8))
            }
            let want = try expected()
            let reached = printed.reach(want, from: client)
            try #require(reached, "edit \(edit): the client's list \(printed.last?.serializedString() ?? "none") is not the window \(want.serializedString()); \(sides())")
        }
        client.closeInput()
        #expect(client.wait() == 0)
        #expect(server.stop() == 0)
    }

    @Test func transactionsFromFourProcessesLoseNoUpdate() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"n": 0, "other": 0}"#)
        let server = try TestServer(file: file)
        let clients = try (0..<4).map { _ in try jsClient(port: server.port) }
        for client in clients { client.send(#"{"do":"increment","path":"n","times":25}"#) }
        // Another writer edits the rest of the file meanwhile (through the file, as another
        // process would: the server reads each edit back from disk).
        for i in 1...10 {
            _ = try? FileStore.write(JSONWrite.set(Path(keys: ["other"]), .number(JSONNumber(i))), toFile: file)
            usleep(20_000)
        }
        for client in clients {
            let line = client.readLine(seconds: 60) ?? "nothing"
            #expect(line == #"{"increment":"ok"}"#, "\(client.standardError())")
        }
        let saved = try JSONDocument(parsing: Array(folder.read("db.json").utf8)).root.json
        #expect(saved["n"] == .number(JSONNumber(100)))
        for client in clients {
            client.closeInput()
            _ = client.wait()
        }
        #expect(server.stop() == 0)
    }

    @Test func onDisconnectRemoveIsCarriedOutWhenTheClientIsKilled() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"presence": {"a": true, "b": true}}"#)
        let server = try TestServer(file: file)
        let client = try jsClient(port: server.port)
        client.send(#"{"do":"onDisconnectRemove","path":"presence/a"}"#)
        #expect(client.waitFor(["onDisconnect": "ok"]), "\(client.standardError())")
        #expect(folder.read("db.json") == #"{"presence": {"a": true, "b": true}}"#, "nothing is written before the client goes")
        client.signal(SIGKILL)
        _ = client.wait()
        let gone = waitUntil(seconds: 10) { (try? server.connect().request("GET", "/presence.json", seconds: 5).json) == ["b": true] }
        #expect(gone, "presence/a is still there: \(folder.read("db.json"))")
        #expect(server.stop() == 0)
    }

    @Test func restAndWebSocketWritesReachEachOther() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"greeting": "hello"}"#)
        let server = try TestServer(file: file)
        let client = try jsClient(port: server.port)
        client.send(#"{"do":"value","path":"greeting"}"#)
        #expect(client.waitFor(["value": "hello"]))
        #expect(try server.request("PUT", "/greeting.json", body: #""né, 世界""#).status == 200)
        #expect(client.waitFor(["value": "né, 世界"]), "a REST write reaches a WebSocket listener")
        client.send(#"{"do":"set","path":"fromApp","value":{"n":1,"s":"ok"}}"#)
        #expect(client.waitFor(["set": "ok"]))
        #expect(try server.request("GET", "/fromApp.json").json == ["n": 1, "s": "ok"], "a WebSocket write reaches REST")
        client.closeInput()
        #expect(client.wait() == 0)
        #expect(server.stop() == 0)
    }
}

extension JSClientTests {
    /// An app's rules tests as `@firebase/rules-unit-testing` runs them against the emulator:
    /// rules loaded with the owner credential (comments and all), users signed in with the SDK's
    /// unsigned mock tokens (custom claims as `auth.token`), assertSucceeds/assertFails, rules
    /// disabled, rules replaced mid-suite, a listen cancelled when it loses access, clearDatabase.
    @Test func theFlowsOfRulesUnitTestingPass() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"users": {"bob": {"name": "Bob", "age": 40}}}"#)
        let rules = folder.write("database.rules.json", #"{"rules": {".read": false, ".write": false}}"#)
        let server = try TestServer(file: file, options: ServeOptions(rulesFile: rules, acceptUnverifiedTokens: true))
        let flows = try ChildProcess(["/usr/bin/node", packageRoot + "/Tests/ServeTests/Node/rules-unit-testing.js", String(server.port), sdkBundle],
                                     environment: ["NODE_PATH": "/usr/share/nodejs"])
        var steps = [String: JSON]()
        _ = flows.readLines(until: { line in
            guard let step = try? JSONDocument(parsing: line).root.json else { return false }
            if let name = step["step"]?.stringValue { steps[name] = step }
            return step["done"] == true
        }, seconds: 90)
        let expected = [
            "alice writes her profile", "alice reads her profile", "alice cannot write bob", "bob cannot read alice",
            "an unauthenticated user cannot read", "validate refuses a string age", "validate refuses a missing name",
            "a custom claim is auth.token", "without the claim, denied", "withSecurityRulesDisabled writes anywhere",
            "withSecurityRulesDisabled reads anywhere", "new rules judge the next request at once",
            "a listen that lost access is cancelled", "clearDatabase", "the database is empty after clearDatabase",
        ]
        #expect(Set(steps.keys) == Set(expected), "\(steps) \(flows.standardError())")
        for (name, step) in steps { #expect(step["ok"] == true, "\(name): \(step["detail"] ?? .null)") }
        // clearDatabase left an empty database; the rules file holds the rules as the test
        // loaded them, comments included.
        #expect(folder.read("db.json") == "{}")
        #expect(folder.read("database.rules.json").contains("// Each user reads and writes their own profile"))
        #expect(server.stop() == 0)
    }

    @Test func securityRulesDecideWhatAnAppReadsAndWrites() throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", #"{"public": {"a": 1}, "secret": {"b": 2}}"#)
        let rules = folder.write("database.rules.json", #"""
            {"rules": {"public": {".read": true, "$k": {".write": "newData.isNumber()"}}, "secret": {".read": false}}}
            """#)
        let server = try TestServer(file: file, options: ServeOptions(rulesFile: rules))
        let client = try jsClient(port: server.port)
        client.send(#"{"do":"get","path":"public/a"}"#)
        #expect(client.waitFor(["get": 1]), "\(client.standardError())")
        client.send(#"{"do":"get","path":"secret"}"#)
        let denied = client.readLine(seconds: 20) ?? ""
        #expect(denied.contains("error") && denied.localizedCaseInsensitiveContains("permission"), "\(denied)")
        client.send(#"{"do":"set","path":"public/a","value":"text"}"#)
        let refused = client.readLine(seconds: 20) ?? ""
        #expect(refused.localizedCaseInsensitiveContains("permission"), "a write the rules refuse: \(refused)")
        #expect(folder.read("db.json") == #"{"public": {"a": 1}, "secret": {"b": 2}}"#, "a denied write leaves the file byte-identical")
        client.send(#"{"do":"set","path":"public/a","value":5}"#)
        #expect(client.waitFor(["set": "ok"]))
        client.closeInput()
        #expect(client.wait() == 0)
        #expect(server.stop() == 0)
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass.
private func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
