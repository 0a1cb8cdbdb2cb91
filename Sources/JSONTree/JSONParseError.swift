/// Why a document is not valid JSON, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, e.g. "expected ',' or '}' after object member".
    public let message: String
    /// Byte offset of the problem (0-based).
    public let offset: Int
    /// Line of the problem (1-based).
    public let line: Int
    /// Column of the problem, in Unicode scalars from the start of the line (1-based).
    public let column: Int

    public init(message: String, offset: Int, line: Int, column: Int) {
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// Computes line and column of `offset` in `bytes`.
    init(_ message: String, at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        var line = 1, column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            let b = bytes[i]
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        self.init(message: message, offset: offset, line: line, column: column)
    }

    public var description: String { "line \(line), column \(column): \(message)" }

    /// The error as compilers print one: `FILE:LINE:COLUMN: error: MESSAGE`.
    public func diagnostic(file: String) -> String { "\(file):\(line):\(column): error: \(message)" }
}
