// The auth token of `--auth-token` / `SYNCTABLE_AUTH_TOKEN`, sent as the database expects and
// never shown.
import JSONTree

/// A token for the Realtime Database REST API.
///
/// A Google OAuth2 access token (`ya29.…`) goes in `Authorization: Bearer TOKEN`; anything
/// else (a legacy database secret, a Firebase ID token) as the `auth=TOKEN` query parameter:
/// the two ways the REST API takes them. The token is never part of a description, a dump
/// or an error message.
public struct Credential: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// How a token travels with a request.
    public enum Placement: Sendable, Equatable {
        /// `Authorization: Bearer TOKEN`.
        case bearerHeader
        /// `?auth=TOKEN`.
        case authParameter
    }

    let token: String
    /// Where this token is sent.
    public let placement: Placement

    /// The variable read when no `--auth-token` is given.
    public static let environmentVariable = "SYNCTABLE_AUTH_TOKEN"

    /// A credential for `token`; nil when it is empty.
    public init?(token: String) {
        guard !token.isEmpty else { return nil }
        self.token = token
        placement = token.hasPrefix("ya29.") ? .bearerHeader : .authParameter
    }

    /// The credential of `--auth-token` when given, else of `SYNCTABLE_AUTH_TOKEN`; nil for none.
    public static func resolve(option: String?, environment: [String: String] = processEnvironment()) -> Credential? {
        (option.flatMap { Credential(token: $0) }) ?? environment[environmentVariable].flatMap { Credential(token: $0) }
    }

    public var description: String {
        switch placement {
        case .bearerHeader: "OAuth2 access token (redacted)"
        case .authParameter: "auth token (redacted)"
        }
    }

    public var debugDescription: String { "Credential(\(description))" }
    public var customMirror: Mirror { Mirror(self, children: ["placement": placement]) }

    /// `text` with every occurrence of the token (as is and percent-encoded) replaced by `•••`:
    /// for anything that may echo a request, such as a server's error text.
    public func redact(_ text: String) -> String {
        var out = text
        for form in Set([token, percentEncoded(token)]) where !form.isEmpty {
            out = out.replacingAll(form, with: "•••")
        }
        return out
    }

    /// The query parameters this credential adds to a request.
    var parameters: [(name: String, value: String)] {
        placement == .authParameter ? [(name: "auth", value: token)] : []
    }

    /// The headers this credential adds to a request.
    var headers: [(name: String, value: String)] {
        placement == .bearerHeader ? [(name: "Authorization", value: "Bearer " + token)] : []
    }
}

extension String {
    /// Every occurrence of `target` (by code units) replaced.
    func replacingAll(_ target: String, with replacement: String) -> String {
        let t = Array(target.utf8)
        let s = Array(utf8)
        guard !t.isEmpty, s.count >= t.count else { return self }
        var out = [UInt8]()
        var i = 0
        while i < s.count {
            if i + t.count <= s.count && s[i..<(i + t.count)].elementsEqual(t) {
                out += replacement.utf8
                i += t.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
