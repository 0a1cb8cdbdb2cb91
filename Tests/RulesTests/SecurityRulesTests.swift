// Rules files checked as the database checks them, and the decisions they make.
import JSONTree
@testable import Rules
import Testing

func rules(_ text: String) throws(RulesError) -> SecurityRules { try SecurityRules(parsing: Array(text.utf8)) }
func tree(_ text: String) -> JSONDocument { try! JSONDocument(parsing: text) }
func json(_ text: String) -> JSON { try! JSONDocument(parsing: text).root.json }
func path(_ text: String) -> Path { try! Path(text) }
func user(_ uid: String) -> JSON { .object(JSONObject([("uid", .string(uid)), ("token", .object(JSONObject()))])) }

@Suite struct RulesFileTests {
    @Test func commentsAreAllowedAsTheCLIAllowsThem() throws {
        let r = try rules("""
            // the rules of a chat
            {"rules": { /* everyone reads */ ".read": true, "a": {".indexOn": "not // a comment"} }}
            """)
        #expect(r.json == json(#"{"rules": {".read": true, "a": {".indexOn": "not // a comment"}}}"#))
        #expect(String(decoding: r.source, as: UTF8.self).hasPrefix("// the rules"))
    }

    @Test func mistakesNameTheirLineAndColumn() {
        func failure(_ text: String) -> String? {
            do { _ = try rules(text); return nil } catch { return error.diagnostic(file: "database.rules.json") }
        }
        #expect(failure("{\"rules\": {\n  \".read\": \"auth.uid = 1\"}}") == "database.rules.json:2:22: unexpected character '='")
        #expect(failure("{\"rules\": {\n  \"a\": {\".write\": \"nobody\"}}}") == "database.rules.json:2:20: unknown variable 'nobody'")
        #expect(failure("{\"rules\": {\"$a\": {}, \"$b\": {}}}")?.hasPrefix("database.rules.json:1:22: rules has two wildcard children") == true)
        #expect(failure("{\"rules\": {\".reed\": true}}") == "database.rules.json:1:12: unknown rule .reed (rules are .read, .write, .validate and .indexOn)")
        #expect(failure("{\"rules\": {\".read\": \"newData.exists()\"}}") == "database.rules.json:1:22: newData is not available in a .read rule")
        #expect(failure("{\"rules\": {\".read\": \"data.vals()\"}}") == "database.rules.json:1:27: no such method: vals()")
        #expect(failure("{\"rules\": {\"a\": {\".read\": \"$b == 'x'\"}}}") == "database.rules.json:1:28: unknown variable $b: no enclosing location is named $b")
        #expect(failure("{\"rules\": {\".read\": 1}}") == "database.rules.json:1:21: .read must be a boolean or a string expression")
        #expect(failure("{\"rules\": {\".read\": \"'yes'\"}}") == "database.rules.json:1:21: .read must evaluate to a boolean")
        #expect(failure("{\"rules\": {}, \"other\": 1}") == "database.rules.json:1:15: a rules file has one member, \"rules\"")
        #expect(failure("{\"rules\": {} /* open") == "database.rules.json:1:14: a /* comment is not closed")
        #expect(failure("{\"rules\": {\".validate\": \"newData.val().matches(/(a/)\"}}")?.contains("invalid regular expression") == true)
        // RE2 has no lookaround or backreferences (nor has the database): the message says why.
        #expect(failure("{\"rules\": {\".validate\": \"newData.val().matches(/a(?=b)/)\"}}")?.hasSuffix(
            "(regular expressions run in linear time, on RE2: no lookaround, backreferences or possessive repetition)") == true)
        // A JSON mistake after a comment holding wide characters: the column counts characters.
        #expect(failure("/* é */ {\"rules\": {],}")?.hasPrefix("database.rules.json:1:20: ") == true)
        // An escape in the expression's string moves the column to the file's byte.
        #expect(failure("{\"rules\": {\".read\": \"'\\u00e9' == = 1\"}}") == "database.rules.json:1:34: unexpected character '='")
    }

}

