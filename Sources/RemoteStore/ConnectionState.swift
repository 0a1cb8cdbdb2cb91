// What a followed location's connection is doing, for a status bar.

/// The state of an `EventStreamConnection`. A status bar shows nothing for `online`,
/// CONNECTING, RECONNECTING, OFFLINE or UNAUTHORIZED for the others; every state but
/// `online` keeps the last table.
public enum ConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// The first connection is being made.
    case connecting
    /// The stream is open and its first `put` has been delivered: the value is current.
    case online
    /// The stream was lost (`reason`); the next try, number `attempt` since the stream was
    /// last online, starts after `delayMilliseconds`.
    case reconnecting(attempt: Int, delayMilliseconds: Int, reason: String)
    /// The server refuses to stream the location (a 4xx other than 401/403, such as a query it
    /// does not allow, or a `cancel` event); tries go on at the slowest pace.
    case offline(reason: String)
    /// The token is missing, refused (401, 403) or was revoked (`auth_revoked`); tries go on
    /// at the slowest pace, in case access is granted.
    case unauthorized(reason: String)

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .online: "online"
        case .reconnecting(let attempt, let delay, let reason): "reconnecting (try \(attempt) in \(delay) ms): \(reason)"
        case .offline(let reason): "offline: \(reason)"
        case .unauthorized(let reason): "unauthorized: \(reason)"
        }
    }
}
