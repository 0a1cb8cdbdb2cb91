// The query flags every command shares: a location and a Realtime Database query.
import ArgumentParser
import Expressions
import Headless
import JSONTree
import LiveQuery
import ViewerCore

/// `--path` and the query flags of `list`, `events`, the viewer and the write commands, named
/// after the Firebase CLI's `database:get`.
///
/// A bound (`--start-at V` …) is a JSON scalar when it parses as one (`5`, `true`, `null`,
/// `"5"`), else a string (`abc`). With `--order-by-key` a bound is a key, a string: `--start-at 5`
/// is an error (as the database's orderByKey().startAt(5) is), `--start-at '"5"'` the key "5".
/// Values starting with `-` go in the `--flag=-5` form. Invalid flags print
/// `Error: --flag: problem` and exit with status 2.
///
/// ```swift
/// struct Events: ParsableCommand {
///     @OptionGroup var query: QueryOptions
///     func run() throws {
///         let (path, query) = try self.query.resolved()   // already checked by validate()
///         …
///     }
/// }
/// ```
struct QueryOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The location whose children are queried, e.g. /users.", valueName: "path"))
    var path: String = "/"

    @Flag(help: "Order children by key.")
    var orderByKey = false

    @Flag(help: "Order children by value.")
    var orderByValue = false

    @Flag(help: "Order children by priority (.priority), the default order.")
    var orderByPriority = false

    @Option(help: ArgumentHelp("Order children by the value at a path inside each, e.g. metrics/views.", valueName: "path"))
    var orderByChild: String?

    @Option(help: ArgumentHelp(
        "Order children by a jq expression of each, e.g. '.score / .level' (the viewer shows it as a column; "
            + "'ratio = .score / .level' names it, and a --computed column's name orders by that column).",
        valueName: "expr"))
    var orderByComputed: String?

    @Option(help: ArgumentHelp("Start at this value (inclusive).", valueName: "value"))
    var startAt: String?
    @Option(help: ArgumentHelp("With --start-at: start at this key among children equal to the value.", valueName: "key"))
    var startAtKey: String?

    @Option(help: ArgumentHelp("Start after this value (exclusive; without a key, after every child equal to it).", valueName: "value"))
    var startAfter: String?
    @Option(help: ArgumentHelp("With --start-after: start after this key among children equal to the value.", valueName: "key"))
    var startAfterKey: String?

    @Option(help: ArgumentHelp("End at this value (inclusive).", valueName: "value"))
    var endAt: String?
    @Option(help: ArgumentHelp("With --end-at: end at this key among children equal to the value.", valueName: "key"))
    var endAtKey: String?

    @Option(help: ArgumentHelp("End before this value (exclusive; without a key, before every child equal to it).", valueName: "value"))
    var endBefore: String?
    @Option(help: ArgumentHelp("With --end-before: end before this key among children equal to the value.", valueName: "key"))
    var endBeforeKey: String?

    @Option(help: ArgumentHelp("Only children equal to this value.", valueName: "value"))
    var equalTo: String?
    @Option(help: ArgumentHelp("With --equal-to: only the child with this key.", valueName: "key"))
    var equalToKey: String?

    @Option(help: ArgumentHelp("Keep the first n children in range.", valueName: "n"))
    var limitToFirst: String?

    @Option(help: ArgumentHelp("Keep the last n children in range (listed in ascending order).", valueName: "n"))
    var limitToLast: String?

    @Option(name: .customLong("where"), help: ArgumentHelp(
        "Only children for which this jq expression is true, e.g. '.score > 100 and .team == \"a\"': any of jq 1.6's "
            + "language (paths, comparisons, and/or/not, arithmetic, //, length, has, test … run natively; the rest by "
            + "libjq, on each child; list --explain says which). A child is kept when any value is true. The query "
            + "orders and ranges the children, the expression keeps some of them, a limit counts those kept.",
        valueName: "expr"))
    var whereText: String?

    func validate() throws {
        do {
            // The computed columns a name may refer to are the command's: checked when it resolves.
            _ = try resolved(computed: nil)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The location and the query the flags describe.
    /// - Throws: `QueryOptionError` naming the flag at fault.
    /// - Parameter computed: the columns `--order-by-computed` may name (nil: not known yet).
    func resolved(computed: [ComputedColumn]? = []) throws -> (path: Path, query: Query) {
        let location: Path
        do {
            location = try Path(path)
        } catch {
            throw QueryOptionError("--path", error.description)
        }
        return (location, try query(computed: computed))
    }

    /// The column `--order-by-computed` orders by: one of `computed` by its name, or its own
    /// definition (nil without the flag).
    /// - Parameter computed: the columns it may name; nil when they are not known yet (a name
    ///   then stands for a column to be found later).
    /// - Throws: `QueryOptionError` with the expression's error and where it is.
    func computedOrder(among computed: [ComputedColumn]?) throws -> ComputedColumn? {
        guard let orderByComputed else { return nil }
        let name = Substring(orderByComputed).trimmedSpaces
        if let named = computed?.first(where: { $0.name == name }) { return named }
        do { return try ComputedColumn(definition: orderByComputed) } catch {
            let isName = name.first.map { !$0.isNumber } == true && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            guard isName else { throw QueryOptionError("--order-by-computed", "\(error)") }
            if computed == nil { return try? ComputedColumn(definition: ".") }
            throw QueryOptionError("--order-by-computed", "no computed column is named \(name): give the expression itself "
                + "(or define it with --computed '\(name) = expression')")
        }
    }

    /// The query the flags describe (the name the first users of this option group called).
    func makeQuery() throws -> Query { try query() }

    /// The location and the query, for a command that follows them: a bad path or query is a
    /// `CommandError` naming it (exit 2, as `synctable list`).
    func locationAndQuery() throws(CommandError) -> (location: Path, query: Query) {
        let location: Path, filter: Query
        do { location = try Path(path) } catch {
            throw CommandError("--path: \(error)")
        }
        do { filter = try makeQuery() } catch {
            throw CommandError("\(error)")
        }
        return (location, filter)
    }

    /// The query the flags describe.
    /// - Parameter computed: the columns `--order-by-computed` may name (nil: not known yet).
    /// - Throws: `QueryOptionError` naming the flag at fault.
    func query(computed: [ComputedColumn]? = []) throws -> Query {
        var q = Query()
        func apply(_ flag: String, _ step: (Query) throws -> Query) throws { q = try QueryOptions.step(q, flag, step) }

        let orderings = [
            orderByKey ? "--order-by-key" : nil, orderByValue ? "--order-by-value" : nil,
            orderByPriority ? "--order-by-priority" : nil, orderByChild != nil ? "--order-by-child" : nil,
            orderByComputed != nil ? "--order-by-computed" : nil,
        ].compactMap { $0 }
        if orderings.count > 1 {
            throw QueryOptionError(orderings[1], "a query has one ordering, and \(orderings[0]) is given too")
        }
        if orderByKey { try apply("--order-by-key") { try $0.orderByKey() } }
        if orderByValue { try apply("--order-by-value") { try $0.orderByValue() } }
        if orderByPriority { try apply("--order-by-priority") { try $0.orderByPriority() } }
        if let orderByChild {
            let child: Path
            do {
                child = try Path(orderByChild)
            } catch {
                throw QueryOptionError("--order-by-child", error.description)
            }
            try apply("--order-by-child") { try $0.orderByChild(child) }
        }
        if let column = try computedOrder(among: computed) {
            try apply("--order-by-computed") { try $0.orderByComputed(column.childValue) }
        }

        let byKey = orderByKey
        typealias Bound = (flag: String, value: String?, keyFlag: String, key: String?, set: (Query, JSON, String?) throws -> Query)
        let bounds: [Bound] = [
            ("--equal-to", equalTo, "--equal-to-key", equalToKey, { try $0.equalTo($1, key: $2) }),
            ("--start-at", startAt, "--start-at-key", startAtKey, { try $0.startAt($1, key: $2) }),
            ("--start-after", startAfter, "--start-after-key", startAfterKey, { try $0.startAfter($1, key: $2) }),
            ("--end-at", endAt, "--end-at-key", endAtKey, { try $0.endAt($1, key: $2) }),
            ("--end-before", endBefore, "--end-before-key", endBeforeKey, { try $0.endBefore($1, key: $2) }),
        ]
        for b in bounds {
            guard let text = b.value else {
                if b.key != nil { throw QueryOptionError(b.keyFlag, "needs \(b.flag)") }
                continue
            }
            let value = try boundValue(text, flag: b.flag)
            if byKey && b.key != nil {
                throw QueryOptionError(b.keyFlag, "with --order-by-key a bound is a key and takes no key argument")
            }
            try apply(b.flag) { try b.set($0, value, b.key) }
        }

        for (flag, text, set) in [
            ("--limit-to-first", limitToFirst, { (q: Query, n: Int) in try q.limitToFirst(n) }),
            ("--limit-to-last", limitToLast, { (q: Query, n: Int) in try q.limitToLast(n) }),
        ] as [(String, String?, (Query, Int) throws -> Query)] {
            guard let text else { continue }
            guard let n = Int(text), n > 0 else {
                throw QueryOptionError(flag, "must be a positive integer, not '\(text)'")
            }
            try apply(flag) { try set($0, n) }
        }
        if let condition = try condition() { q = q.filtered(by: condition.childFilter) }
        return q
    }

    /// The `--where` expression, parsed; nil without one.
    /// - Throws: `QueryOptionError` naming `--where` and the place of the problem
    ///   (`--where: 1:9: expected a value after '>'`).
    func condition() throws -> Expression? {
        guard let whereText else { return nil }
        do {
            return try Expression(whereText, context: "--where")
        } catch {
            throw QueryOptionError("--where", error.description)
        }
    }

    /// One builder call for `flag`: a rule the query breaks is reported as that flag's problem.
    private static func step(_ q: Query, _ flag: String, _ body: (Query) throws -> Query) throws -> Query {
        do {
            return try body(q)
        } catch let error as QueryError {
            throw QueryOptionError(flag, error.rule)
        }
    }

    /// A bound as typed: a JSON scalar when it parses as one, else a string.
    private func boundValue(_ text: String, flag: String) throws -> JSON {
        guard let parsed = try? JSONDocument(parsing: text).root.json else { return .string(text) }
        if !parsed.isScalar {
            throw QueryOptionError(flag, "a bound must be a string, number, boolean or null, not \(parsed.kind == .array ? "an array" : "an object")")
        }
        return parsed
    }
}

/// A query flag that cannot be used as given.
struct QueryOptionError: Error, CustomStringConvertible {
    /// The flag at fault, e.g. `--limit-to-first`.
    let flag: String
    let problem: String

    init(_ flag: String, _ problem: String) {
        self.flag = flag
        self.problem = problem
    }

    var description: String { "\(flag): \(problem)" }
}
