// A rule's expression (`auth != null && data.child('owner').val() === auth.uid`) as a tree.
import JSONTree
import LinearRegex

/// A parsed rule expression. Operators and methods are those of the Realtime Database's
/// rules language; evaluation is in `RuleEvaluator`.
indirect enum RuleExpression: Sendable {
    enum Variable: String, Sendable, CaseIterable {
        case auth, root, data, newData, now, query
    }

    enum Binary: String, Sendable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case and = "&&", or = "||"
    }

    case literal(RuleValue)
    case variable(Variable)
    /// A `$wildcard` of an enclosing location: the key it matched.
    case wildcard(String)
    case array([RuleExpression])
    case not(RuleExpression)
    case negate(RuleExpression)
    case binary(Binary, RuleExpression, RuleExpression)
    case conditional(RuleExpression, RuleExpression, RuleExpression)
    /// `target.name` (a property: `length`, or a member of `auth`, `query`, an object).
    case member(RuleExpression, String)
    /// `target[expression]`.
    case index(RuleExpression, RuleExpression)
    /// `target.name(arguments)`.
    case call(RuleExpression, String, [RuleExpression])
}

/// Where a rule expression comes from, for its errors: the wildcards in scope and whether
/// it is a `.read` rule (which cannot see `newData`); and its file's compiled patterns.
struct RuleScope {
    var wildcards: [String]
    var isRead: Bool
    var regexes: RuleRegexes
}

/// The methods the language has, on snapshots and on strings; any other is an error when the
/// rules are parsed.
let snapshotMethods: Set<String> = [
    "val", "child", "parent", "hasChild", "hasChildren", "exists", "getPriority", "isNumber", "isString", "isBoolean",
]
let stringMethods: Set<String> = ["contains", "beginsWith", "endsWith", "replace", "toLowerCase", "toUpperCase", "matches"]

/// A syntax error at a byte offset of the expression's text.
struct ExpressionError: Error {
    let message: String
    let offset: Int
}

/// A recursive-descent parser with JavaScript's precedence: `?:`, `||`, `&&`, equality,
/// comparison, `+ -`, `* / %`, unary `! -`, then member, index and call.
struct RuleExpressionParser {
    /// How deep an expression may nest: parentheses, brackets, arguments, operands within one
    /// another, and the operators of one chain (`a + b + …` is a tree as deep as it is long).
    /// Parsing and evaluating recurse over that depth: deeper is an error, never a stack
    /// overflow. A level costs the parser up to 12 KB of stack in a debug build (a frame per
    /// precedence level), so 256 levels take about 3 MB of a thread's 8 MiB.
    static let maximumDepth = 256

    private enum Token: Equatable {
        case identifier(String)
        case number(Double)
        case string(String)
        case regex(String, String)
        case punctuation(String)
        case end
    }

    private let text: [UInt8]
    private var position = 0
    private var token = Token.end
    private var tokenStart = 0
    private let scope: RuleScope
    /// How many nested forms the parser is inside (its recursion).
    private var nesting = 0
    /// The height of the expression the last level returned (a value alone is 0).
    private var height = 0

    /// Parses `text` as one expression.
    static func parse(_ text: String, scope: RuleScope) throws(ExpressionError) -> RuleExpression {
        var parser = RuleExpressionParser(text: Array(text.utf8), scope: scope)
        try parser.advance(operandExpected: true)
        let expression = try parser.conditional()
        guard parser.token == .end else { throw parser.error("unexpected \(parser.describe(parser.token))") }
        return expression
    }

    private init(text: [UInt8], scope: RuleScope) {
        self.text = text
        self.scope = scope
    }

    private func error(_ message: String) -> ExpressionError { ExpressionError(message: message, offset: tokenStart) }

    private static func tooDeep(at offset: Int) -> ExpressionError {
        ExpressionError(message: "the expression nests deeper than \(maximumDepth) levels", offset: offset)
    }

