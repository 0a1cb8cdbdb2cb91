// The values a rule expression computes with.
import JSONTree

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
    case regex(RuleRegex)

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

/// A compiled `/pattern/flags` of `matches()`. Swift's regular expressions, matched on Unicode
/// scalars, anywhere in the string unless anchored with `^`/`$` (as JavaScript's `test`).
final class RuleRegex: @unchecked Sendable {
    // A `Regex` is immutable once made; matching it from several threads is safe.
    private let regex: Regex<AnyRegexOutput>

    init(pattern: String, flags: String) throws {
        var regex = try Regex(pattern).matchingSemantics(.unicodeScalar)
        for flag in flags {
            guard flag == "i" else { throw RuleRegexFlagError(flag: flag) }
            regex = regex.ignoresCase()
        }
        self.regex = regex
    }

    func matches(_ string: String) -> Bool { string.firstMatch(of: regex) != nil }
}

struct RuleRegexFlagError: Error, CustomStringConvertible {
    let flag: Character
    var description: String { "unknown flag '\(flag)' (only i is allowed)" }
}
