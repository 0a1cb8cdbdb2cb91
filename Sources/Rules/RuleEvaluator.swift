// Evaluating one rule expression at one location of one request.
import JSONTree

/// What a rule sees: the variables of the language at one location.
struct RuleContext {
    var auth: RuleValue
    var root: RuleSnapshot
    var data: RuleSnapshot
    var newData: RuleSnapshot?
    var now: Double
    var query: RuleValue
    var wildcards: [String: String]
}

/// Why an expression has no value (a type error, a method on null, …): the rule is then
/// false, as the database treats a rule that fails.
struct RuleFailure: Error {
    let message: String
}

enum RuleEvaluator {
    /// Whether `expression` is `true` in `context`; a failure or a value other than `true` is false.
    static func holds(_ expression: RuleExpression, in context: RuleContext) -> Bool {
        guard case .bool(true)? = try? evaluate(expression, context) else { return false }
        return true
    }

    static func evaluate(_ expression: RuleExpression, _ c: RuleContext) throws(RuleFailure) -> RuleValue {
        switch expression {
        case .literal(let value):
            return value
        case .variable(let variable):
            switch variable {
            case .auth: return c.auth
            case .root: return .snapshot(c.root)
            case .data: return .snapshot(c.data)
            case .newData:
                guard let newData = c.newData else { throw RuleFailure(message: "newData is only known to a write") }
                return .snapshot(newData)
            case .now: return .number(c.now)
            case .query: return c.query
            }
        case .wildcard(let name):
            guard let key = c.wildcards[name] else { throw RuleFailure(message: "\(name) is not bound") }
            return .string(key)
        case .array(let elements):
            var values = [RuleValue]()
            for e in elements { values.append(try evaluate(e, c)) }
            return .array(values)
        case .not(let operand):
            guard case .bool(let b) = try evaluate(operand, c) else { throw RuleFailure(message: "! needs a boolean") }
            return .bool(!b)
        case .negate(let operand):
            guard case .number(let n) = try evaluate(operand, c) else { throw RuleFailure(message: "- needs a number") }
            return .number(-n)
        case .binary(.and, let left, let right):
            guard case .bool(let l) = try evaluate(left, c) else { throw RuleFailure(message: "&& needs booleans") }
            guard l else { return .bool(false) }
            guard case .bool(let r) = try evaluate(right, c) else { throw RuleFailure(message: "&& needs booleans") }
            return .bool(r)
        case .binary(.or, let left, let right):
            guard case .bool(let l) = try evaluate(left, c) else { throw RuleFailure(message: "|| needs booleans") }
            if l { return .bool(true) }
            guard case .bool(let r) = try evaluate(right, c) else { throw RuleFailure(message: "|| needs booleans") }
            return .bool(r)
        case .binary(let op, let left, let right):
            return try binary(op, try evaluate(left, c), try evaluate(right, c))
        case .conditional(let condition, let then, let otherwise):
            guard case .bool(let b) = try evaluate(condition, c) else { throw RuleFailure(message: "?: needs a boolean condition") }
            return try evaluate(b ? then : otherwise, c)
        case .member(let target, let name):
            return try member(try evaluate(target, c), name)
        case .index(let target, let index):
            guard case .string(let name) = try evaluate(index, c) else { throw RuleFailure(message: "[] needs a string") }
            return try member(try evaluate(target, c), name)
        case .call(let target, let name, let arguments):
            var values = [RuleValue]()
            for a in arguments { values.append(try evaluate(a, c)) }
            return try call(try evaluate(target, c), name, values)
        }
    }

    private static func binary(_ op: RuleExpression.Binary, _ l: RuleValue, _ r: RuleValue) throws(RuleFailure) -> RuleValue {
        switch op {
        case .equal: return .bool(try equal(l, r))
        case .notEqual: return .bool(!(try equal(l, r)))
        case .add:
            switch (l, r) {
            case let (.number(a), .number(b)): return .number(a + b)
            case (.string, _), (_, .string): return .string(try text(l) + text(r))
            default: throw RuleFailure(message: "+ needs numbers or strings")
            }
        case .subtract, .multiply, .divide, .remainder:
            guard case .number(let a) = l, case .number(let b) = r else { throw RuleFailure(message: "\(op.rawValue) needs numbers") }
            switch op {
            case .subtract: return .number(a - b)
            case .multiply: return .number(a * b)
            case .divide: return .number(a / b)
            default: return .number(a.truncatingRemainder(dividingBy: b))
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order: Int
            switch (l, r) {
            case let (.number(a), .number(b)): order = a < b ? -1 : a > b ? 1 : 0
            case let (.string(a), .string(b)):
                order = a.utf16.lexicographicallyPrecedes(b.utf16) ? -1 : b.utf16.lexicographicallyPrecedes(a.utf16) ? 1 : 0
            default: throw RuleFailure(message: "\(op.rawValue) compares two numbers or two strings")
            }
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .and, .or:
            throw RuleFailure(message: "unreachable")
        }
    }

    /// `==`: values of the same type and equal; values of different types are not equal.
    private static func equal(_ l: RuleValue, _ r: RuleValue) throws(RuleFailure) -> Bool {
        switch (l, r) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case (.snapshot, _), (_, .snapshot), (.regex, _), (_, .regex):
            throw RuleFailure(message: "== compares values (call val() on a snapshot)")
        case let (.object(a), .object(b)): return JSON.object(a) == JSON.object(b)
        default: return false
        }
    }

