// The query the viewer runs: the flags' query, changed by the keys (sort, reverse, filter,
// the next page), and said in words for the status bar.
import Expressions
import JSONTree
import LiveQuery
import SyncedArray

/// The viewer's query as the user shaped it.
///
/// The limit always takes the rows at the top of the screen: ascending order with
/// limit-to-first, or — `fromEnd` — limit-to-last with the rows shown in reverse, so the end of
/// the order (the highest scores, the newest push ids) is at the top and further pages grow
/// downwards. `r` flips between the two.
public struct ViewQuery: Equatable {
    /// A filter typed after `/`: on the sort column's value.
    public enum Filter: Equatable {
        /// `equalTo(value)`; `text` is what was typed (the bound with key order).
        case equal(JSON, text: String)
        /// Values starting with the text: `startAt(text).endAt(text + "\u{FFFF}")`.
        case prefix(String)
        /// `>= 10`, `> 10`, `<= 5`, `< 5` or `10..20`: startAt/startAfter and endAt/endBefore.
        case range(start: Query.Start?, end: Query.End?)

        /// What `f` typed means: `42`, `text*`, `>= 10`, `< 5`, `10..20` (both ends included);
        /// nil for an empty text. A value is JSON when it parses, else text.
        public init?(typed text: String) {
            let t = text.trimmingSpaces
            guard !t.isEmpty else { return nil }
            for (op, make) in Filter.comparisons where t.hasPrefix(op) && t.count > op.count {
                self = make(typedValue(String(t.dropFirst(op.count)).trimmingSpaces))
                return
            }
            if let dots = t.firstRange(of: ".."), dots.lowerBound != t.startIndex, dots.upperBound != t.endIndex {
                let low = typedValue(String(t[..<dots.lowerBound]).trimmingSpaces)
                let high = typedValue(String(t[dots.upperBound...]).trimmingSpaces)
                self = .range(start: .at(Query.Bound(low)), end: .at(Query.Bound(high)))
                return
            }
            if t.count > 1, t.hasSuffix("*") {
                self = .prefix(String(t.dropLast()))
                return
            }
            self = .equal(typedValue(text), text: text)
        }

        /// Longest operators first, so `>=` is not read as `>` and `=10`.
        private static let comparisons: [(String, @Sendable (JSON) -> Filter)] = [
            (">=", { .range(start: .at(Query.Bound($0)), end: nil) }),
            ("<=", { .range(start: nil, end: .at(Query.Bound($0))) }),
            (">", { .range(start: .after(Query.Bound($0)), end: nil) }),
            ("<", { .range(start: nil, end: .before(Query.Bound($0))) }),
        ]

        /// The filter in words, for the prompt and the status bar: `score = 42`,
        /// `name starts with "Orch"`, `score >= 10, < 20`.
        func words(column: String) -> String {
            switch self {
            case .equal(_, let text): return "\(column) = \(text)"
            case .prefix(let text): return "\(column) starts with \(JSON.string(text).serializedString())"
            case .range(let start, let end):
                var parts: [String] = []
                switch start {
                case .at(let b)?: parts.append(">= \(b.value.serializedString())")
                case .after(let b)?: parts.append("> \(b.value.serializedString())")
                case nil: break
                }
                switch end {
                case .at(let b)?: parts.append("<= \(b.value.serializedString())")
                case .before(let b)?: parts.append("< \(b.value.serializedString())")
                case nil: break
                }
                return "\(column) " + parts.joined(separator: ", ")
            }
        }
    }

    /// How many rows the window keeps.
    public enum Limit: Equatable {
        /// Every child in range.
        case none
        /// A limit given by a flag.
        case fixed(Int)
        /// Pages of `size`; `pages` grows as the user reaches the end.
        case paged(size: Int, pages: Int)
    }

