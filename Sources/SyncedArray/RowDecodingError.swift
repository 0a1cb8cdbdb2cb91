// A child of a typed synced array that did not decode.
import JSONTree

/// A row whose value did not decode into the typed array's row type: its key and why (the
/// path inside the value and the problem, from `JSONNodeDecoder.describe`).
///
/// The key and message come from the file: sanitise them before showing them in a terminal.
public struct RowDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let key: String
    public let message: String

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { "row \(JSON.string(key).serializedString()): \(message)" }

    public static func == (a: RowDecodingError, b: RowDecodingError) -> Bool {
        codeUnitsEqual(a.key, b.key) && a.message == b.message
    }
}
