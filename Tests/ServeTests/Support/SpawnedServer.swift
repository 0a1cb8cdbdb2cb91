// `synctable serve` with rules and tokens as a child process, its streams, and unsigned ID tokens.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import JSONTree
@testable import Serve
import Testing
import TestSupport

extension TestServer {
    /// `synctable serve` with `options`' rules and tokens.
    convenience init(file: String, options: ServeOptions) throws {
        var arguments = [String]()
        if let rules = options.rulesFile { arguments += ["--rules", rules] }
        if let token = options.authToken { arguments += ["--auth-token", token] }
        if options.acceptUnverifiedTokens { arguments.append("--accept-unverified-tokens") }
        try self.init(file: file, arguments: arguments)
    }
}

/// A stream opened by `ServedForTest.openStream`.
final class OpenStream {
    let connection: HTTPConnection
    let head: HTTPResult
    let first: ServerEvent?

    init(connection: HTTPConnection, head: HTTPResult, first: ServerEvent?) {
        self.connection = connection
        self.head = head
        self.first = first
    }

    /// The next event other than a keep-alive (which a slow run of the suite may see at any
    /// point); nil when the stream ended.
    func next() throws -> ServerEvent? { try connection.readDataEvent() }
}

/// A Firebase ID token with `claims` (accepted only with `--accept-unverified-tokens`): unsigned
/// (`alg: none`, as the SDKs' `mockUserToken`, whose times are not checked), or with a signature
/// the server cannot verify (whose `exp` it honours).
func idToken(_ claims: JSON, signed: Bool = false) -> String {
    func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out = [UInt8]()
        var i = 0
        while i < bytes.count {
            let chunk = bytes[i..<min(i + 3, bytes.count)]
            var n = 0
            for (j, b) in chunk.enumerated() { n |= Int(b) << (16 - 8 * j) }
            for j in 0...chunk.count { out.append(alphabet[(n >> (18 - 6 * j)) & 63]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
    let header = signed ? #"{"alg":"RS256","kid":"k","typ":"JWT"}"# : #"{"alg":"none","typ":"JWT"}"#
    return base64URL(Array(header.utf8)) + "." + base64URL(claims.serialized(.compact)) + "." + (signed ? "c2lnbmF0dXJl" : "")
}

/// The bearer header of a user `uid`'s unsigned ID token.
func bearer(_ uid: String, _ claims: [(String, JSON)] = []) -> [(String, String)] {
    [("Authorization", "Bearer " + idToken(.object(JSONObject([("sub", .string(uid))] + claims))))]
}
