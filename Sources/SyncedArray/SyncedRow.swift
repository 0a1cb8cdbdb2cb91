// One row of a synced array: a child's key and its value in the revision last applied.
import JSONTree

/// A row of a `SyncedArray`: a child's key and value.
///
/// The value is a cheap handle into the revision (or cache file) the row was read from; the
/// array moves every row to the newest revision as it applies it, so old revisions are freed.
public struct SyncedRow: Sendable, CustomStringConvertible {
    public let key: String
    public let value: JSONNode

    public init(key: String, value: JSONNode) {
        self.key = key
        self.value = value
    }

    /// The key as a code-unit key (for dictionaries: `"é"` and `"e\u{301}"` stay distinct).
    public var jsonKey: JSONKey { JSONKey(key) }

    public var description: String { "\(key): \(String(decoding: value.rawBytes, as: UTF8.self))" }
}
