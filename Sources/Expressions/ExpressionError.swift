/// An expression that cannot be used: its place (line and column, from 1, counted in Unicode
/// scalars) and the problem, printed as `1:9: expected a value after '>'`.
public struct ExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let message: String

    init(_ scalars: [Unicode.Scalar], at offset: Int, _ message: String) {
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
    }

    public var description: String { "\(line):\(column): \(message)" }
}
