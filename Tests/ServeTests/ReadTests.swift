// GET: values, queries (the same windows as `synctable list`), shallow reads, print and format.
import JSONTree
import LiveQuery
import Serve
import ServeTestSupport
import Testing
import TestSupport

@Suite struct ReadTests {
    static let players = """
        {"players": {"alice": {"score": 30, "name": "Alice"}, "bob": {"score": 10, "name": "Bob"},
         "carol": {"score": 20, "name": "Carol", "tags": {"a": 1}}, "dave": {"score": 40, ".priority": 2}},
         "title": {".value": "Scores", ".priority": 1}, "list": [10, 20, null, 40]}
        """

    @Test func readsValuesAtAnyPath() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.players))
        #expect(try server.request("GET", "/players/bob.json").json == json(#"{"score":10,"name":"Bob"}"#))
        #expect(try server.request("GET", "/players/bob/score.json").json == json("10"))
        #expect(try server.request("GET", "/nobody/here.json").json == json("null"))
        #expect(try server.request("GET", "/list.json").json == json("[10,20,null,40]"))
        // Priorities are metadata: left out of a read unless exported.
        #expect(try server.request("GET", "/title.json").json == json(#""Scores""#))
        #expect(try server.request("GET", "/players/dave.json").json == json(#"{"score":40}"#))
        #expect(try server.request("GET", "/players/dave.json?format=export").json == json(#"{"score":40,".priority":2}"#))
        #expect(try server.request("GET", "/.json").json?["players"]?["alice"]?["name"] == json(#""Alice""#))
        try await server.stop()
    }

    @Test func queriesAnswerTheWindowInQueryOrder() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.players))
        let top = try server.request("GET", #"/players.json?orderBy="score"&limitToLast=2"#)
        #expect(top.status == 200)
        // In query order, as `synctable list` prints it: carol's 20 is below alice's 30 … dave 40.
        #expect(top.text == #"{"alice":{"score":30,"name":"Alice"},"dave":{"score":40}}"# + "\n")
        let range = try server.request("GET", #"/players.json?orderBy="score"&startAt=15&endAt=30"#)
        #expect(range.json.flatMap { $0.objectValue?.keys } == ["carol", "alice"])
        let byKey = try server.request("GET", #"/players.json?orderBy="$key"&startAt="b"&limitToFirst=2"#)
        #expect(byKey.json.flatMap { $0.objectValue?.keys } == ["bob", "carol"])
        let equal = try server.request("GET", #"/players.json?orderBy="name"&equalTo="Bob""#)
        #expect(equal.json.flatMap { $0.objectValue?.keys } == ["bob"])
        let nested = try server.request("GET", #"/players.json?orderBy="tags/a"&startAt=1"#)
        #expect(nested.json.flatMap { $0.objectValue?.keys } == ["carol"])
        let none = try server.request("GET", #"/players.json?orderBy="score"&startAt=1000"#)
        #expect(none.text == "{}\n")
        try await server.stop()
    }

    @Test func invalidQueriesAre400NamingTheParameterAndRule() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.players))
        let cases: [(String, String)] = [
            (#"/players.json?orderBy="$key"&startAt=5"#, "startAt: with orderByKey a bound must be a string"),
            (#"/players.json?orderBy=score"#, "orderBy must be JSON-encoded"),
            (#"/players.json?limitToFirst=2"#, "limitToFirst needs orderBy"),
            (#"/players.json?orderBy="score"&limitToFirst=0"#, "limitToFirst must be a positive integer"),
            (#"/players.json?orderBy="score"&limitToFirst=1&limitToLast=1"#, "limitToLast: a limit is already set"),
            (#"/players.json?orderBy="score"&startAt={"a":1}"#, "startAt: a bound must be a string, number, boolean or null"),
            (#"/players.json?shallow=true&orderBy="$key""#, "shallow cannot be used"),
            (#"/players.json?print=loud"#, "print must be pretty or silent"),
            (#"/players.json?limitTofirst=2"#, "unknown query parameter 'limitTofirst'"),
        ]
        for (target, message) in cases {
            let response = try server.request("GET", target)
            #expect(response.status == 400, "\(target)")
            let error = response.json?["error"]?.stringValue ?? ""
            #expect(error.contains(message), "\(target): \(error)")
        }
        try await server.stop()
    }

    @Test func shallowPrintAndNamespace() async throws {
        let folder = ScratchFolder()
        let server = try await InProcessServer(file: folder.write("db.json", Self.players))
        #expect(try server.request("GET", "/players/carol.json?shallow=true").json == json(#"{"score":20,"name":"Carol","tags":true}"#))
        #expect(try server.request("GET", "/players/carol/score.json?shallow=true").json == json("20"))
        let pretty = try server.request("GET", "/players/bob.json?print=pretty&ns=demo")
        #expect(pretty.text == "{\n  \"score\": 10,\n  \"name\": \"Bob\"\n}\n")
        let silent = try server.request("GET", "/players/bob.json?print=silent")
        #expect(silent.status == 204 && silent.body.isEmpty)
        try await server.stop()
    }
}
