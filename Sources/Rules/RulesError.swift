// Why a rules file cannot be used, and where.

/// A mistake in a rules file: its message and its position (1-based line, and column in
/// Unicode scalars), as the JSON parser reports its own.
public struct RulesError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let line: Int
    public let column: Int

    public init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }

    /// The error at byte `offset` of `source`.
    init(_ message: String, at offset: Int, in source: [UInt8]) {
        var line = 1, column = 1
        for b in source[..<min(offset, source.count)] {
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.init(message: message, line: line, column: column)
    }

    public var description: String { "line \(line), column \(column): \(message)" }

    /// `FILE:LINE:COLUMN: MESSAGE`, the form a rules file's error is printed in.
    public func diagnostic(file: String) -> String { "\(file):\(line):\(column): \(message)" }
}
