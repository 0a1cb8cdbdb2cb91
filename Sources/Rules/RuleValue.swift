// The values a rule expression computes with.
import JSONTree
import LinearRegex

/// A value in a rule: JSON's scalars (numbers as doubles, as in JavaScript), objects (`auth`,
/// `query`, a container's `val()`), arrays (the argument of `hasChildren`), snapshots and
/// regular expressions.
enum RuleValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case object(JSONObject)
    case array([RuleValue])
    case snapshot(RuleSnapshot)
    case regex(LinearRegex)

    init(_ json: JSON) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n.double)
        case .string(let s): self = .string(s)
        case .object(let o): self = .object(o)
        case .array(let a): self = .object(JSONObject(a.enumerated().map { (String($0.offset), $0.element) }))
        }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .object: "object"
        case .array: "array"
        case .snapshot: "snapshot"
        case .regex: "regular expression"
        }
    }
}

/// The compiled `/pattern/flags` literals of one rules file, by their text: a pattern written
/// in many rules is compiled once.
///
/// Patterns run on RE2, in time linear in the string, as the database evaluates them: a rule
/// like `matches(/^(a+)+$/)` cannot hold up the writes of every client (a backtracking engine
/// takes seconds for 20 characters). RE2 has the syntax the rules reference lists (Perl's
/// classes, groups, repetition, anchors) and refuses lookaround and backreferences.
final class RuleRegexes {
    private var compiled = [String: LinearRegex]()

    /// `/pattern/flags` compiled, matching anywhere in a string unless anchored with `^`/`$`
    /// (JavaScript's `test`); `i` is the one flag.
    func regex(pattern: String, flags: String) throws -> LinearRegex {
        let text = "/" + pattern + "/" + flags
        if let regex = compiled[text] { return regex }
        var options = LinearRegex.Options()
        for flag in flags {
            guard flag == "i" else { throw RuleRegexFlagError(flag: flag) }
            options.insert(.caseInsensitive)
        }
        let regex = try LinearRegex(pattern, options: options)
        compiled[text] = regex
        return regex
    }
}

struct RuleRegexFlagError: Error, CustomStringConvertible {
    let flag: Character
    var description: String { "unknown flag '\(flag)' (only i is allowed)" }
}
