// How a file or a stream is read: one document, or one record per line.

/// How a source is read: one JSON document, or JSON Lines.
public enum SourceFormat: Sendable, Equatable {
    /// One JSON document; each complete, valid state is a revision.
    case json
    /// JSON Lines: line N is the child `N` of an array, read as lines are appended (see
    /// `JSONLinesBuilder`); truncation, replacement and deletion start the list over.
    case jsonLines

    /// `.jsonLines` for a path ending in `.jsonl` or `.ndjson`, else `.json`.
    public init(path: String) {
        self = path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") ? .jsonLines : .json
    }
}