    /// Parses a form nested in the current one, or fails past `maximumDepth` before the
    /// recursion can exhaust the stack.
    private mutating func nested(_ parse: (inout Self) throws(ExpressionError) -> RuleExpression) throws(ExpressionError) -> RuleExpression {
        guard nesting < Self.maximumDepth else { throw Self.tooDeep(at: tokenStart) }
        nesting += 1
        defer { nesting -= 1 }
        return try parse(&self)
    }

    /// `expression`, made by the token at `offset` over operands as high as `heights`; an
    /// error when that makes it deeper than `maximumDepth`.
    private mutating func node(_ expression: RuleExpression, over heights: Int..., at offset: Int) throws(ExpressionError) -> RuleExpression {
        height = 1 + (heights.max() ?? 0)
        guard height <= Self.maximumDepth else { throw Self.tooDeep(at: offset) }
        return expression
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .identifier(let name): "'\(name)'"
        case .number(let n): "number \(n)"
        case .string: "string"
        case .regex: "regular expression"
        case .punctuation(let p): "'\(p)'"
        case .end: "end of expression"
        }
    }

    // MARK: - Grammar

    private mutating func conditional() throws(ExpressionError) -> RuleExpression {
        let condition = try logical(or: true)
        let (start, conditionHeight) = (tokenStart, height)
        guard token == .punctuation("?") else { return condition }
        try advance(operandExpected: true)
        let then = try nested { p throws(ExpressionError) in try p.conditional() }
        let thenHeight = height
        try expect(":")
        let otherwise = try nested { p throws(ExpressionError) in try p.conditional() }
        return try node(.conditional(condition, then, otherwise), over: conditionHeight, thenHeight, height, at: start)
    }

    private mutating func logical(or: Bool) throws(ExpressionError) -> RuleExpression {
        let op = or ? "||" : "&&"
        var left = or ? try logical(or: false) : try equality()
        while token == .punctuation(op) {
            try binary(or ? .or : .and, &left) { p throws(ExpressionError) in or ? try p.logical(or: false) : try p.equality() }
        }
        return left
    }

    /// `left op right`, the operator being the current token.
    private mutating func binary(
        _ op: RuleExpression.Binary, _ left: inout RuleExpression, _ right: (inout Self) throws(ExpressionError) -> RuleExpression
    ) throws(ExpressionError) {
        let (start, leftHeight) = (tokenStart, height)
        try advance(operandExpected: true)
        let operand = try nested(right)
        left = try node(.binary(op, left, operand), over: leftHeight, height, at: start)
    }

    private mutating func equality() throws(ExpressionError) -> RuleExpression {
        var left = try comparison()
        while case .punctuation(let p) = token, ["==", "===", "!=", "!=="].contains(p) {
            try binary(p.hasPrefix("=") ? .equal : .notEqual, &left) { p throws(ExpressionError) in try p.comparison() }
        }
        return left
    }

    private mutating func comparison() throws(ExpressionError) -> RuleExpression {
        var left = try additive()
        while case .punctuation(let p) = token, let op = RuleExpression.Binary(rawValue: p), ["<", "<=", ">", ">="].contains(p) {
            try binary(op, &left) { p throws(ExpressionError) in try p.additive() }
        }
        return left
    }

    private mutating func additive() throws(ExpressionError) -> RuleExpression {
        var left = try multiplicative()
        while case .punctuation(let p) = token, p == "+" || p == "-" {
            try binary(p == "+" ? .add : .subtract, &left) { p throws(ExpressionError) in try p.multiplicative() }
        }
        return left
    }

    private mutating func multiplicative() throws(ExpressionError) -> RuleExpression {
        var left = try unary()
        while case .punctuation(let p) = token, p == "*" || p == "/" || p == "%" {
            try binary(RuleExpression.Binary(rawValue: p)!, &left) { p throws(ExpressionError) in try p.unary() }
        }
        return left
    }

    private mutating func unary() throws(ExpressionError) -> RuleExpression {
        let start = tokenStart
        if token == .punctuation("!") {
            try advance(operandExpected: true)
            let operand = try nested { p throws(ExpressionError) in try p.unary() }
            return try node(.not(operand), over: height, at: start)
        }
        if token == .punctuation("-") {
            try advance(operandExpected: true)
            let operand = try nested { p throws(ExpressionError) in try p.unary() }
            return try node(.negate(operand), over: height, at: start)
        }
        return try postfix()
    }

    private mutating func postfix() throws(ExpressionError) -> RuleExpression {
        var target = try primary()
        while true {
            let (start, targetHeight) = (tokenStart, height)
            if token == .punctuation(".") {
                try advance(operandExpected: false)
                guard case .identifier(let name) = token else { throw error("expected a name after '.'") }
                let nameStart = tokenStart
                try advance(operandExpected: false)
                if token == .punctuation("(") {
                    guard snapshotMethods.contains(name) || stringMethods.contains(name) else {
                        throw ExpressionError(message: "no such method: \(name)()", offset: nameStart)
                    }
                    try advance(operandExpected: true)
                    let (arguments, highest) = try list(closedBy: ")")
                    target = try node(.call(target, name, arguments), over: targetHeight, highest, at: start)
                } else {
                    target = try node(.member(target, name), over: targetHeight, at: start)
                }
            } else if token == .punctuation("[") {
                try advance(operandExpected: true)
                let index = try nested { p throws(ExpressionError) in try p.conditional() }
                try expect("]", operandNext: false)
                target = try node(.index(target, index), over: targetHeight, height, at: start)
            } else {
                return target
            }
        }
    }

    /// Expressions separated by `,` up to `close` (the opening token read), and the highest.
    private mutating func list(closedBy close: String) throws(ExpressionError) -> ([RuleExpression], Int) {
        var elements = [RuleExpression]()
        var highest = 0
        if token != .punctuation(close) {
            repeat {
                if !elements.isEmpty { try advance(operandExpected: true) }
                elements.append(try nested { p throws(ExpressionError) in try p.conditional() })
                highest = max(highest, height)
            } while token == .punctuation(",")
        }
        try expect(close, operandNext: false)
        return (elements, highest)
    }

    private mutating func primary() throws(ExpressionError) -> RuleExpression {
        let start = tokenStart
        height = 0
        switch token {
        case .number(let n):
            try advance(operandExpected: false)
            return .literal(.number(n))
        case .string(let s):
            try advance(operandExpected: false)
            return .literal(.string(s))
        case .regex(let pattern, let flags):
            let regex: LinearRegex
            do { regex = try scope.regexes.regex(pattern: pattern, flags: flags) } catch {
                throw ExpressionError(message: "invalid regular expression /\(pattern)/\(flags): \(error)", offset: start)
            }
            try advance(operandExpected: false)
            return .literal(.regex(regex))
        case .identifier(let name):
            try advance(operandExpected: false)
            switch name {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            default: break
            }
            if name.hasPrefix("$") {
                guard scope.wildcards.contains(name) else {
                    throw ExpressionError(message: "unknown variable \(name): no enclosing location is named \(name)", offset: start)
                }
                return .wildcard(name)
            }
            guard let variable = RuleExpression.Variable(rawValue: name) else {
                throw ExpressionError(message: "unknown variable '\(name)'", offset: start)
            }
            if variable == .newData && scope.isRead {
                throw ExpressionError(message: "newData is not available in a .read rule", offset: start)
            }
            if variable == .query && !scope.isRead {
                throw ExpressionError(message: "query is only available in a .read rule", offset: start)
            }
            return .variable(variable)
        case .punctuation("("):
            try advance(operandExpected: true)
            let inner = try nested { p throws(ExpressionError) in try p.conditional() }
            try expect(")", operandNext: false)
            return inner
        case .punctuation("["):
            try advance(operandExpected: true)
            let (elements, highest) = try list(closedBy: "]")
            return try node(.array(elements), over: highest, at: start)
        default:
            throw error("expected a value, found \(describe(token))")
        }
    }

    private mutating func expect(_ p: String, operandNext: Bool = true) throws(ExpressionError) {
        guard token == .punctuation(p) else { throw error("expected '\(p)', found \(describe(token))") }
        try advance(operandExpected: operandNext)
    }

    // MARK: - Tokens

    private static let punctuation = ["===", "!==", "==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "*", "/", "%",
                                      "?", ":", ".", ",", "(", ")", "[", "]"].map { Array($0.utf8) }

    /// Reads the next token. A `/` where an operand is expected starts a regular expression.
    private mutating func advance(operandExpected: Bool) throws(ExpressionError) {
        while position < text.count, [0x20, 0x09, 0x0A, 0x0D].contains(text[position]) { position += 1 }
        tokenStart = position
        guard position < text.count else { token = .end; return }
        let b = text[position]
        if isIdentifierByte(b) && !(b >= 0x30 && b <= 0x39) {
            var end = position
            while end < text.count, isIdentifierByte(text[end]) { end += 1 }
            token = .identifier(String(decoding: text[position..<end], as: UTF8.self))
            position = end
        } else if (b >= 0x30 && b <= 0x39) || (b == UInt8(ascii: ".") && position + 1 < text.count && text[position + 1] >= 0x30 && text[position + 1] <= 0x39) {
            var end = position
            while end < text.count, (text[end] >= 0x30 && text[end] <= 0x39) || text[end] == UInt8(ascii: ".") { end += 1 }
            if end < text.count, text[end] == UInt8(ascii: "e") || text[end] == UInt8(ascii: "E") {
                end += 1
                if end < text.count, text[end] == UInt8(ascii: "+") || text[end] == UInt8(ascii: "-") { end += 1 }
                while end < text.count, text[end] >= 0x30 && text[end] <= 0x39 { end += 1 }
            }
            guard let n = Double(String(decoding: text[position..<end], as: UTF8.self)) else {
                throw ExpressionError(message: "malformed number", offset: position)
            }
            token = .number(n)
            position = end
        } else if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
            token = .string(try stringLiteral(quote: b))
        } else if b == UInt8(ascii: "/") && operandExpected {
            token = try regexLiteral()
        } else {
            guard let p = Self.punctuation.first(where: { text[position...].starts(with: $0) }) else {
                throw ExpressionError(message: "unexpected character '\(String(decoding: text[position...].prefix(1), as: UTF8.self))'", offset: position)
            }
            token = .punctuation(String(decoding: p, as: UTF8.self))
            position += p.count
        }
    }

    private func isIdentifierByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "_") || b == UInt8(ascii: "$")
    }

    private mutating func stringLiteral(quote: UInt8) throws(ExpressionError) -> String {
        let start = position
        position += 1
        var bytes = [UInt8]()
        while true {
            guard position < text.count else { throw ExpressionError(message: "a string is not closed", offset: start) }
            let b = text[position]
            position += 1
            if b == quote { break }
            guard b == UInt8(ascii: "\\") else { bytes.append(b); continue }
            guard position < text.count else { throw ExpressionError(message: "a string is not closed", offset: start) }
            let e = text[position]
            position += 1
            switch e {
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "u"):
                guard position + 4 <= text.count, let code = UInt32(String(decoding: text[position..<position + 4], as: UTF8.self), radix: 16),
                      let scalar = Unicode.Scalar(code) else {
                    throw ExpressionError(message: "malformed \\u escape", offset: position - 2)
                }
                bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
                position += 4
            default: bytes.append(e)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func regexLiteral() throws(ExpressionError) -> Token {
        let start = position
        position += 1
        var pattern = [UInt8]()
        var inClass = false
        while true {
            guard position < text.count else { throw ExpressionError(message: "a regular expression is not closed", offset: start) }
            let b = text[position]
            position += 1
            if b == UInt8(ascii: "\\") && position < text.count {
                pattern.append(b)
                pattern.append(text[position])
                position += 1
                continue
            }
            if b == UInt8(ascii: "[") { inClass = true }
            if b == UInt8(ascii: "]") { inClass = false }
            if b == UInt8(ascii: "/") && !inClass { break }
            pattern.append(b)
        }
        var flags = [UInt8]()
        while position < text.count, isIdentifierByte(text[position]) {
            flags.append(text[position])
            position += 1
        }
        return .regex(String(decoding: pattern, as: UTF8.self), String(decoding: flags, as: UTF8.self))
    }
}
