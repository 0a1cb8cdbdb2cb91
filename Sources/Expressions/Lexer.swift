// Splitting an expression's text into tokens, each with the place it starts.

struct Token {
    enum Kind: Equatable {
        /// `.name`
        case field(String)
        case dot
        case identifier(String)
        case number(Double)
        case string([UInt8])
        /// An operator or punctuation: `==`, `(`, `//`, `?` …
        case symbol(String)
        case end
    }

    var kind: Kind
    /// Offset in Unicode scalars from the start of the text.
    var offset: Int

    /// The token as the user wrote it, for messages.
    var shown: String {
        switch kind {
        case .field(let name): "'.\(name)'"
        case .dot: "'.'"
        case .identifier(let name): "'\(name)'"
        case .number(let d): "'\(d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d))'"
        case .string: "a string"
        case .symbol(let s): "'\(s)'"
        case .end: "the end"
        }
    }
}

/// Operators longest first, so that `//` is not read as `/` twice.
private let symbols = [
    "|=", "+=", "-=", "*=", "/=", "%=", "//=", "?//",
    "==", "!=", "<=", ">=", "//", "..",
    "|", ",", "+", "-", "*", "/", "%", "<", ">", "(", ")", "[", "]", "{", "}", ";", "?", "=", "$", "@", ":",
].sorted { $0.count > $1.count }

struct Lexer {
    let scalars: [Unicode.Scalar]
    let context: String

    init(_ text: String, context: String) {
        scalars = Array(text.unicodeScalars)
        self.context = context
    }

    func tokens() throws(ExpressionError) -> [Token] {
        var out = [Token]()
        var i = 0
        func isNameStart(_ c: Unicode.Scalar) -> Bool { c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        func isName(_ c: Unicode.Scalar) -> Bool { isNameStart(c) || ("0"..."9").contains(c) }
        func isDigit(_ at: Int) -> Bool { at < scalars.count && ("0"..."9").contains(scalars[at]) }
        while i < scalars.count {
            let c = scalars[i]
            if c == " " || c == "\t" || c == "\n" || c == "\r" {
                i += 1
                continue
            }
            if c == "#" {
                while i < scalars.count && scalars[i] != "\n" { i += 1 }
                continue
            }
            let start = i
            if c == "\"" {
                out.append(Token(kind: .string(try string(&i)), offset: start))
                continue
            }
            if isDigit(i) || (c == "." && isDigit(i + 1)) {
                out.append(Token(kind: .number(try number(&i)), offset: start))
                continue
            }
            if c == "." && i + 1 < scalars.count && isNameStart(scalars[i + 1]) {
                i += 1
                let nameStart = i
                while i < scalars.count && isName(scalars[i]) { i += 1 }
                out.append(Token(kind: .field(String(String.UnicodeScalarView(scalars[nameStart..<i]))), offset: start))
                continue
            }
            if c == "." && !(i + 1 < scalars.count && scalars[i + 1] == ".") {
                out.append(Token(kind: .dot, offset: start))
                i += 1
                continue
            }
            if isNameStart(c) {
                while i < scalars.count && (isName(scalars[i]) || (scalars[i] == ":" && i + 1 < scalars.count && scalars[i + 1] == ":")) {
                    i += scalars[i] == ":" ? 2 : 1
                }
                out.append(Token(kind: .identifier(String(String.UnicodeScalarView(scalars[start..<i]))), offset: start))
                continue
            }
            guard let symbol = symbols.first(where: { matches($0, at: i) }) else {
                throw ExpressionError(scalars, at: i, "unexpected character '\(String(c))'")
            }
            out.append(Token(kind: .symbol(symbol), offset: start))
            i += symbol.unicodeScalars.count
        }
        out.append(Token(kind: .end, offset: scalars.count))
        return out
    }

    private func matches(_ symbol: String, at i: Int) -> Bool {
        var j = i
        for s in symbol.unicodeScalars {
            guard j < scalars.count, scalars[j] == s else { return false }
            j += 1
        }
        return true
    }

    /// jq's number: digits with an optional fraction and exponent, or a fraction alone (`.5`).
    private func number(_ i: inout Int) throws(ExpressionError) -> Double {
        let start = i
        func digits() { while i < scalars.count && ("0"..."9").contains(scalars[i]) { i += 1 } }
        digits()
        if i < scalars.count && scalars[i] == "." {
            i += 1
            digits()
        }
        if i < scalars.count && (scalars[i] == "e" || scalars[i] == "E") {
            let mark = i
            i += 1
            if i < scalars.count && (scalars[i] == "+" || scalars[i] == "-") { i += 1 }
            let exponent = i
            digits()
            if i == exponent { i = mark }
        }
        let text = String(String.UnicodeScalarView(scalars[start..<i]))
        guard let d = Double(text.hasPrefix(".") ? "0" + text : text) else {
            throw ExpressionError(scalars, at: start, "'\(text)' is not a number")
        }
        return d
    }

    /// A string literal with JSON's escapes; `\(…)` (interpolation) is outside the subset.
    private func string(_ i: inout Int) throws(ExpressionError) -> [UInt8] {
        let open = i
        i += 1
        var out = String.UnicodeScalarView()
        while i < scalars.count {
            let c = scalars[i]
            if c == "\"" {
                i += 1
                return Array(String(out).utf8)
            }
            if c != "\\" {
                out.append(c)
                i += 1
                continue
            }
            guard i + 1 < scalars.count else { break }
            let e = scalars[i + 1]
            switch e {
            case "\"", "\\", "/": out.append(e)
            case "b": out.append("\u{8}")
            case "f": out.append("\u{C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "(":
                throw ExpressionError(scalars, at: i, "string interpolation '\\(…)' is not supported in \(context)")
            case "u":
                guard let (scalar, length) = unicodeEscape(at: i) else {
                    throw ExpressionError(scalars, at: i, "invalid \\u escape in a string")
                }
                out.append(scalar)
                i += length
                continue
            default:
                throw ExpressionError(scalars, at: i, "invalid escape '\\\(String(e))' in a string")
            }
            i += 2
        }
        throw ExpressionError(scalars, at: open, "unterminated string")
    }

    /// `\uXXXX`, or a surrogate pair of two; the scalar and how many scalars of text it took.
    private func unicodeEscape(at i: Int) -> (Unicode.Scalar, Int)? {
        func hex(_ at: Int) -> UInt32? {
            guard at + 6 <= scalars.count, scalars[at] == "\\", scalars[at + 1] == "u" else { return nil }
            return UInt32(String(String.UnicodeScalarView(scalars[(at + 2)..<(at + 6)])), radix: 16)
        }
        guard let high = hex(i) else { return nil }
        if (0xD800..<0xDC00).contains(high), let low = hex(i + 6), (0xDC00..<0xE000).contains(low) {
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)).map { ($0, 12) }
        }
        return (Unicode.Scalar(high) ?? "\u{FFFD}", 6)
    }
}
