// A request's URL query: the database query and the REST options, each checked by name.
import Hummingbird
import JSONTree
import LiveQuery

/// A response that is an error: its status and the message sent as `{"error": "…"}`.
struct RequestError: Error, Sendable {
    let status: HTTPResponse.Status
    let message: String
    /// Extra headers (the current ETag with a 412).
    var headers: HTTPFields = [:]
    /// A body other than the error object (the current value with a 412).
    var body: [UInt8]?

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// What the URL query of a request asks for.
struct RequestParameters: Sendable {
    enum Print: Sendable { case compact, pretty, silent }

    var query: Query?
    var shallow = false
    var print = Print.compact
    /// `format=export`: priorities included, as `.priority` members.
    var export = false
    /// `auth=`: the token, for a client that cannot send headers.
    var auth: String?
    /// `auth_variable_override=`: the Admin SDK acting as a user (JSON), for the rules.
    var authOverride: String?
    /// The query as rules see it: the `query` variable (`orderByChild`, `limitToFirst`, …).
    var ruleQuery = JSON.null
    /// The index a query needs (`.indexOn`): its child path, or `.value`; nil for other orders.
    var index: String?
    /// The parameters that shape the answer (not `ns`, `auth`, `auth_variable_override`), in
    /// one order: two requests of a location with equal keys get the same answer.
    var answerKey: [UInt8] = []

    /// The parameters served; any other is an error, so that a typo is not ignored. `ns` (the
    /// database's name) is accepted and has no effect: one file is one database.
    static let known: Set<String> = [
        "orderBy", "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast",
        "shallow", "print", "format", "auth", "ns", "auth_variable_override",
    ]

    /// Parameters that do not change what a read answers.
    static let notInAnswer: Set<String> = ["ns", "auth", "auth_variable_override"]

    /// Parses a raw URL query (`orderBy="score"&limitToLast=5`), percent escapes decoded.
    /// - Throws: `RequestError` (400) naming the parameter and the rule it breaks.
    /// The value of the parameter `name` in a URL's query (`ns` to choose a database); nil when
    /// it is not there or not decodable.
    static func value(of name: String, inURLQuery query: String) -> String? {
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if percentDecoded(parts[0]) == name { return percentDecoded(parts.count > 1 ? parts[1] : "") }
        }
        return nil
    }

    init(urlQuery: String?) throws(RequestError) {
        var values = [String: String]()
        for item in (urlQuery ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(parts[0]), let value = percentDecoded(parts.count > 1 ? parts[1] : "") else {
                throw RequestError(.badRequest, "a query parameter has a malformed percent escape: '\(item)'")
            }
            guard Self.known.contains(name) else {
                throw RequestError(.badRequest, "unknown query parameter '\(name)'")
            }
            guard values[name] == nil else { throw RequestError(.badRequest, "\(name) is given twice") }
            values[name] = value
        }
        auth = values["auth"]
        authOverride = values["auth_variable_override"]
        for name in values.keys.sorted() where !Self.notInAnswer.contains(name) {
            answerKey += Array(name.utf8) + [0x3D] + Array(values[name]!.utf8) + [0]
        }
        if let shallow = values["shallow"] {
            guard shallow == "true" || shallow == "false" else {
                throw RequestError(.badRequest, "shallow must be true or false, not '\(shallow)'")
            }
            self.shallow = shallow == "true"
        }
        switch values["print"] {
        case nil: break
        case "pretty": print = .pretty
        case "silent": print = .silent
        case let other?: throw RequestError(.badRequest, "print must be pretty or silent, not '\(other)'")
        }
        switch values["format"] {
        case nil: break
        case "export": export = true
        case let other?: throw RequestError(.badRequest, "format must be export, not '\(other)'")
        }
        query = try Self.query(values)
        if query != nil { (ruleQuery, index) = try Self.ruleQuery(values) }
        if shallow && query != nil {
            throw RequestError(.badRequest, "shallow cannot be used with orderBy, a range or a limit")
        }
    }