    /// nil: the default (priority) order.
    public var ordering: Query.Ordering?
    /// Bounds given by flags (dropped when the user sorts or filters).
    public var start: Query.Start?
    public var end: Query.End?
    public var isEqualTo = false
    public var filter: Filter?
    /// Limit-to-last, shown highest first.
    public var fromEnd = false
    /// With `fromEnd`: shown in ascending order instead, the end of the order at the bottom,
    /// as `tail -f` shows a log (JSON Lines; see `Viewer+Follow`). Pages grow upwards.
    public var tail = false
    /// Sorted by a column with `s`: the rows without a value for it (missing, null, an
    /// expression's error) after the others, whichever way the order is shown.
    public var valuesFirst = false
    public var limit: Limit
    /// Expression filters (`--where`, or typed at the `w` prompt), each narrowing the ones before;
    /// kept when the order changes.
    public var conditions: [Expression] = []

    /// The query of the flags, with paging when it has no limit (`pageSize` 0: no paging).
    public init(flags query: Query, pageSize: Int) {
        ordering = query.explicitOrdering
        start = query.start
        end = query.end
        isEqualTo = query.isEqualTo
        switch query.limit {
        case .first(let n)?: limit = .fixed(n)
        case .last(let n)?:
            limit = .fixed(n)
            fromEnd = true
        case nil: limit = pageSize > 0 ? .paged(size: pageSize, pages: 1) : .none
        }
    }

    /// The rows the window keeps; nil when unlimited.
    var limitCount: Int? {
        switch limit {
        case .none: nil
        case .fixed(let n): n
        case .paged(let size, let pages): size * pages
        }
    }

    var isPaged: Bool {
        if case .paged = limit { return true }
        return false
    }

    /// Whether the rows are shown last first.
    public var displayReversed: Bool { fromEnd && !tail }

    /// Shows the end of the order at the bottom, as `tail -f` does: limit-to-last (the flags'
    /// limit, or pages from the end) in ascending order. Not when the flags ask for the first rows.
    public mutating func showTail() {
        if case .fixed = limit, !fromEnd { return }
        fromEnd = true
        tail = true
    }

    /// The column the order is by, as the table names it (nil for the default order).
    var sortSpec: ColumnSpec? {
        switch ordering {
        case .key?: .key
        case .value?: .value
        case .child(let path)?: .member(path)
        case .computed(let value)?: ComputedColumn(value).map(ColumnSpec.computed)
        case .priority?, nil: nil
        }
    }

    // MARK: Changes made by keys

    /// Sorts by `ordering`, dropping bounds and the filter (they were values of the old order),
    /// back to the first page.
    mutating func sort(by ordering: Query.Ordering) {
        self.ordering = ordering
        valuesFirst = true
        dropRange()
        firstPage()
    }

    /// Flips limit-to-first ↔ limit-to-last (and the order the rows are shown in).
    mutating func reverse() {
        fromEnd.toggle()
        tail = false
        firstPage()
    }

    /// Filters the sort column by `filter`, ordering by `ordering` first.
    mutating func setFilter(_ filter: Filter, ordering: Query.Ordering) {
        self.ordering = ordering
        dropRange()
        self.filter = filter
        firstPage()
    }

    mutating func clearFilter() {
        filter = nil
        firstPage()
    }

    /// One more page (no-op unless paged).
    mutating func loadMore() {
        if case .paged(let size, let pages) = limit { limit = .paged(size: size, pages: pages + 1) }
    }

    /// Enough pages for `rows` rows (no-op unless paged); returns the pages.
    mutating func showRows(_ rows: Int) -> Int? {
        guard case .paged(let size, _) = limit else { return nil }
        let pages = max(1, (rows + size - 1) / size)
        limit = .paged(size: size, pages: pages)
        return pages
    }

    private mutating func dropRange() {
        start = nil
        end = nil
        isEqualTo = false
        filter = nil
    }

    private mutating func firstPage() {
        if case .paged(let size, _) = limit { limit = .paged(size: size, pages: 1) }
    }

    // MARK: The query

    /// The synced array's paging: pages from the start, or from the end with `fromEnd`.
    var paging: Paging? {
        guard case .paged(let size, _) = limit else { return nil }
        return Paging(pageSize: size, from: fromEnd ? .end : .start)
    }

