// A query: how to order, filter and limit the children of a location.
import JSONTree

/// An ordered, filtered, limited view of the children of one location, with the Realtime
/// Database's rules.
///
/// Built with the database's builder methods; each validates the whole query and throws
/// `QueryError` naming the broken rule:
///
/// ```swift
/// let top = try Query().orderByChild("metrics/views").startAt(100).limitToLast(10)   // a nested path
/// let page = try Query().orderByKey().startAfter("user42").limitToFirst(50)
/// ```
///
/// Without an ordering, children are in priority order (key order when none has a priority).
public struct Query: Sendable, Equatable, CustomStringConvertible {
    /// What children are sorted by.
    public enum Ordering: Sendable, Equatable {
        /// By `.priority` (null < numbers < strings), ties by key. The default.
        case priority
        /// By key (`nameCompare`).
        case key
        /// By the child's value, ties by key.
        case value
        /// By the value at a path inside each child (missing is null), ties by key.
        case child(Path)
        /// By a value computed from each child (none is null), ties by key.
        case computed(ChildValue)
    }

    /// One end of a range: a value, and optionally the key where the range starts or ends
    /// among children with that value. With `.key` ordering the value is the key (a string).
    public struct Bound: Sendable, Equatable {
        public var value: JSON
        public var key: String?

        public init(_ value: JSON, key: String? = nil) {
            self.value = value
            self.key = key
        }

        public static func == (a: Bound, b: Bound) -> Bool {
            a.value == b.value && a.key.map { k in b.key.map { codeUnitsEqual(k, $0) } ?? false } ?? (b.key == nil)
        }
    }

    /// The start of the range: inclusive (`startAt`, `equalTo`) or exclusive (`startAfter`).
    public enum Start: Sendable, Equatable {
        case at(Bound)
        case after(Bound)
        public var bound: Bound {
            switch self {
            case .at(let b), .after(let b): b
            }
        }
    }

    /// The end of the range: inclusive (`endAt`, `equalTo`) or exclusive (`endBefore`).
    public enum End: Sendable, Equatable {
        case at(Bound)
        case before(Bound)
        public var bound: Bound {
            switch self {
            case .at(let b), .before(let b): b
            }
        }
    }

    /// How many children a window keeps.
    public enum Limit: Sendable, Equatable {
        /// The first n children in range.
        case first(Int)
        /// The last n children in range (in ascending order).
        case last(Int)
        public var count: Int {
            switch self {
            case .first(let n), .last(let n): n
            }
        }
    }

    /// The ordering set by an `orderBy…` method; nil for the default (priority) order.
    public private(set) var explicitOrdering: Ordering?
    public private(set) var start: Start?
    public private(set) var end: End?
    public private(set) var limit: Limit?
    /// Whether the range was set by `equalTo` (which sets both start and end).
    public private(set) var isEqualTo = false
    /// Conditions every child in the window meets besides the range (all of them: a second
    /// narrows the first); a limit counts the children they keep.
    public private(set) var filters: [ChildFilter] = []
    /// Children without a value for the order (missing, null; for a computed order, no value or
    /// an error) come after every value instead of before (`valuesFirst()`).
    public private(set) var hasValuesFirst = false

    /// All children, in the default (priority) order.
    public init() {}

    /// The ordering in effect.
    public var ordering: Ordering { explicitOrdering ?? .priority }

    // MARK: Builders

    public func orderByKey() throws(QueryError) -> Query { try ordered(.key, "orderByKey") }
    public func orderByValue() throws(QueryError) -> Query { try ordered(.value, "orderByValue") }
    public func orderByPriority() throws(QueryError) -> Query { try ordered(.priority, "orderByPriority") }

    /// Orders by the value at `path` inside each child (`"metrics/views"` is a nested path).
    public func orderByChild(_ path: Path) throws(QueryError) -> Query {
        guard !path.isRoot else {
            throw QueryError("orderByChild", "the path must not be empty; use orderByValue to order by the child itself")
        }
        return try ordered(.child(path), "orderByChild")
    }

    /// Orders by a value computed from each child (`.score / .level`), in value order.
    public func orderByComputed(_ value: ChildValue) throws(QueryError) -> Query {
        try ordered(.computed(value), "orderByComputed")
    }

