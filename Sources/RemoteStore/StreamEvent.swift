// One event of a location's stream, and the writes that apply it to the location's value.
import JSONTree

/// An event of the Realtime Database's streaming protocol (`Accept: text/event-stream`).
/// Paths are relative to the followed location.
public enum StreamEvent: Sendable, Equatable {
    /// The value at `path` is now `data` (null: removed). The first event of every connection
    /// is a `put` of the whole location at `/`.
    case put(Path, JSON)
    /// Each member of `data` (an object) is a relative path below `path` whose value is now
    /// the member's value; other children stay.
    case patch(Path, JSON)
    /// The server is there and nothing changed.
    case keepAlive
    /// The server stopped serving the location (security rules, or it can no longer read it);
    /// the connection ends.
    case cancel(String)
    /// The token expired or was revoked; the connection ends.
    case authRevoked

    /// The writes that apply this event to the followed location's value (with
    /// `JSONDocument.applying`); none for events that change no data.
    public var writes: [JSONWrite] {
        switch self {
        case .put(let path, let data):
            return [JSONWrite(path, data)]
        case .patch(let path, let data):
            guard case .object(let members) = data else { return [] }
            return members.members.map { member in
                let keys = member.key.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
                return JSONWrite(path.appending(Path(keys: keys)), member.value)
            }
        case .keepAlive, .cancel, .authRevoked:
            return []
        }
    }
}
