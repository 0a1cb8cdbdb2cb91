// Reading tokens into `Syntax` with jq's precedence:
// `|` < `//` < `or` < `and` < comparisons < `+ -` < `* / %` < postfix (`.a`, `[i]`, `?`).

/// jq's words that start a form outside the subset, named as such in errors.
private let unsupportedKeywords: Set<String> = [
    "if", "then", "elif", "else", "end", "as", "def", "reduce", "foreach", "try", "catch", "label",
    "import", "include", "__loc__",
]

struct Parser {
    /// How deep an expression may nest: parentheses, brackets, arguments and operands within
    /// one another, and the operators of one chain (`a + b + …` is a tree as deep as it is
    /// long). The parser, the evaluator and the expression's words all recurse over that depth,
    /// on any thread: deeper is an error, never a stack overflow. A level costs the parser up
    /// to 20 KB of stack in a debug build (a dozen precedence levels, each a frame), so 256
    /// levels take about 5 MB of a thread's 8 MiB.
    static let maximumDepth = 256

    private let tokens: [Token]
    private let scalars: [Unicode.Scalar]
    private let context: String
    private var at = 0
    /// How many nested forms the parser is inside (its recursion).
    private var nesting = 0
    /// The height of the syntax the last level returned (a value alone is 0).
    private var height = 0

    init(_ text: String, context: String) throws(ExpressionError) {
        let lexer = Lexer(text, context: context)
        tokens = try lexer.tokens()
        scalars = lexer.scalars
        self.context = context
    }