    /// Orders by the value at `path` (`"metrics/views"`) inside each child.
    /// - Throws: `QueryError` also for a malformed path.
    public func orderByChild(_ path: String) throws(QueryError) -> Query {
        let parsed: Path
        do {
            parsed = try Path(path)
        } catch {
            throw QueryError("orderByChild", error.description)
        }
        return try orderByChild(parsed)
    }

    public func startAt(_ value: JSON, key: String? = nil) throws(QueryError) -> Query {
        try starting(.at(Bound(value, key: key)), "startAt")
    }

    /// Starts after `value` (and `key`); without a key, after every child whose value equals `value`.
    public func startAfter(_ value: JSON, key: String? = nil) throws(QueryError) -> Query {
        try starting(.after(Bound(value, key: key)), "startAfter")
    }

    public func endAt(_ value: JSON, key: String? = nil) throws(QueryError) -> Query {
        try ending(.at(Bound(value, key: key)), "endAt")
    }

    /// Ends before `value` (and `key`); without a key, before every child whose value equals `value`.
    public func endBefore(_ value: JSON, key: String? = nil) throws(QueryError) -> Query {
        try ending(.before(Bound(value, key: key)), "endBefore")
    }

    /// Children whose value equals `value` (from `key`, when given, to the same key): startAt + endAt.
    public func equalTo(_ value: JSON, key: String? = nil) throws(QueryError) -> Query {
        if let start { throw QueryError("equalTo", "the start of the range is already set by \(describe(start)); equalTo sets both start and end") }
        if let end { throw QueryError("equalTo", "the end of the range is already set by \(describe(end)); equalTo sets both start and end") }
        var q = self
        let bound = Bound(value, key: key)
        q.start = .at(bound)
        q.end = .at(bound)
        q.isEqualTo = true
        try q.validate("equalTo")
        return q
    }

    public func limitToFirst(_ n: Int) throws(QueryError) -> Query { try limited(.first(n), "limitToFirst") }
    public func limitToLast(_ n: Int) throws(QueryError) -> Query { try limited(.last(n), "limitToLast") }

    /// The same query without its limit (all children in range).
    public var withoutLimit: Query {
        var q = self
        q.limit = nil
        return q
    }

    /// The same query, keeping only the children `filter` keeps too.
    public func filtered(by filter: ChildFilter) -> Query {
        var q = self
        q.filters.append(filter)
        return q
    }

    /// The same query with the children that have no value for its order (missing, null, or a
    /// computed order's error) after every value instead of before, as a viewer sorting by a
    /// column shows them; a null bound is read the same way. Key and priority order are
    /// unchanged (every child has a key; a priority's absence is Firebase's to place).
    public func valuesFirst() -> Query {
        var q = self
        q.hasValuesFirst = true
        return q
    }

    /// The same query without its filters.
    public var withoutFilters: Query {
        var q = self
        q.filters = []
        return q
    }

    /// Equal orderings, ranges and limits, and filters with the same texts.
    public static func == (a: Query, b: Query) -> Bool {
        a.explicitOrdering == b.explicitOrdering && a.start == b.start && a.end == b.end && a.limit == b.limit
            && a.isEqualTo == b.isEqualTo && a.hasValuesFirst == b.hasValuesFirst
            && a.filters.map(\.text).elementsEqual(b.filters.map(\.text)) { $0.utf8.elementsEqual($1.utf8) }
    }

    // MARK: Validation

    private func ordered(_ o: Ordering, _ method: String) throws(QueryError) -> Query {
        if let explicitOrdering {
            throw QueryError(method, "the query is already ordered by \(describe(explicitOrdering)); a query has one orderBy")
        }
        var q = self
        q.explicitOrdering = o
        try q.validate(method)
        return q
    }

    private func starting(_ s: Start, _ method: String) throws(QueryError) -> Query {
        if let start {
            throw QueryError(method, "the start of the range is already set by \(isEqualTo ? describeEqualTo(start.bound) : describe(start)); use one of startAt, startAfter, equalTo")
        }
        var q = self
        q.start = s
        try q.validate(method)
        return q
    }

    private func ending(_ e: End, _ method: String) throws(QueryError) -> Query {
        if let end {
            throw QueryError(method, "the end of the range is already set by \(isEqualTo ? describeEqualTo(end.bound) : describe(end)); use one of endAt, endBefore, equalTo")
        }
        var q = self
        q.end = e
        try q.validate(method)
        return q
    }

