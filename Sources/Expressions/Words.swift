// An expression said for a person, as the viewer's status bar shows a filter.
import JSONTree

enum Words {
    /// `.score > 100 and .team == "a"` → `score > 100 and team = "a"`;
    /// `.name | test("^a"; "i")` → `name matches /^a/i`.
    static func render(_ e: Syntax) -> String {
        switch e {
        case .identity: return "the value"
        case .literal(let v): return literal(v)
        case .field, .index: return path(e) ?? "the value"
        case .optional(let body): return render(body)
        case .pipe(let a, .call(let f, let arguments)): return render(a) + " " + call(f, arguments)
        case .pipe(let a, .test(let p)): return render(a) + " " + test(p)
        case .pipe(let a, let b): return render(a) + " | " + render(b)
        case .binary(let op, let a, let b):
            let shown = switch op {
            case .equal: "="
            case .notEqual: "≠"
            case .lessOrEqual: "≤"
            case .greaterOrEqual: "≥"
            default: op.rawValue
            }
            return "\(operand(a)) \(shown) \(operand(b))"
        case .and(let a, let b): return "\(operand(a)) and \(operand(b))"
        case .or(let a, let b): return "\(operand(a)) or \(operand(b))"
        case .alternative(let a, let b): return "\(operand(a)), else \(operand(b))"
        case .negate(let a): return "-" + operand(a)
        case .array(let elements): return "[" + elements.map(render).joined(separator: ", ") + "]"
        case .call(let f, let arguments): return "the value " + call(f, arguments)
        case .test(let p): return "the value " + test(p)
        }
    }

    /// `metrics/views` for `.metrics.views`, as the viewer names nested columns.
    private static func path(_ e: Syntax) -> String? {
        switch e {
        case .identity: return ""
        case .field(let base, let name, _):
            guard let p = path(base) else { return nil }
            let n = String(decoding: name, as: UTF8.self)
            return p.isEmpty ? n : p + "/" + n
        case .index(let base, .literal(.number(let d)), _):
            guard let p = path(base) else { return nil }
            return p + "[\(Int(d))]"
        default: return nil
        }
    }

    private static func operand(_ e: Syntax) -> String {
        switch e {
        case .pipe(_, .call), .pipe(_, .test): render(e)
        case .and, .or, .alternative, .pipe: "(" + render(e) + ")"
        default: render(e)
        }
    }

    private static func literal(_ v: Value) -> String {
        switch v {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let d): JSON.number(JSONNumber(d.isFinite ? d : 0)).serializedString()
        case .string(let s): JSON.string(String(decoding: s, as: UTF8.self)).serializedString()
        default: "…"
        }
    }

    private static func call(_ f: Builtin, _ arguments: [Syntax]) -> String {
        let argument = arguments.first.map(render) ?? ""
        switch f {
        case .length: return "length"
        case .type: return "type"
        case .not: return "is false"
        case .ascii_downcase: return "in lower case"
        case .ascii_upcase: return "in upper case"
        case .has: return "has \(argument)"
        case .startswith: return "starts with \(argument)"
        case .endswith: return "ends with \(argument)"
        case .contains: return "contains \(argument)"
        case .select: return "where \(argument)"
        }
    }

    private static func test(_ p: Pattern) -> String { "matches /\(p.source)/\(p.flags)" }
}