    /// Refuses text whose brackets nest deeper than `maximumDepth` (outside strings), before
    /// libjq, whose compiler recurses over them, is given text the native parser stopped early in.
    static func checkBracketDepth(_ text: String) throws(ExpressionError) {
        let scalars = Array(text.unicodeScalars)
        var depth = 0, inString = false, escaped = false
        for (offset, c) in scalars.enumerated() {
            if inString {
                // `\(…)` nests too, but its parentheses are counted as the string's text is.
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            switch c {
            case "\"": inString = true
            case "(", "[", "{":
                depth += 1
                if depth > maximumDepth {
                    throw ExpressionError(scalars, at: offset, "the expression nests deeper than \(maximumDepth) levels", final: true)
                }
            case ")", "]", "}": depth -= 1
            default: break
            }
        }
    }

    mutating func parse() throws(ExpressionError) -> Syntax {
        let e = try pipe()
        guard case .end = current.kind else {
            if current.kind == .symbol(",") { throw unsupported("',' (more than one value)") }
            if current.kind == .symbol(")") { throw error("unbalanced ')'") }
            throw error("unexpected \(current.shown)")
        }
        return e
    }

    // MARK: Tokens

    private var current: Token { tokens[at] }
    private var previous: Token { tokens[at - 1] }

    private mutating func take(_ symbol: String) -> Bool {
        guard current.kind == .symbol(symbol) else { return false }
        at += 1
        return true
    }

    private func error(_ message: String, at token: Token? = nil, final: Bool = false) -> ExpressionError {
        ExpressionError(scalars, at: (token ?? current).offset, message, final: final)
    }

    private func unsupported(_ what: String, at token: Token? = nil) -> ExpressionError {
        error("\(what) is not supported in \(context)", at: token)
    }

    private func tooDeep(at token: Token) -> ExpressionError {
        ExpressionError(scalars, at: token.offset, "the expression nests deeper than \(Self.maximumDepth) levels", final: true)
    }

    /// Parses a form nested in the current one, or fails past `maximumDepth` before the
    /// recursion can exhaust the stack.
    private mutating func nested(_ parse: (inout Parser) throws(ExpressionError) -> Syntax) throws(ExpressionError) -> Syntax {
        guard nesting < Self.maximumDepth else { throw tooDeep(at: current) }
        nesting += 1
        defer { nesting -= 1 }
        return try parse(&self)
    }

    /// `syntax`, made by `token` over operands as high as `heights`; an error when that makes
    /// it deeper than `maximumDepth` (a chain of operators grows a tree without recursion).
    private mutating func node(_ syntax: Syntax, over heights: Int..., at token: Token) throws(ExpressionError) -> Syntax {
        height = 1 + (heights.max() ?? 0)
        guard height <= Self.maximumDepth else { throw tooDeep(at: token) }
        return syntax
    }

    /// Rejects the forms of jq that could follow a complete operand but are outside the subset.
    private func rejectUnsupportedOperator() throws(ExpressionError) {
        guard case .symbol(let s) = current.kind else { return }
        switch s {
        case "=", "|=", "+=", "-=", "*=", "/=", "%=", "//=": throw unsupported("assignment '\(s)'")
        case "?//": throw unsupported("destructuring '?//'")
        default: break
        }
    }

    // MARK: Levels

    private mutating func pipe() throws(ExpressionError) -> Syntax {
        let left = try alternative()
        let (operator_, leftHeight) = (current, height)
        try rejectUnsupportedOperator()
        guard take("|") else { return left }
        let right = try operand(after: "|") { p throws(ExpressionError) in try p.pipe() }
        return try node(.pipe(left, right), over: leftHeight, height, at: operator_)
    }

    private mutating func alternative() throws(ExpressionError) -> Syntax {
        let left = try or()
        let (operator_, leftHeight) = (current, height)
        guard take("//") else { return left }
        let right = try operand(after: "//") { p throws(ExpressionError) in try p.alternative() }
        return try node(.alternative(left, right), over: leftHeight, height, at: operator_)
    }

    private mutating func or() throws(ExpressionError) -> Syntax {
        var left = try and()
        while current.kind == .identifier("or") {
            let (operator_, leftHeight) = (current, height)
            at += 1
            let right = try operand(after: "or") { p throws(ExpressionError) in try p.and() }
            left = try node(.or(left, right), over: leftHeight, height, at: operator_)
        }
        return left
    }

    private mutating func and() throws(ExpressionError) -> Syntax {
        var left = try comparison()
        while current.kind == .identifier("and") {
            let (operator_, leftHeight) = (current, height)
            at += 1
            let right = try operand(after: "and") { p throws(ExpressionError) in try p.comparison() }
            left = try node(.and(left, right), over: leftHeight, height, at: operator_)
        }
        return left
    }

    private mutating func comparison() throws(ExpressionError) -> Syntax {
        let left = try additive()
        let (operator_, leftHeight) = (current, height)
        guard case .symbol(let s) = current.kind, let op = BinaryOperator(rawValue: s), op.isComparison else { return left }
        at += 1
        let right = try operand(after: s) { p throws(ExpressionError) in try p.additive() }
        if case .symbol(let next) = current.kind, BinaryOperator(rawValue: next)?.isComparison == true {
            throw error("comparisons do not chain: join them with 'and'")
        }
        return try node(.binary(op, left, right), over: leftHeight, height, at: operator_)
    }

    private mutating func additive() throws(ExpressionError) -> Syntax {
        var left = try multiplicative()
        while case .symbol(let s) = current.kind, s == "+" || s == "-" {
            let (operator_, leftHeight) = (current, height)
            at += 1
            let right = try operand(after: s) { p throws(ExpressionError) in try p.multiplicative() }
            left = try node(.binary(BinaryOperator(rawValue: s)!, left, right), over: leftHeight, height, at: operator_)
        }
        return left
    }

    private mutating func multiplicative() throws(ExpressionError) -> Syntax {
        var left = try unary()
        while case .symbol(let s) = current.kind, s == "*" || s == "/" || s == "%" {
            let (operator_, leftHeight) = (current, height)
            at += 1
            let right = try operand(after: s) { p throws(ExpressionError) in try p.unary() }
            left = try node(.binary(BinaryOperator(rawValue: s)!, left, right), over: leftHeight, height, at: operator_)
        }
        return left
    }

    /// jq's `-` binds like its binary `-`: `-a * b` is `-(a * b)`, `-a + b` is `(-a) + b`.
    private mutating func unary() throws(ExpressionError) -> Syntax {
        let operator_ = current
        guard take("-") else { return try postfix() }
        let operand = try operand(after: "-") { p throws(ExpressionError) in try p.multiplicative() }
        return try node(.negate(operand), over: height, at: operator_)
    }

    /// The operand after an operator, or an error naming the operator when there is none.
    private mutating func operand(after symbol: String, _ parse: (inout Parser) throws(ExpressionError) -> Syntax) throws(ExpressionError) -> Syntax {
        guard startsValue else { throw error("expected a value after '\(symbol)'") }
        return try nested(parse)
    }

    private var startsValue: Bool {
        switch current.kind {
        case .end: false
        case .symbol(let s): ["(", "[", "-", "{", "$", "@", ".."].contains(s)
        case .identifier(let name): name != "and" && name != "or"
        default: true
        }
    }

    // MARK: Terms

    private mutating func postfix() throws(ExpressionError) -> Syntax {
        var term = try primary()
        while true {
            let step = current
            switch current.kind {
            case .field(let name):
                at += 1
                term = try node(.field(term, name: Array(name.utf8), optional: false), over: height, at: step)
            case .dot:
                at += 1
                if case .string(let name) = current.kind {
                    at += 1
                    term = try node(.field(term, name: name, optional: false), over: height, at: step)
                } else if current.kind == .symbol("[") {
                    term = try bracket(after: term)
                } else {
                    throw error("expected a name after '.'")
                }
            case .symbol("["):
                term = try bracket(after: term)
            case .symbol("?"):
                at += 1
                // As jq: `a.b?` and `a[i]?` make only their last step optional.
                switch term {
                case .field(let base, let name, false): term = .field(base, name: name, optional: true)
                case .index(let base, let index, false): term = .index(base, index, optional: true)
                default: term = try node(.optional(term), over: height, at: step)
                }
            default:
                return term
            }
        }
    }

    /// `term[index]`; `[]` (every element) and slices are outside the subset.
    private mutating func bracket(after term: Syntax) throws(ExpressionError) -> Syntax {
        let open = current
        let termHeight = height
        at += 1
        if current.kind == .symbol("]") { throw unsupported("iteration '[]' (more than one value)", at: open) }
        if current.kind == .symbol(":") { throw unsupported("a slice '[a:b]'", at: open) }
        let index = try nested { p throws(ExpressionError) in try p.pipe() }
        if current.kind == .symbol(":") { throw unsupported("a slice '[a:b]'", at: open) }
        if current.kind == .symbol(",") { throw unsupported("',' (more than one value)") }
        guard take("]") else { throw error("expected ']' to close the '[' at \(position(open))") }
        if case .literal(.string(let name)) = index { return try node(.field(term, name: name, optional: false), over: termHeight, at: open) }
        return try node(.index(term, index, optional: false), over: termHeight, height, at: open)
    }

    private func position(_ token: Token) -> String {
        let e = ExpressionError(scalars, at: token.offset, "")
        return "\(e.line):\(e.column)"
    }

    private mutating func primary() throws(ExpressionError) -> Syntax {
        let token = current
        height = 0
        switch token.kind {
        case .end:
            throw error(at == 0 ? "expected a value" : "expected a value after \(previous.shown)")
        case .dot:
            at += 1
            if case .string(let name) = current.kind {
                at += 1
                return try node(.field(.identity, name: name, optional: false), at: token)
            }
            if current.kind == .symbol("[") { return try bracket(after: .identity) }
            return .identity
        case .field(let name):
            at += 1
            return try node(.field(.identity, name: Array(name.utf8), optional: false), at: token)
        case .number(let d):
            at += 1
            return .literal(.number(d))
        case .string(let s):
            at += 1
            return .literal(.string(s))
        case .identifier(let name):
            at += 1
            return try named(name, token)
        case .symbol(let s):
            switch s {
            case "(":
                at += 1
                let inner = try nested { p throws(ExpressionError) in try p.pipe() }
                guard take(")") else {
                    if current.kind == .symbol(",") { throw unsupported("',' (more than one value)") }
                    throw error("expected ')' to close the '(' at \(position(token))")
                }
                return inner
            case "[":
                return try arrayLiteral()
            case "{": throw unsupported("object construction '{…}'")
            case "$": throw unsupported("a variable '$…'")
            case "@": throw unsupported("a format '@…'")
            case "..": throw unsupported("recursive descent '..'")
            default:
                throw error(at == 0 ? "expected a value, not '\(s)'" : "expected a value after \(previous.shown), not '\(s)'")
            }
        }
    }

    /// `[a, b, …]`: each element one value (no `|` inside, which would apply to all of them).
    private mutating func arrayLiteral() throws(ExpressionError) -> Syntax {
        let open = current
        at += 1
        var elements = [Syntax]()
        if take("]") { return try node(.array([]), at: open) }
        var highest = 0
        while true {
            elements.append(try nested { p throws(ExpressionError) in try p.alternative() })
            highest = max(highest, height)
            if current.kind == .symbol("|") { throw unsupported("'|' inside '[…]'") }
            if take(",") { continue }
            guard take("]") else { throw error("expected ']' to close the '[' at \(position(open))") }
            return try node(.array(elements), over: highest, at: open)
        }
    }

    /// A named form: a constant, a function of the subset, or what is outside it.
    private mutating func named(_ name: String, _ token: Token) throws(ExpressionError) -> Syntax {
        switch name {
        case "true": return .literal(.bool(true))
        case "false": return .literal(.bool(false))
        case "null": return .literal(.null)
        default: break
        }
        if unsupportedKeywords.contains(name) { throw unsupported("'\(name)'", at: token) }
        if name == "and" || name == "or" { throw error("expected a value before '\(name)'", at: token) }
        guard name == "test" || Builtin(rawValue: name) != nil else { throw unsupported("'\(name)'", at: token) }
        var arguments = [Syntax]()
        var highest = 0
        if take("(") {
            repeat {
                arguments.append(try operand(after: arguments.isEmpty ? "(" : ";") { p throws(ExpressionError) in try p.pipe() })
                highest = max(highest, height)
            } while take(";")
            guard take(")") else {
                if current.kind == .symbol(",") { throw error("arguments are separated by ';' in jq, not ','") }
                throw error("expected ')' to close the arguments of '\(name)'")
            }
        }
        if name == "test" { return try node(try test(arguments, token), at: token) }
        let builtin = Builtin(rawValue: name)!
        guard builtin.arity == arguments.count else {
            throw error("'\(name)' takes \(builtin.arity == 0 ? "no arguments" : "1 argument"), not \(arguments.count)", at: token)
        }
        if name == "not", startsValue {
            throw error("'not' is a filter: write '… | not' or '(…) | not'", at: token)
        }
        return try node(.call(builtin, arguments), over: highest, at: token)
    }

    /// `test("re")` or `test("re"; "flags")` with constant strings, compiled here once.
    private func test(_ arguments: [Syntax], _ token: Token) throws(ExpressionError) -> Syntax {
        guard (1...2).contains(arguments.count) else {
            throw error("'test' takes a pattern and optional flags: test(\"re\") or test(\"re\"; \"i\")", at: token)
        }
        guard case .literal(.string(let pattern)) = arguments[0] else {
            throw error("test's pattern must be a string literal", at: token)
        }
        var flags = ""
        if arguments.count == 2 {
            switch arguments[1] {
            case .literal(.string(let f)): flags = String(decoding: f, as: UTF8.self)
            case .literal(.null): break
            default: throw error("test's flags must be a string literal", at: token)
            }
        }
        let source = String(decoding: pattern, as: UTF8.self)
        do { return .test(try Pattern(source, flags: flags)) } catch {
            switch error {
            case .flag(let f): throw self.error("test: flag '\(f)' is not supported (use \(Pattern.flagLetters))", at: token, final: true)
            case .invalid(let problem):
                throw self.error("test: invalid regular expression \(String(reflecting: source)): \(problem)", at: token, final: true)
            }
        }
    }
}
