// Why a request to a database failed: what the caller shows, never with a token in it.

/// A failure talking to a Realtime Database: a malformed URL, a refused request, a lost
/// connection or a response that is not what the protocol says.
///
/// Its `message` never contains the auth token: every message is built from the URL's
/// `display` and passed through the credential's redaction before it is stored.
public struct RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// The database URL (or the emulator host variable) is malformed.
        case invalidURL
        /// The server answered with this HTTP status (not 2xx).
        case http(status: Int)
        /// The connection could not be made or was lost.
        case transport
        /// The server's answer does not follow the protocol (not JSON, a malformed event).
        case malformedResponse
        /// A transaction met a concurrent write on every one of its tries.
        case transactionRetriesExhausted
    }

    public let kind: Kind
    /// A sentence saying what failed; for `http`, the server's `error` text when it gave one.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The HTTP status, for an `http` error.
    public var status: Int? {
        if case .http(let status) = kind { status } else { nil }
    }

    /// 401 or 403: the token was refused or is missing.
    public var isUnauthorized: Bool { status == 401 || status == 403 }

    public var description: String { message }
}
