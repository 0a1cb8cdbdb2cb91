// Conformance: the rule examples of the Realtime Database's Security Rules documentation (core
// syntax, conditions, structuring, query-based rules, rules and auth, basic rules, the rules
// reference), each as rules × data × request × allowed or denied, run against `serve` over
// REST and, for reads, over the event stream.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree
@testable import Serve
import ServeTestSupport
import Testing
import TestSupport

/// One documented example: its rules, the data it is tried on, and the requests with the
/// decision the documentation gives.
struct RulesExample: Sendable {
    enum Who: Sendable {
        case nobody
        case user(String)
        /// A user with these ID token claims (`sub` included).
        case claims(String)
    }

    struct Request: Sendable {
        let who: Who
        let method: String
        /// The URL path and query, without `.json`: `/foo`, `/baskets?orderBy="owner"`.
        let target: String
        let body: String?
        let allowed: Bool
    }

    let source: String
    let rules: String
    let data: String
    let requests: [Request]
}

private func read(_ who: RulesExample.Who, _ target: String, _ allowed: Bool) -> RulesExample.Request {
    .init(who: who, method: "GET", target: target, body: nil, allowed: allowed)
}

private func write(_ who: RulesExample.Who, _ method: String, _ target: String, _ body: String?, _ allowed: Bool) -> RulesExample.Request {
    .init(who: who, method: method, target: target, body: body, allowed: allowed)
}

private let alice = RulesExample.Who.user("alice"), bob = RulesExample.Who.user("bob"), nobody = RulesExample.Who.nobody

