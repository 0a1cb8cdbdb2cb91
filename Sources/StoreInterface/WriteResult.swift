// What a write to a store did.
import JSONTree

/// What a write did.
public struct WriteResult: Sendable {
    /// The file's content after the write (its content when the write changed nothing).
    public let document: JSONDocument
    /// The file's identity then.
    public let identity: FileIdentity
    /// Whether the file was replaced; false when the writes changed nothing.
    public let changed: Bool
    /// 1, or more when the file changed under the write and it was applied again.
    public let attempts: Int

    package init(document: JSONDocument, identity: FileIdentity, changed: Bool, attempts: Int) {
        self.document = document
        self.identity = identity
        self.changed = changed
        self.attempts = attempts
    }
}

/// What a watched write did at its path.
public struct WatchedWrite: Sendable {
    /// The value at the path just before the write, in the same atomic step (nil: missing).
    public let before: JSON?
    /// The value there after it (server values resolved; nil: missing), or, when the write was
    /// refused because the value was not the one expected, the value found.
    public let after: JSON?
    /// False when the expected value was not there: nothing was written.
    public let applied: Bool
    public let result: WriteResult

    package init(before: JSON?, after: JSON?, applied: Bool, result: WriteResult) {
        self.before = before
        self.after = after
        self.applied = applied
        self.result = result
    }
}

extension JSONDocument {
    /// The value at `path` as a watched write sees it: nil when missing or null (as the
    /// database has no null values).
    package func watchedValue(at path: Path) -> JSON? {
        guard let node = root.node(at: path), !node.isNull else { return nil }
        return node.json
    }
}