    private func limited(_ l: Limit, _ method: String) throws(QueryError) -> Query {
        if let limit { throw QueryError(method, "a limit is already set (\(describe(limit))); a query has one limit") }
        guard l.count > 0 else { throw QueryError(method, "the limit must be a positive integer, not \(l.count)") }
        var q = self
        q.limit = l
        try q.validate(method)
        return q
    }

    /// Checks the rules that tie bounds to the ordering (so they hold whichever was set first).
    private func validate(_ method: String) throws(QueryError) {
        for bound in [start?.bound, end?.bound].compactMap({ $0 }) {
            let name = describe(bound)
            if !bound.value.isScalar {
                throw QueryError(method, "a bound must be a string, number, boolean or null, not \(bound.value.kind == .array ? "an array" : "an object") (\(name))")
            }
            switch ordering {
            case .key:
                if bound.key != nil {
                    throw QueryError(method, "with orderByKey a bound is a key and takes no key argument (\(name))")
                }
                if bound.value.stringValue == nil {
                    throw QueryError(method, "with orderByKey a bound must be a string (a key), not \(bound.value.serializedString()) (\(name))")
                }
            case .priority:
                if bound.value.boolValue != nil {
                    let order = explicitOrdering == nil ? "without an orderBy children are in priority order, so" : "with orderByPriority"
                    throw QueryError(method, "\(order) a bound must be a number, string or null (a priority), not \(bound.value.serializedString())")
                }
            case .value, .child, .computed:
                break
            }
        }
    }

    // MARK: Description

    /// The query as builder calls: `orderByChild("score").startAt(5).limitToFirst(10)`, then any
    /// filters as `filter(".team == \\"a\\"")`.
    public var description: String {
        var parts = [String]()
        if let explicitOrdering { parts.append(describe(explicitOrdering)) }
        if isEqualTo, let start {
            parts.append(describeEqualTo(start.bound))
        } else {
            if let start { parts.append(describe(start)) }
            if let end { parts.append(describe(end)) }
        }
        if let limit { parts.append(describe(limit)) }
        for f in filters { parts.append("filter(\(JSON.string(f.text).serializedString()))") }
        if hasValuesFirst { parts.append("valuesFirst()") }
        return parts.isEmpty ? "all children" : parts.joined(separator: ".")
    }

    private func describe(_ o: Ordering) -> String {
        switch o {
        case .priority: "orderByPriority()"
        case .key: "orderByKey()"
        case .value: "orderByValue()"
        case .child(let p): "orderByChild(\(JSON.string(String(p.description.dropFirst())).serializedString()))"
        case .computed(let v): "orderByComputed(\(JSON.string(v.text).serializedString()))"
        }
    }

    private func describe(_ b: Bound) -> String {
        b.value.serializedString() + (b.key.map { ", " + JSON.string($0).serializedString() } ?? "")
    }

    private func describeEqualTo(_ b: Bound) -> String { "equalTo(\(describe(b)))" }

    private func describe(_ s: Start) -> String {
        switch s {
        case .at(let b): "startAt(\(describe(b)))"
        case .after(let b): "startAfter(\(describe(b)))"
        }
    }

    private func describe(_ e: End) -> String {
        switch e {
        case .at(let b): "endAt(\(describe(b)))"
        case .before(let b): "endBefore(\(describe(b)))"
        }
    }

    private func describe(_ l: Limit) -> String {
        switch l {
        case .first(let n): "limitToFirst(\(n))"
        case .last(let n): "limitToLast(\(n))"
        }
    }
}

/// An invalid query; the message names the method and the rule it breaks.
public struct QueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The builder method that found the problem (`limitToLast`).
    public let method: String
    /// The rule it breaks, in words.
    public let rule: String

    public init(_ method: String, _ rule: String) {
        self.method = method
        self.rule = rule
    }

    /// An error from a whole message, `method: rule` (the method is the text before ": ").
    public init(_ message: String) {
        let scalars = Array(message.unicodeScalars)
        if let i = scalars.indices.first(where: { $0 + 1 < scalars.count && scalars[$0] == ":" && scalars[$0 + 1] == " " }) {
            method = String(String.UnicodeScalarView(scalars[..<i]))
            rule = String(String.UnicodeScalarView(scalars[(i + 2)...]))
        } else {
            method = ""
            rule = message
        }
    }

    /// `method: rule`.
    public var message: String { method.isEmpty ? rule : "\(method): \(rule)" }
    public var description: String { message }
}