    /// A value as `+` joins it to a string (JavaScript's conversion).
    private static func text(_ value: RuleValue) throws(RuleFailure) -> String {
        switch value {
        case .string(let s): return s
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n.isFinite ? JSONNumber(n).description : (n.isNaN ? "NaN" : n < 0 ? "-Infinity" : "Infinity")
        default: throw RuleFailure(message: "+ cannot join \(value.typeName) to a string")
        }
    }

    private static func member(_ target: RuleValue, _ name: String) throws(RuleFailure) -> RuleValue {
        switch target {
        case .object(let o): return o[name].map(RuleValue.init) ?? .null
        case .string(let s) where name == "length": return .number(Double(s.utf16.count))
        default: throw RuleFailure(message: "\(target.typeName) has no property \(name)")
        }
    }

    private static func call(_ target: RuleValue, _ name: String, _ arguments: [RuleValue]) throws(RuleFailure) -> RuleValue {
        switch target {
        case .snapshot(let snapshot): return try snapshotMethod(snapshot, name, arguments)
        case .string(let s): return try stringMethod(s, name, arguments)
        default: throw RuleFailure(message: "\(target.typeName) has no method \(name)()")
        }
    }

    private static func snapshotMethod(_ s: RuleSnapshot, _ name: String, _ a: [RuleValue]) throws(RuleFailure) -> RuleValue {
        func noArguments() throws(RuleFailure) {
            guard a.isEmpty else { throw RuleFailure(message: "\(name)() takes no arguments") }
        }
        func path() throws(RuleFailure) -> String {
            guard a.count == 1, case .string(let p) = a[0] else { throw RuleFailure(message: "\(name)() takes a string path") }
            return p
        }
        switch name {
        case "val":
            try noArguments()
            return s.data?.value.map(RuleValue.init) ?? .null
        case "child":
            return .snapshot(s.child(try path()))
        case "parent":
            try noArguments()
            guard let parent = s.parent() else { throw RuleFailure(message: "the root has no parent") }
            return .snapshot(parent)
        case "hasChild":
            return .bool(s.child(try path()).data?.exists == true)
        case "hasChildren":
            if a.isEmpty { return .bool(s.data?.hasChildren == true) }
            guard a.count == 1, case .array(let names) = a[0], !names.isEmpty else {
                throw RuleFailure(message: "hasChildren() takes a non-empty array of paths")
            }
            for n in names {
                guard case .string(let p) = n else { throw RuleFailure(message: "hasChildren() takes strings") }
                if s.child(p).data?.exists != true { return .bool(false) }
            }
            return .bool(true)
        case "exists":
            try noArguments()
            return .bool(s.data?.exists == true)
        case "getPriority":
            try noArguments()
            return RuleValue(s.data?.priority ?? .null)
        case "isNumber", "isString", "isBoolean":
            try noArguments()
            switch (name, s.data?.value) {
            case ("isNumber", .number?), ("isString", .string?), ("isBoolean", .bool?): return .bool(true)
            default: return .bool(false)
            }
        default:
            throw RuleFailure(message: "a snapshot has no method \(name)()")
        }
    }

    private static func stringMethod(_ s: String, _ name: String, _ a: [RuleValue]) throws(RuleFailure) -> RuleValue {
        func argument(_ i: Int) throws(RuleFailure) -> String {
            guard i < a.count, case .string(let t) = a[i] else { throw RuleFailure(message: "\(name)() takes strings") }
            return t
        }
        switch name {
        case "contains": return .bool(contains(s, try argument(0)))
        case "beginsWith": return .bool(s.utf8.starts(with: try argument(0).utf8))
        case "endsWith": return .bool(s.utf8.reversed().starts(with: try argument(0).utf8.reversed()))
        case "replace": return .string(replacing(s, try argument(0), with: try argument(1)))
        case "toLowerCase": return .string(s.lowercased())
        case "toUpperCase": return .string(s.uppercased())
        case "matches":
            guard a.count == 1, case .regex(let regex) = a[0] else { throw RuleFailure(message: "matches() takes a /regular expression/") }
            return .bool(regex.matches(s))
        default: throw RuleFailure(message: "a string has no method \(name)()")
        }
    }

    /// Substring search on UTF-8 bytes (exact code units, as the database compares strings).
    private static func contains(_ s: String, _ t: String) -> Bool {
        let a = Array(s.utf8), b = Array(t.utf8)
        if b.isEmpty { return true }
        guard a.count >= b.count else { return false }
        for i in 0...(a.count - b.count) where a[i] == b[0] && a[i..<i + b.count].elementsEqual(b) { return true }
        return false
    }

    /// Every occurrence of `t` replaced (the rules' `replace` replaces all, unlike JavaScript's).
    private static func replacing(_ s: String, _ t: String, with u: String) -> String {
        let a = Array(s.utf8), b = Array(t.utf8), r = Array(u.utf8)
        guard !b.isEmpty else { return s }
        var out = [UInt8]()
        var i = 0
        while i < a.count {
            if i + b.count <= a.count && a[i..<i + b.count].elementsEqual(b) {
                out.append(contentsOf: r)
                i += b.count
            } else {
                out.append(a[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
