// A listen's or get's `q` object, as the client SDKs encode a query (QueryParams.getQueryObject).
import JSONTree
import LiveQuery

/// The client SDKs' query encoding: `i` the index (`.key`, `.value`, `.priority` or a child path;
/// absent for priority), `sp`/`sn`/`sin` the start value, key and inclusiveness, `ep`/`en`/`ein`
/// the end's, `l` the limit and `vf` the side it counts from (`l` first, `r` last).
enum WireQuery {
    /// The SDKs' names for the lowest and highest possible key, used as a bound's key to mean
    /// "every key with this value" (`startAfter(v)` is sent as `sp: v, sn: "[MAX_NAME]", sin: false`).
    static let minName = "[MIN_NAME]"
    static let maxName = "[MAX_NAME]"

    /// The query `object` describes; nil for the default query (all children, priority order).
    /// - Throws: `WireError` naming the parameter and the rule it breaks.
    static func query(_ object: JSONObject?) throws(WireError) -> Query? {
        guard let object, object.count > 0 else { return nil }
        var q = Query()
        func step(_ name: String, _ body: (Query) throws(QueryError) -> Query) throws(WireError) {
            do throws(QueryError) { q = try body(q) } catch { throw WireError("\(name): \(error.rule)") }
        }
        switch object["i"] {
        case nil, .string(".priority")?: break
        case .string(".key")?: try step("i") { q throws(QueryError) in try q.orderByKey() }
        case .string(".value")?: try step("i") { q throws(QueryError) in try q.orderByValue() }
        case .string(let child)?:
            let path: Path
            do { path = try DatabasePath.relative(child) } catch { throw WireError("i: \(error.message)") }
            try step("i") { q throws(QueryError) in try q.orderByChild(path) }
        default: throw WireError("i must be a string")
        }
        let byKey = q.ordering == .key
        if let start = object["sp"] {
            let inclusive = object["sin"]?.boolValue ?? true
            let key = try name(object["sn"], "sn")
            try step(inclusive ? "startAt" : "startAfter") { q throws(QueryError) in
                switch (key, inclusive) {
                case (Self.maxName?, true), (Self.maxName?, false), (nil, false): return try q.startAfter(start)
                case (Self.minName?, _), (nil, true): return try q.startAt(start)
                case (let key?, true): return byKey ? try q.startAt(start) : try q.startAt(start, key: key)
                case (let key?, false): return byKey ? try q.startAfter(start) : try q.startAfter(start, key: key)
                }
            }
        }
        if let end = object["ep"] {
            let inclusive = object["ein"]?.boolValue ?? true
            let key = try name(object["en"], "en")
            try step(inclusive ? "endAt" : "endBefore") { q throws(QueryError) in
                switch (key, inclusive) {
                case (Self.minName?, true), (Self.minName?, false), (nil, false): return try q.endBefore(end)
                case (Self.maxName?, _), (nil, true): return try q.endAt(end)
                case (let key?, true): return byKey ? try q.endAt(end) : try q.endAt(end, key: key)
                case (let key?, false): return byKey ? try q.endBefore(end) : try q.endBefore(end, key: key)
                }
            }
        }
        if let limit = object["l"] {
            guard let n = limit.doubleValue, n >= 1, n == n.rounded(), n <= Double(Int32.max) else {
                throw WireError("l must be a positive integer")
            }
            let fromRight = object["vf"]?.stringValue == "r"
            try step(fromRight ? "limitToLast" : "limitToFirst") { q throws(QueryError) in
                fromRight ? try q.limitToLast(Int(n)) : try q.limitToFirst(Int(n))
            }
        }
        return q
    }

    /// The rules' `query` variable for a wire query (as `RequestParameters` makes it for REST).
    static func ruleQuery(_ object: JSONObject?) -> JSON {
        guard let object, object.count > 0 else { return .null }
        let index = object["i"]?.stringValue
        let equal = object["sp"] != nil && object["ep"] != nil && object["sp"] == object["ep"]
            && object["sin"]?.boolValue != false && object["ein"]?.boolValue != false
        let limit = object["l"] ?? .null
        let fromRight = object["vf"]?.stringValue == "r"
        return .object(JSONObject([
            ("orderByKey", .bool(index == ".key")),
            ("orderByValue", .bool(index == ".value")),
            ("orderByPriority", .bool(index == nil || index == ".priority")),
            ("orderByChild", index.flatMap { $0.hasPrefix(".") ? nil : JSON.string($0) } ?? .null),
            ("startAt", equal ? .null : object["sp"] ?? .null),
            ("endAt", equal ? .null : object["ep"] ?? .null),
            ("equalTo", equal ? object["sp"]! : .null),
            ("limitToFirst", fromRight ? .null : limit),
            ("limitToLast", fromRight ? limit : .null),
        ]))
    }

    private static func name(_ value: JSON?, _ parameter: String) throws(WireError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw WireError("\(parameter) must be a string")
        }
    }
}

/// A message of the WebSocket protocol that cannot be carried out: sent back as the request's
/// status text.
struct WireError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}