@Suite struct RulesDecisionTests {
    let chat = tree(#"{"users": {"alice": {"name": "Alice", "role": "admin"}, "bob": {"name": "Bob"}}, "open": {"x": 1}, "n": 5}"#)

    /// A rule nested deeper than the parser takes (issue 47: 7,000 `(` overflowed the stack) is
    /// a mistake at the first token nested too deep; a chain of operators as deep at its operator.
    @Test(arguments: [
        (String(repeating: "(", count: 7000) + "true" + String(repeating: ")", count: 7000), RuleExpressionParser.maximumDepth + 1),
        (String(repeating: "!", count: 10000) + "true", RuleExpressionParser.maximumDepth + 1),
        (String(repeating: "[", count: 10000), RuleExpressionParser.maximumDepth + 1),
        ("true ? " + String(repeating: "true ? ", count: 600) + "true" + String(repeating: " : false", count: 601),
         7 * (RuleExpressionParser.maximumDepth + 1)),
        ((0..<600).map { _ in "1" }.joined(separator: " + ") + " == 600", 4 * (RuleExpressionParser.maximumDepth + 1) - 2),
    ])
    func deepNestingIsAMistake(expression: String, offset: Int) {
        let text = #"{"rules": {".read": \#(JSON.string(expression).serializedString())}}"#
        let error = #expect(throws: RulesError.self) { try rules(text) }
        // The expression starts at column 22.
        let message = "the expression nests deeper than \(RuleExpressionParser.maximumDepth) levels"
        #expect(error == RulesError(message: message, line: 1, column: 22 + offset))
    }

    /// Locations nest as deep as JSON does (the parser's limit, with its place past it): the
    /// rules tree is built by recursion over the file's nesting.
    @Test func locationsNestAsDeepAsJSON() throws {
        func nested(_ depth: Int) -> String {
            #"{"rules": "# + String(repeating: #"{"a": "#, count: depth) + #"{".read": true}"# + String(repeating: "}", count: depth + 1)
        }
        let deep = try rules(nested(maximumJSONDepth - 2))
        #expect(deep.permitsRead(at: Path(keys: Array(repeating: "a", count: maximumJSONDepth - 2)), in: nil, auth: .null, now: 0))
        let tooDeep = #expect(throws: RulesError.self) { try rules(nested(5000)) }
        #expect(tooDeep?.message == "nesting deeper than \(maximumJSONDepth) levels")
    }

    @Test func readsCascadeAndAreNotFilters() throws {
        let r = try rules(#"{"rules": {"open": {".read": true, "x": {".read": false}}, "users": {"$uid": {".read": "auth.uid === $uid"}}}}"#)
        #expect(r.permitsRead(at: path("/open"), in: chat.root, auth: .null, now: 0))
        // A grant above cannot be taken back below.
        #expect(r.permitsRead(at: path("/open/x"), in: chat.root, auth: .null, now: 0))
        #expect(r.permitsRead(at: path("/users/alice"), in: chat.root, auth: user("alice"), now: 0))
        #expect(r.permitsRead(at: path("/users/alice/name"), in: chat.root, auth: user("alice"), now: 0))
        #expect(!r.permitsRead(at: path("/users/alice"), in: chat.root, auth: user("bob"), now: 0))
        // The parent of readable children is not readable: a read is never filtered.
        #expect(!r.permitsRead(at: path("/users"), in: chat.root, auth: user("alice"), now: 0))
        #expect(!r.permitsRead(at: path("/"), in: chat.root, auth: user("alice"), now: 0))
        // A failing rule (auth is null) is false, not an error.
        #expect(!r.permitsRead(at: path("/users/alice"), in: chat.root, auth: .null, now: 0))
    }

    @Test func namedChildrenWinOverTheWildcard() throws {
        let r = try rules(#"{"rules": {".write": true, "widget": {"title": {".validate": true}, "$other": {".validate": false}}}}"#)
        #expect(r.permitsWrite([(path("/widget"), json(#"{"title": "t"}"#))], to: chat.root, auth: .null, now: 0))
        #expect(!r.permitsWrite([(path("/widget"), json(#"{"title": "t", "size": 1}"#))], to: chat.root, auth: .null, now: 0))
        #expect(!r.permitsWrite([(path("/widget/size"), json("1"))], to: chat.root, auth: .null, now: 0))
        // Removing is never refused by .validate.
        #expect(r.permitsWrite([(path("/widget/size"), .null)], to: chat.root, auth: .null, now: 0))
    }

    @Test func validateSeesTheTreeAfterTheWholeUpdate() throws {
        let r = try rules(#"""
            {"rules": {".write": true, "widget": {".validate": "newData.hasChildren(['color', 'size'])",
              "size": {".validate": "newData.isNumber() && newData.val() >= 0 && newData.val() <= 99"}}}}
            """#)
        let existing = tree(#"{"widget": {"color": "red", "size": 1}}"#)
        #expect(!r.permitsWrite([(path("/widget"), json(#"{"color": "red"}"#))], to: existing.root, auth: .null, now: 0))
        #expect(r.permitsWrite([(path("/widget/size"), json("5"))], to: existing.root, auth: .null, now: 0))
        #expect(!r.permitsWrite([(path("/widget/size"), json("500"))], to: existing.root, auth: .null, now: 0))
        // One update of two locations: both are checked against the tree after both.
        #expect(r.permitsWrite([(path("/widget/color"), json(#""blue""#)), (path("/widget/size"), json("7"))], to: tree("{}").root, auth: .null, now: 0))
        #expect(!r.permitsWrite([(path("/widget/color"), json(#""blue""#)), (path("/widget/size"), json("700"))], to: tree("{}").root, auth: .null, now: 0))
    }

    @Test func aWriteNeedsAGrantAtOrAboveEveryWrittenLocation() throws {
        let r = try rules(#"{"rules": {"users": {"$uid": {".write": "auth.uid === $uid"}}, "log": {".write": "auth != null"}}}"#)
        #expect(r.permitsWrite([(path("/users/alice/name"), json(#""A""#))], to: chat.root, auth: user("alice"), now: 0))
        #expect(!r.permitsWrite([(path("/users/bob/name"), json(#""B""#))], to: chat.root, auth: user("alice"), now: 0))
        // A grant below the written location does not help.
        #expect(!r.permitsWrite([(path("/users"), json(#"{"alice": {"name": "A"}}"#))], to: chat.root, auth: user("alice"), now: 0))
        // One denied location denies the whole update.
        #expect(!r.permitsWrite([(path("/log/1"), json("1")), (path("/users/bob/name"), json(#""B""#))], to: chat.root, auth: user("alice"), now: 0))
        #expect(r.permitsWrite([(path("/log/1"), json("1")), (path("/users/alice/name"), json(#""A""#))], to: chat.root, auth: user("alice"), now: 0))
    }

    @Test func indexesAreThoseOfTheLocation() throws {
        let r = try rules(#"{"rules": {"players": {".indexOn": ["score", "name"]}, "scores": {".indexOn": ".value"}, "$x": {"items": {".indexOn": "n"}}}}"#)
        #expect(r.indexes(at: path("/players")) == ["score", "name"])
        #expect(r.indexes(at: path("/scores")) == [".value"])
        #expect(r.indexes(at: path("/any/items")) == ["n"])
        #expect(r.indexes(at: path("/players/x")) == [])
    }
}
