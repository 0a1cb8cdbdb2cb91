// The query flags shared by the viewer and the headless subcommands (names as in the
// Firebase CLI's `database:get`).
//
// INTERIM (branch `viewer`): written so the viewer builds before the shared QueryOptions
// lands; when it does, that file replaces this one (same path, same `makeQuery()`).
import ArgumentParser
import JSONTree
import LiveQuery

/// `--order-by-child P`, `--order-by-key`, `--order-by-value`, bounds and limits.
struct QueryOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Order by the value at PATH inside each child (a nested path such as metrics/views).",
                               valueName: "PATH"))
    var orderByChild: String?
    @Flag(help: "Order by key.") var orderByKey = false
    @Flag(help: "Order by the child's own value.") var orderByValue = false
    @Flag(help: "Order by priority (the default order).") var orderByPriority = false

    @Option(help: ArgumentHelp("Keep the first N children in range.", valueName: "N")) var limitToFirst: Int?
    @Option(help: ArgumentHelp("Keep the last N children in range.", valueName: "N")) var limitToLast: Int?

    @Option(help: ArgumentHelp("Start at VALUE (JSON, or a string when it is not JSON).", valueName: "VALUE"))
    var startAt: String?
    @Option(help: ArgumentHelp("Start after VALUE.", valueName: "VALUE")) var startAfter: String?
    @Option(help: ArgumentHelp("End at VALUE.", valueName: "VALUE")) var endAt: String?
    @Option(help: ArgumentHelp("End before VALUE.", valueName: "VALUE")) var endBefore: String?
    @Option(help: ArgumentHelp("Only children whose value equals VALUE.", valueName: "VALUE")) var equalTo: String?

    init() {}

    /// The query the flags describe.
    /// - Throws: `QueryError` naming the rule a combination breaks; `PathError` for a bad path.
    func makeQuery() throws -> Query {
        var q = Query()
        if let orderByChild { q = try q.orderByChild(Path(orderByChild)) }
        if orderByKey { q = try q.orderByKey() }
        if orderByValue { q = try q.orderByValue() }
        if orderByPriority { q = try q.orderByPriority() }
        if let startAt { q = try q.startAt(flagValue(startAt)) }
        if let startAfter { q = try q.startAfter(flagValue(startAfter)) }
        if let endAt { q = try q.endAt(flagValue(endAt)) }
        if let endBefore { q = try q.endBefore(flagValue(endBefore)) }
        if let equalTo { q = try q.equalTo(flagValue(equalTo)) }
        if let limitToFirst { q = try q.limitToFirst(limitToFirst) }
        if let limitToLast { q = try q.limitToLast(limitToLast) }
        return q
    }
}

/// A flag's value: JSON when it parses as JSON, else the text as a string.
private func flagValue(_ text: String) -> JSON {
    (try? JSONDocument(parsing: Array(text.utf8)))?.root.json ?? .string(text)
}