    /// The query to run; without a limit when paged (the synced array's paging sets it).
    /// - Throws: `QueryError` (a filter value the order cannot take, such as `true` by priority).
    public func makeQuery() throws(QueryError) -> Query {
        var q = Query()
        switch ordering {
        case nil: break
        case .priority?: q = try q.orderByPriority()
        case .key?: q = try q.orderByKey()
        case .value?: q = try q.orderByValue()
        case .child(let path)?: q = try q.orderByChild(path)
        case .computed(let value)?: q = try q.orderByComputed(value)
        }
        switch filter {
        case .equal(let value, let text)?:
            q = try q.equalTo(ordering == .key ? .string(text) : value)
        case .prefix(let text)?:
            q = try q.startAt(.string(text)).endAt(.string(text + "\u{FFFF}"))
        case .range(let start, let end)?:
            // With orderByKey a bound is a key: the text typed, as a string.
            func bound(_ b: Query.Bound) -> (JSON, String?) {
                guard ordering == .key else { return (b.value, nil) }
                if case .string = b.value { return (b.value, nil) }
                return (.string(b.value.serializedString()), nil)
            }
            switch start {
            case .at(let b)?: q = try q.startAt(bound(b).0)
            case .after(let b)?: q = try q.startAfter(bound(b).0)
            case nil: break
            }
            switch end {
            case .at(let b)?: q = try q.endAt(bound(b).0)
            case .before(let b)?: q = try q.endBefore(bound(b).0)
            case nil: break
            }
        case nil:
            if isEqualTo, let start {
                q = try q.equalTo(start.bound.value, key: start.bound.key)
            } else {
                switch start {
                case .at(let b)?: q = try q.startAt(b.value, key: b.key)
                case .after(let b)?: q = try q.startAfter(b.value, key: b.key)
                case nil: break
                }
                switch end {
                case .at(let b)?: q = try q.endAt(b.value, key: b.key)
                case .before(let b)?: q = try q.endBefore(b.value, key: b.key)
                case nil: break
                }
            }
        }
        if case .fixed(let n) = limit { q = fromEnd ? try q.limitToLast(n) : try q.limitToFirst(n) }
        // From the end, the order's start is shown last: the database's order (null first) puts
        // the rows without a value there already.
        if valuesFirst && !fromEnd { q = q.valuesFirst() }
        for condition in conditions { q = q.filtered(by: condition.childFilter) }
        return q
    }

    // MARK: Words

    /// The query for a person: `by score descending, last 20`, `by name starting with "Ad", first 100`.
    var words: String { wordParts.joined(separator: ", ") }

    /// The query in fewer words, for a narrow status bar: the filter and the limit without the
    /// order they imply (`name starts with "Ad"`), or the order alone.
    var shortWords: String { (wordParts.count > 1 ? Array(wordParts.dropFirst()) : wordParts).joined(separator: ", ") }

    /// The order, then the filter or bounds, then a flag's limit.
    private var wordParts: [String] {
        var parts: [String] = []
        let column = sortSpec?.title ?? "priority"
        var order: String
        switch ordering {
        case nil: order = "default order"
        case .priority?: order = "by priority"
        case .key?: order = "by key"
        case .value?: order = "by value"
        case .child?, .computed?: order = "by \(column)"
        }
        if displayReversed { order += " descending" }
        parts.append(order)
        switch filter {
        case let filter?: parts.append(filter.words(column: column))
        case nil:
            if isEqualTo, let start {
                parts.append("\(column) = \(describe(start.bound))")
            } else {
                switch start {
                case .at(let b)?: parts.append("\(column) >= \(describe(b))")
                case .after(let b)?: parts.append("\(column) > \(describe(b))")
                case nil: break
                }
                switch end {
                case .at(let b)?: parts.append("\(column) <= \(describe(b))")
                case .before(let b)?: parts.append("\(column) < \(describe(b))")
                case nil: break
                }
            }
        }
        // Which evaluator runs each: libjq costs more per row than the native subset.
        for condition in conditions { parts.append("where \(condition.wordsAndEvaluator)") }
        // Pages are how many rows were loaded, which the row count says: only a flag's limit is a word.
        if case .fixed(let n) = limit { parts.append("\(fromEnd ? "last" : "first") \(n)") }
        return parts
    }

    private func describe(_ bound: Query.Bound) -> String {
        bound.value.serializedString() + (bound.key.map { " (key \(JSON.string($0).serializedString()))" } ?? "")
    }
}

extension String {
    /// Without leading and trailing spaces.
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