let documentedExamples: [RulesExample] = [
    .init(source: "core syntax: a read and write rule", rules: #"{"rules": {"foo": {".read": true, ".write": false}}}"#,
          data: #"{"foo": {"a": 1}, "bar": 2}"#,
          requests: [read(nobody, "/foo", true), read(nobody, "/foo/a", true), read(nobody, "/", false), read(nobody, "/bar", false),
                     write(nobody, "PUT", "/foo/a", "2", false)]),
    .init(source: "core syntax: read and write rules cascade",
          rules: #"{"rules": {"foo": {/* allows read to /foo/* */ ".read": "data.child('baz').val() === true", "bar": {/* ignored, since read was allowed already */ ".read": false}}}}"#,
          data: #"{"foo": {"baz": true, "bar": {"x": 1}}}"#,
          requests: [read(nobody, "/foo/bar", true), read(nobody, "/foo", true)]),
    .init(source: "core syntax: cascade, the condition false",
          rules: #"{"rules": {"foo": {".read": "data.child('baz').val() === true", "bar": {".read": false}}}}"#,
          data: #"{"foo": {"baz": false, "bar": {"x": 1}}}"#,
          requests: [read(nobody, "/foo/bar", false), read(nobody, "/foo", false)]),
    .init(source: "core syntax: rules are not filters",
          rules: #"{"rules": {"records": {"rec1": {".read": true}, "rec2": {".read": false}}}}"#,
          data: #"{"records": {"rec1": {"a": 1}, "rec2": {"b": 2}}}"#,
          requests: [read(nobody, "/records", false), read(nobody, "/records/rec1", true), read(nobody, "/records/rec2", false)]),
    .init(source: "core syntax: overlapping statements (a named child, and a wildcard for the others)",
          rules: #"{"rules": {"messages": {"message0": {".read": true, ".write": true}, "$message": {".read": false, ".write": false}}}}"#,
          data: #"{"messages": {"message0": "hi", "message1": "ho"}}"#,
          requests: [read(nobody, "/messages/message0", true), read(nobody, "/messages/message1", false),
                     write(nobody, "PUT", "/messages/message0", #""hey""#, true), write(nobody, "PUT", "/messages/message1", #""hey""#, false)]),
    .init(source: "core syntax: .validate",
          rules: #"{"rules": {".write": true, "foo": {".validate": "newData.isString() && newData.val().length < 100"}}}"#,
          data: #"{"foo": "old"}"#,
          requests: [write(nobody, "PUT", "/foo", #""abc""#, true), write(nobody, "PUT", "/foo", "1", false),
                     write(nobody, "PUT", "/foo", "\"" + String(repeating: "x", count: 100) + "\"", false),
                     // .validate is not applied to a removal.
                     write(nobody, "DELETE", "/foo", nil, true)]),
    .init(source: "conditions: $ variables capture path segments",
          rules: #"{"rules": {"rooms": {"$room_id": {"topic": {".write": "$room_id.contains('public')"}}}}}"#,
          data: #"{"rooms": {}}"#,
          requests: [write(nobody, "PUT", "/rooms/public_chat/topic", #""hi""#, true), write(nobody, "PUT", "/rooms/private/topic", #""hi""#, false)]),
    .init(source: "conditions: $other excludes every other child",
          rules: #"{"rules": {".write": true, "widget": {"title": {".validate": true}, "color": {".validate": true}, "$other": {".validate": false}}}}"#,
          data: "{}",
          requests: [write(nobody, "PUT", "/widget", #"{"title": "t", "color": "red"}"#, true),
                     write(nobody, "PUT", "/widget", #"{"title": "t", "size": 1}"#, false),
                     write(nobody, "PATCH", "/widget", #"{"size": 1}"#, false),
                     write(nobody, "PATCH", "/widget", #"{"title": "u"}"#, true)]),
    .init(source: "conditions: authentication ($user_id === auth.uid)",
          rules: #"{"rules": {"users": {"$user_id": {".write": "$user_id === auth.uid"}}}}"#,
          data: #"{"users": {"alice": {"name": "A"}}}"#,
          requests: [write(alice, "PUT", "/users/alice", #"{"name": "Alice"}"#, true), write(bob, "PUT", "/users/alice", #"{"name": "B"}"#, false),
                     write(nobody, "PUT", "/users/alice", #"{"name": "N"}"#, false)]),
    .init(source: "conditions: auth.token email claims",
          rules: #"{"rules": {".read": "auth != null && auth.token.email_verified == true && auth.token.email.matches(/.*@google.com$/)"}}"#,
          data: #"{"a": 1}"#,
          requests: [read(.claims(#"{"sub": "g", "email": "g@google.com", "email_verified": true}"#), "/a", true),
                     read(.claims(#"{"sub": "g", "email": "g@google.com", "email_verified": false}"#), "/a", false),
                     read(.claims(#"{"sub": "g", "email": "g@example.com", "email_verified": true}"#), "/a", false),
                     read(nobody, "/a", false)]),
    .init(source: "conditions: a custom claim",
          rules: #"{"rules": {"frood": {".write": "auth.token.hasEmergencyTowel === true"}}}"#,
          data: "{}",
          requests: [write(.claims(#"{"sub": "z", "hasEmergencyTowel": true}"#), "PUT", "/frood/x", "1", true),
                     write(alice, "PUT", "/frood/x", "1", false)]),
    .init(source: "conditions: existing data against new data (create or delete, not update)",
          rules: #"{"rules": {"foo": {".write": "!data.exists() || !newData.exists()"}}}"#,
          data: #"{"foo": 1}"#,
          requests: [write(nobody, "PUT", "/foo", "2", false), write(nobody, "DELETE", "/foo", nil, true)]),
    .init(source: "conditions: existing data against new data, nothing there yet",
          rules: #"{"rules": {"foo": {".write": "!data.exists() || !newData.exists()"}}}"#,
          data: #"{"other": 1}"#,
          requests: [write(nobody, "PUT", "/foo", "2", true)]),
    .init(source: "conditions: referencing data in other paths",
          rules: #"{"rules": {"widget": {".write": "root.child('allow_writes').val() === true && !data.parent().child('readOnly').exists() && newData.child('foo').exists()"}}}"#,
          data: #"{"allow_writes": true}"#,
          requests: [write(nobody, "PUT", "/widget", #"{"foo": 1}"#, true), write(nobody, "PUT", "/widget", #"{"bar": 1}"#, false)]),
    .init(source: "conditions: referencing data in other paths, read-only",
          rules: #"{"rules": {"widget": {".write": "root.child('allow_writes').val() === true && !data.parent().child('readOnly').exists() && newData.child('foo').exists()"}}}"#,
          data: #"{"allow_writes": true, "readOnly": true}"#,
          requests: [write(nobody, "PUT", "/widget", #"{"foo": 1}"#, false)]),
    .init(source: "conditions: validating data",
          rules: #"""
              {"rules": {".write": true, "widget": {
                // a valid widget must have attributes "color" and "size"
                ".validate": "newData.hasChildren(['color', 'size'])",
                "size": {".validate": "newData.isNumber() && newData.val() >= 0 && newData.val() <= 99"},
                "color": {".validate": "root.child('valid_colors/' + newData.val()).exists()"}}}}
              """#,
          data: #"{"valid_colors": {"red": true, "blue": true}, "widget": {"color": "red", "size": 1}}"#,
          requests: [write(nobody, "PUT", "/widget", #"{"color": "blue", "size": 5}"#, true),
                     write(nobody, "PUT", "/widget", #"{"color": "green", "size": 5}"#, false),
                     write(nobody, "PUT", "/widget", #"{"color": "red"}"#, false),
                     write(nobody, "PUT", "/widget", #"{"color": "red", "size": 100}"#, false),
                     write(nobody, "PUT", "/widget/size", "7", true),
                     write(nobody, "PUT", "/widget/size", #""big""#, false),
                     write(nobody, "DELETE", "/widget", nil, true)]),
    .init(source: "query-based rules: a query for one's own baskets",
          rules: #"{"rules": {"baskets": {".read": "auth.uid !== null && query.orderByChild === 'owner' && query.equalTo === auth.uid", ".indexOn": "owner"}}}"#,
          data: #"{"baskets": {"b1": {"owner": "alice"}, "b2": {"owner": "bob"}}}"#,
          requests: [read(alice, #"/baskets?orderBy="owner"&equalTo="alice""#, true), read(alice, #"/baskets?orderBy="owner"&equalTo="bob""#, false),
                     read(alice, "/baskets", false), read(nobody, #"/baskets?orderBy="owner"&equalTo="alice""#, false)]),
    .init(source: "query-based rules: at most 1000 messages by key",
          rules: #"{"rules": {"messages": {".read": "query.orderByKey && query.limitToFirst <= 1000"}}}"#,
          data: #"{"messages": {"m1": "hi", "m2": "ho"}}"#,
          requests: [read(nobody, #"/messages?orderBy="$key"&limitToFirst=100"#, true), read(nobody, #"/messages?orderBy="$key"&limitToFirst=5000"#, false),
                     read(nobody, #"/messages?orderBy="$key""#, false), read(nobody, "/messages", false)]),
    .init(source: "basic rules: content-owner only access",
          rules: #"{"rules": {"some_path": {"$uid": {".read": "auth != null && auth.uid == $uid", ".write": "auth != null && auth.uid == $uid"}}}}"#,
          data: #"{"some_path": {"alice": {"x": 1}, "bob": {"x": 2}}}"#,
          requests: [read(alice, "/some_path/alice", true), read(bob, "/some_path/alice", false), read(nobody, "/some_path/alice", false),
                     read(alice, "/some_path", false), write(alice, "PUT", "/some_path/alice/x", "3", true), write(bob, "PUT", "/some_path/alice/x", "3", false)]),
    .init(source: "basic rules: mixed public and private access",
          rules: #"{"rules": {"some_path": {"$uid": {".read": true, ".write": "auth != null && auth.uid == $uid"}}}}"#,
          data: #"{"some_path": {"alice": {"x": 1}}}"#,
          requests: [read(nobody, "/some_path/alice", true), write(nobody, "PUT", "/some_path/alice/x", "2", false),
                     write(alice, "PUT", "/some_path/alice/x", "2", true)]),
    .init(source: "basic rules: attribute-based and role-based access",
          rules: #"{"rules": {"some_path": {"${subpath}": {".write": "root.child('users').child(auth.uid).child('role').val() == 'admin'", ".read": true}}}}"#,
          data: #"{"users": {"alice": {"role": "admin"}, "bob": {"role": "member"}}, "some_path": {"p": 1}}"#,
          requests: [read(nobody, "/some_path/p", true), write(alice, "PUT", "/some_path/p", "2", true), write(bob, "PUT", "/some_path/p", "2", false),
                     write(nobody, "PUT", "/some_path/p", "2", false)]),
    .init(source: "basic rules: authenticated users only",
          rules: #"{"rules": {".read": "auth.uid !== null", ".write": "auth.uid !== null"}}"#,
          data: #"{"a": 1}"#,
          requests: [read(alice, "/", true), read(nobody, "/", false), write(alice, "PUT", "/a", "2", true), write(nobody, "PUT", "/a", "2", false)]),
    .init(source: "basic rules: locked mode", rules: #"{"rules": {".read": false, ".write": false}}"#, data: #"{"a": 1}"#,
          requests: [read(alice, "/", false), read(alice, "/a", false), write(alice, "PUT", "/a", "2", false)]),
    .init(source: "basic rules: test mode that ended", rules: #"{"rules": {".read": "now < 1627808400000", ".write": "now < 1627808400000"}}"#,
          data: #"{"a": 1}"#, requests: [read(nobody, "/a", false), write(nobody, "PUT", "/a", "2", false)]),
    .init(source: "basic rules: test mode still on", rules: #"{"rules": {".read": "now < 4102444800000", ".write": "now < 4102444800000"}}"#,
          data: #"{"a": 1}"#, requests: [read(nobody, "/a", true), write(nobody, "PUT", "/a", "2", true)]),
    .init(source: "reference: now, with a server timestamp",
          rules: #"{"rules": {".write": true, "lastUpdated": {".validate": "newData.val() <= now"}}}"#, data: "{}",
          requests: [write(nobody, "PUT", "/lastUpdated", #"{".sv": "timestamp"}"#, true), write(nobody, "PUT", "/lastUpdated", "99999999999999", false)]),
    .init(source: "reference: auth.provider",
          rules: #"{"rules": {".read": "auth.provider == 'password'"}}"#, data: #"{"a": 1}"#,
          requests: [read(.claims(#"{"sub": "p", "firebase": {"sign_in_provider": "password"}}"#), "/a", true),
                     read(.claims(#"{"sub": "p", "firebase": {"sign_in_provider": "anonymous"}}"#), "/a", false)]),
    .init(source: "reference: string.beginsWith and string.endsWith",
          rules: #"{"rules": {"internal": {".read": "auth.token.identifier.beginsWith('internal-')"}, "company": {".read": "auth.token.identifier.endsWith('@company.com')"}}}"#,
          data: #"{"internal": 1, "company": 2}"#,
          requests: [read(.claims(#"{"sub": "i", "identifier": "internal-7"}"#), "/internal", true), read(.claims(#"{"sub": "i", "identifier": "external-7"}"#), "/internal", false),
                     read(.claims(#"{"sub": "i", "identifier": "i@company.com"}"#), "/company", true), read(.claims(#"{"sub": "i", "identifier": "i@other.com"}"#), "/company", false)]),
    .init(source: "reference: string.replace and string.toLowerCase",
          rules: #"{"rules": {"a": {".read": "root.child('users').child(auth.token.email.replace('.', '%2E')).exists()"}, "b": {".read": "root.child('users').child(auth.token.identifier.toLowerCase()).exists()"}}}"#,
          data: #"{"users": {"john%2Edoe@example%2Ecom": true, "alice": true}, "a": 1, "b": 2}"#,
          requests: [read(.claims(#"{"sub": "j", "email": "john.doe@example.com"}"#), "/a", true), read(.claims(#"{"sub": "j", "email": "jane.doe@example.com"}"#), "/a", false),
                     read(.claims(#"{"sub": "x", "identifier": "ALICE"}"#), "/b", true), read(.claims(#"{"sub": "x", "identifier": "BOB"}"#), "/b", false)]),
    .init(source: "reference: string.length, string.contains, string.matches",
          rules: #"""
              {"rules": {".write": true, "name": {".validate": "newData.isString() && newData.val().length >= 10"},
               "email": {".validate": "newData.isString() && newData.val().contains('@')"},
               "date": {".validate": "newData.isString() && newData.val().matches(/^(19|20)[0-9][0-9][-\\/. ](0[1-9]|1[012])[-\\/. ](0[1-9]|[12][0-9]|3[01])$/)"}}}
              """#,
          data: "{}",
          requests: [write(nobody, "PUT", "/name", #""long enough""#, true), write(nobody, "PUT", "/name", #""short""#, false),
                     write(nobody, "PUT", "/email", #""a@b""#, true), write(nobody, "PUT", "/email", #""ab""#, false),
                     write(nobody, "PUT", "/date", #""2014-12-31""#, true), write(nobody, "PUT", "/date", #""2014-13-31""#, false)]),
    .init(source: "reference: hasChild, hasChildren, isNumber, isBoolean, getPriority",
          rules: #"""
              {"rules": {".write": true, "a": {".validate": "newData.hasChild('name')"}, "b": {".validate": "newData.hasChildren(['name', 'age'])"},
               "c": {".validate": "newData.hasChildren()"}, "d": {".validate": "newData.isNumber()"}, "e": {".validate": "newData.isBoolean()"},
               "f": {".validate": "newData.getPriority() != null"}}}
              """#,
          data: "{}",
          requests: [write(nobody, "PUT", "/a", #"{"name": "n"}"#, true), write(nobody, "PUT", "/a", #"{"age": 1}"#, false),
                     write(nobody, "PUT", "/b", #"{"name": "n", "age": 1}"#, true), write(nobody, "PUT", "/b", #"{"name": "n"}"#, false),
                     write(nobody, "PUT", "/c", #"{"x": 1}"#, true), write(nobody, "PUT", "/c", "1", false),
                     write(nobody, "PUT", "/d", "1.5", true), write(nobody, "PUT", "/d", #""1""#, false),
                     write(nobody, "PUT", "/e", "false", true), write(nobody, "PUT", "/e", "0", false),
                     write(nobody, "PUT", "/f", #"{".value": 1, ".priority": 2}"#, true), write(nobody, "PUT", "/f", "1", false)]),
    .init(source: "structuring rules: a multi-path update is allowed or denied as one",
          rules: #"{"rules": {"users": {"$uid": {".write": "auth.uid === $uid"}}}}"#,
          data: #"{"users": {"alice": {"name": "A"}, "bob": {"name": "B"}}}"#,
          requests: [write(alice, "PATCH", "/", #"{"users/alice/name": "A2", "users/bob/name": "B2"}"#, false),
                     write(alice, "PATCH", "/", #"{"users/alice/name": "A2", "users/alice/age": 3}"#, true),
                     write(alice, "PATCH", "/users", #"{"alice/name": "A3"}"#, true)]),
]

@Suite struct RulesConformanceTests {
    static func headers(_ who: RulesExample.Who) -> [(String, String)] {
        switch who {
        case .nobody: []
        case .user(let uid): bearer(uid)
        case .claims(let text): [("Authorization", "Bearer " + idToken(json(text)))]
        }
    }

    static func target(_ target: String) -> String {
        let parts = target.split(separator: "?", maxSplits: 1)
        let path = parts[0] == "/" ? "/.json" : "\(parts[0]).json"
        guard parts.count > 1 else { return path }
        let query = parts[1].replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "$", with: "%24")
        return path + "?" + query
    }

    /// Every example on one server (its rules and data set by the admin, the data again after
    /// an allowed write), REST and streams; a denied write leaves the file byte-identical.
    @Test func everyDocumentedExampleDecidesAsDocumented() async throws {
        let folder = ScratchFolder()
        let file = folder.write("db.json", "{}")
        var options = ServeOptions()
        options.acceptUnverifiedTokens = true
        let server = try await InProcessServer(file: file, options: options)
        let admin = [("Authorization", "Bearer owner")]
        var decided = 0
        for example in documentedExamples {
            let put = try server.request("PUT", "/.settings/rules.json", headers: admin, body: example.rules)
            try #require(put.status == 200, "\(example.source): \(put.text)")
            var changed = true
            for request in example.requests {
                if changed {
                    let reset = try server.request("PUT", "/.json", headers: admin, body: example.data)
                    try #require(reset.status == 200, "\(example.source): \(reset.text)")
                }
                changed = request.method != "GET" && request.allowed
                let before = folder.read("db.json")
                let what = "\(example.source): \(request.method) \(request.target) \(request.body ?? "")"
                let response = try server.request(request.method, Self.target(request.target), headers: Self.headers(request.who), body: request.body)
                #expect(response.status == (request.allowed ? 200 : 401), "\(what): \(response.status) \(response.text)")
                if !request.allowed {
                    #expect(response.json == json(#"{"error": "Permission denied"}"#), "\(what)")
                    #expect(folder.read("db.json") == before, "\(what): a denied write changed the file")
                }
                if request.method == "GET" && !request.target.contains("?") {
                    let stream = try server.openStream(Self.target(request.target), headers: Self.headers(request.who))
                    #expect(stream.head.status == 200 && stream.first?.name == (request.allowed ? "put" : "cancel"), "\(what): stream \(String(describing: stream.first))")
                    if !request.allowed { #expect(try stream.next() == nil, "\(what): the stream goes on after cancel") }
                }
                decided += 1
            }
        }
        #expect(decided == documentedExamples.reduce(0) { $0 + $1.requests.count })
        try await server.stop()
    }
}
