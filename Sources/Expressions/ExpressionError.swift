/// An expression that cannot be used. The native parser's errors have their place (line and
/// column, from 1, counted in Unicode scalars), printed as `1:9: expected a value after '>'`;
/// jq's carry their place in jq's own words, printed as jq gives them
/// (`jq: error: syntax error, unexpected $end … at <top-level>, line 1: .a >`).
public struct ExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let message: String
    /// The message is jq's (libjq rejected the expression).
    public let isJQs: Bool
    /// The native parser refused nesting past its depth limit, or a regular expression that
    /// would not run in linear time: neither is handed to libjq (whose compiler recurses over the
    /// nesting, and whose regular expressions backtrack).
    let isFinal: Bool

    init(_ scalars: [Unicode.Scalar], at offset: Int, _ message: String, final: Bool = false) {
        var line = 1, column = 1
        for s in scalars.prefix(offset) {
            if s == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        self.line = line
        self.column = column
        self.message = message
        isJQs = false
        isFinal = final
    }

    /// jq's message; its line is the one it names (`at <top-level>, line 2:`), its column 1.
    init(jq message: String) {
        self.message = message
        let marker = Array(", line ".utf8), bytes = Array(message.utf8)
        let at = bytes.indices.first { bytes[$0...].starts(with: marker) }
        self.line = at.flatMap { Int(String(decoding: bytes[($0 + marker.count)...].prefix { (48...57).contains($0) }, as: UTF8.self)) } ?? 1
        column = 1
        isJQs = true
        isFinal = false
    }

    public var description: String { isJQs ? message : "\(line):\(column): \(message)" }
}
