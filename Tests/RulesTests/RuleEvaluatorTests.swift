// The expression language: operators, strings, snapshots, variables, as the rules reference defines them.
import JSONTree
@testable import Rules
import Testing

@Suite struct RuleEvaluatorTests {
    let data = tree(#"""
        {"a": {"b": 1, "s": "Hello.World", "t": true, "p": {".value": 3, ".priority": 7}, "o": {"x": null, "y": {"z": 0}}},
         "list": [10, null, 30], "valid_colors": {"red": true}}
        """#)

    /// Whether `expression`, as the `.read` rule of `at`, allows a read there.
    func holds(_ expression: String, at location: String = "/a", auth: JSON = .null, query: JSON = .null, now: Int64 = 1000) throws -> Bool {
        var nested = #"{".read": \#(JSON.string(expression).serializedString())}"#
        for key in Path(keys: try Path(location).keys).keys.reversed() { nested = #"{"\#(key)": \#(nested)}"# }
        let r = try rules(#"{"rules": \#(nested)}"#)
        return r.permitsRead(at: try Path(location), in: data.root, auth: auth, query: query, now: now)
    }

    @Test func operatorsFollowJavaScript() throws {
        for e in ["1 + 2 * 3 == 7", "(1 + 2) * 3 === 9", "7 % 4 == 3", "-1 < 0", "10 / 4 == 2.5", "'a' + 1 == 'a1'", "'ab' < 'b'",
                  "!false", "true ? 1 == 1 : false", "false || true && true", "1 != '1'", "null == null", "'x' !== 'y'", "2 >= 2 && 3 > 2 && 1 <= 1"] {
            #expect(try holds(e), "\(e)")
        }
        for e in ["1 == '1'", "1 < 'a'", "'a' - 1 == 0", "null.x == 1", "1 && true", "false ? true : false"] {
            #expect(try !holds(e), "\(e)")
        }
    }

    @Test func stringsHaveTheReferencesMethods() throws {
        for e in ["data.child('s').val().length == 11", "data.child('s').val().contains('o.W')", "data.child('s').val().beginsWith('Hell')",
                  "data.child('s').val().endsWith('World')", "data.child('s').val().replace('l', 'L') == 'HeLLo.WorLd'",
                  "data.child('s').val().toLowerCase() == 'hello.world'", "data.child('s').val().toUpperCase() == 'HELLO.WORLD'",
                  "data.child('s').val().matches(/^H.*d$/)", "data.child('s').val().matches(/world/i)", "'2014-12-31'.matches(/^(19|20)[0-9][0-9][-\\/. ](0[1-9]|1[012])[-\\/. ](0[1-9]|[12][0-9]|3[01])$/)",
                  "'é'.length == 1"] {
            #expect(try holds(e), "\(e)")
        }
        #expect(try !holds("data.child('s').val().matches(/world/)"))
    }

    @Test func snapshotsReadTheTree() throws {
        for e in ["data.child('b').val() == 1", "data.child('b').isNumber()", "data.child('s').isString()", "data.child('t').isBoolean()",
                  "data.hasChild('o/y/z')", "!data.hasChild('o/x')", "data.hasChildren(['b', 's'])", "!data.hasChildren(['b', 'nope'])",
                  "data.child('o').hasChildren()", "!data.child('b').hasChildren()", "data.child('p').val() == 3", "data.child('p').getPriority() == 7",
                  "data.child('b').getPriority() == null", "data.parent().child('valid_colors/red').val() == true", "root.child('list/2').val() == 30",
                  "!root.child('list/1').exists()", "data.child('o/y').parent().parent().child('b').exists()", "!data.child('nothing').exists()",
                  "root.child('valid_colors/' + data.child('s').val()).exists() == false"] {
            #expect(try holds(e), "\(e)")
        }
        // The root has no parent: the rule fails.
        #expect(try !holds("root.parent().exists() || true"))
    }

    @Test func variablesAreTheRequests() throws {
        let alice = JSON.object(JSONObject([("uid", "alice"), ("provider", "password"),
                                            ("token", .object(JSONObject([("email", "a@example.com"), ("email_verified", true)])))]))
        #expect(try holds("auth.uid == 'alice' && auth.provider == 'password'", auth: alice))
        #expect(try holds("auth.token.email_verified == true && auth.token.email.matches(/.*@example.com$/)", auth: alice))
        #expect(try holds("auth.token['email'] == 'a@example.com'", auth: alice))
        #expect(try holds("auth.token.admin != true", auth: alice))
        #expect(try !holds("auth.uid == 'alice'"))
        #expect(try holds("auth == null"))
        #expect(try holds("now == 1000 && now > 999"))
        let query = JSON.object(JSONObject([("orderByKey", true), ("limitToFirst", 10), ("orderByChild", .null)]))
        #expect(try holds("query.orderByKey && query.limitToFirst <= 1000 && query.orderByChild == null", query: query))
    }

    /// `matches()` runs on RE2, as the database's rules do: a `.validate` whose pattern
    /// backtracks exponentially (37.6 s for 20 characters before) answers at once, and `/i` and
    /// the anchors keep their meaning.
    @Test func regularExpressionsTakeLinearTime() throws {
        let r = try rules(#"{"rules": {".write": true, "s": {".validate": "newData.val().matches(/^(a+)+$/)"}}}"#)
        func permits(_ value: String) -> Bool {
            r.permitsWrite([(path: path("/s"), value: .string(value))], to: data.root, auth: .null, now: 0)
        }
        var permitted = true
        let elapsed = ContinuousClock().measure { permitted = permits(String(repeating: "a", count: 40) + "b") }
        #expect(!permitted)
        #expect(elapsed < .seconds(5))
        #expect(permits(String(repeating: "a", count: 40)))
        #expect(try holds("'ABC'.matches(/^abc$/i) && !'ABC'.matches(/^abc$/) && !'abc\\n'.matches(/^abc$/)"))
    }

    /// One compiled pattern per text in a rules file, however many rules repeat it.
    @Test func aRulesFileCompilesEachPatternOnce() throws {
        let regexes = RuleRegexes()
        let first = try regexes.regex(pattern: "^a+$", flags: "i")
        #expect(try regexes.regex(pattern: "^a+$", flags: "i") === first)
        #expect(try regexes.regex(pattern: "^a+$", flags: "") !== first)
    }

    @Test func wildcardsBindTheKeys() throws {
        let r = try rules(#"{"rules": {"rooms": {"$room": {"topic": {".read": "$room.contains('public')"}}}}}"#)
        #expect(r.permitsRead(at: try Path("/rooms/public-1/topic"), in: data.root, auth: .null, now: 0))
        #expect(!r.permitsRead(at: try Path("/rooms/secret/topic"), in: data.root, auth: .null, now: 0))
    }
}