    /// The database query the parameters describe; nil without `orderBy` and filters.
    private static func query(_ values: [String: String]) throws(RequestError) -> Query? {
        let filters = ["startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast"]
        guard let orderBy = values["orderBy"] else {
            if let filter = filters.first(where: { values[$0] != nil }) {
                throw RequestError(.badRequest, "\(filter) needs orderBy (\"$key\", \"$value\", \"$priority\" or a child path)")
            }
            return nil
        }
        var q = Query()
        func step(_ name: String, _ body: (Query) throws(QueryError) -> Query) throws(RequestError) {
            let result = Result { () throws(QueryError) in try body(q) }
            switch result {
            case .success(let next): q = next
            case .failure(let error): throw RequestError(.badRequest, "\(name): \(error.rule)")
            }
        }
        switch try jsonParameter("orderBy", orderBy) {
        case .string("$key"): try step("orderBy") { q throws(QueryError) in try q.orderByKey() }
        case .string("$value"): try step("orderBy") { q throws(QueryError) in try q.orderByValue() }
        case .string("$priority"): try step("orderBy") { q throws(QueryError) in try q.orderByPriority() }
        case .string(let child):
            let path: Path
            do { path = try DatabasePath.relative(child) } catch {
                throw RequestError(.badRequest, "orderBy: \(error.message)")
            }
            try step("orderBy") { q throws(QueryError) in try q.orderByChild(path) }
        default:
            throw RequestError(.badRequest, "orderBy must be a JSON string: \"$key\", \"$value\", \"$priority\" or a child path")
        }
        typealias Setter = (Query, JSON) throws(QueryError) -> Query
        let bounds: [(String, Setter)] = [
            ("equalTo", { q, v throws(QueryError) in try q.equalTo(v) }),
            ("startAt", { q, v throws(QueryError) in try q.startAt(v) }),
            ("startAfter", { q, v throws(QueryError) in try q.startAfter(v) }),
            ("endAt", { q, v throws(QueryError) in try q.endAt(v) }),
            ("endBefore", { q, v throws(QueryError) in try q.endBefore(v) }),
        ]
        for (name, set) in bounds {
            guard let text = values[name] else { continue }
            let value = try jsonParameter(name, text)
            try step(name) { q throws(QueryError) in try set(q, value) }
        }
        for name in ["limitToFirst", "limitToLast"] {
            guard let text = values[name] else { continue }
            guard let n = Int(text), n > 0 else {
                throw RequestError(.badRequest, "\(name) must be a positive integer, not '\(text)'")
            }
            try step(name) { q throws(QueryError) in name == "limitToFirst" ? try q.limitToFirst(n) : try q.limitToLast(n) }
        }
        return q
    }

    /// The `query` variable of the rules, and the index the query needs.
    private static func ruleQuery(_ values: [String: String]) throws(RequestError) -> (JSON, String?) {
        let orderBy = try values["orderBy"].map { text throws(RequestError) in try jsonParameter("orderBy", text) }
        var members: [(key: String, value: JSON)] = [
            ("orderByKey", .bool(orderBy == .string("$key"))),
            ("orderByValue", .bool(orderBy == .string("$value"))),
            ("orderByPriority", .bool(orderBy == .string("$priority"))),
        ]
        var index: String?
        switch orderBy?.stringValue {
        case "$key"?, "$priority"?, nil: members.append(("orderByChild", .null))
        case "$value"?:
            members.append(("orderByChild", .null))
            index = ".value"
        case let child?:
            members.append(("orderByChild", .string(child)))
            index = child
        }
        for name in ["startAt", "endAt", "equalTo"] {
            members.append((name, try values[name].map { text throws(RequestError) in try jsonParameter(name, text) } ?? .null))
        }
        for name in ["limitToFirst", "limitToLast"] {
            members.append((name, values[name].flatMap { Int($0) }.map { JSON.number(JSONNumber($0)) } ?? JSON.null))
        }
        return (.object(JSONObject(members)), index)
    }

    /// A parameter whose value is JSON-encoded (`"score"`, `5`, `true`).
    private static func jsonParameter(_ name: String, _ text: String) throws(RequestError) -> JSON {
        do {
            return try JSONDocument(parsing: text).root.json
        } catch {
            throw RequestError(.badRequest, "\(name) must be JSON-encoded (a string in double quotes, e.g. \(name)=\"abc\"), not \(text)")
        }
    }
}
