// Who is asking, and what the Security Rules in force let them read and write: the one access
// decision every protocol of the server consults.
import StoreInterface
import JSONTree
import LiveQuery
import Rules
import Synchronization

/// Who sent a request, from its credential.
enum Requester: Sendable {
    /// The server's own credential (`--auth-token T`, else the emulator's `owner`): rules do
    /// not apply.
    case admin
    /// A user as rules see them: `auth` is null or `{"uid", "provider", "token"}`; `expires`
    /// is when the credential ends (milliseconds since 1970), if it does.
    case user(auth: JSON, expires: Int64?)
}

/// What a stream may do with the revision it is about to send.
enum StreamPermission: Sendable {
    case allowed
    /// The rules no longer let the user read the location: `cancel`.
    case denied
    /// The user's ID token has expired: `auth_revoked`.
    case expired
}

/// The rules in force (replaceable while serving) and the decisions made with them.
///
/// Without rules (`serve` without `--rules`, until the admin sets some), every request that
/// passes the token gate may read and write everything, as before.
final class Access: Sendable {
    private let rulesInForce: Mutex<SecurityRules?>
    private let options: ServeOptions

    init(options: ServeOptions, rules: SecurityRules?) {
        self.options = options
        rulesInForce = Mutex(rules)
    }

    /// The rules in force; nil when none were given.
    var rules: SecurityRules? { rulesInForce.withLock { $0 } }

    /// Puts `rules` in force for the next requests (streams see them at their next check),
    /// after writing them to `file` when one is given: two replacements in a row leave the
    /// file and the rules in force the same.
    /// - Throws: `ServeError` when the file cannot be written; the rules in force stay.
    func replaceRules(_ rules: SecurityRules, writingTo file: String?) throws(ServeError) {
        try rulesInForce.withLock { current throws(ServeError) -> Void in
            if let file { try RulesFile.write(rules, to: file) }
            current = rules
        }
    }

    static let permissionDenied = RequestError(.unauthorized, "Permission denied")

    /// The credential the admin presents: `--auth-token`, else the emulator's `owner` on a
    /// server bound to loopback (anyone who can reach another address could send it).
    private var adminCredential: String? {
        options.authToken ?? (isLoopback(options.host) ? "owner" : nil)
    }

    /// Whether `credential` is the admin's.
    func isAdmin(_ credential: String?) -> Bool {
        guard let credential, let adminCredential else { return false }
        return constantTimeEquals(Array(credential.utf8), Array(adminCredential.utf8))
    }

    /// Who sent a request with `credential` (`Authorization: Bearer …` or `?auth=`) and, for
    /// the admin acting as a user, `auth_variable_override` (JSON: an object, or null).
    /// - Throws: `RequestError` (401) for a credential that is not accepted.
    func requester(credential: String?, override: String?, now: Int64) throws(RequestError) -> Requester {
        if isAdmin(credential) {
            guard let override else { return .admin }
            guard let auth = try? JSONDocument(parsing: override).root.json, auth.isNull || auth.objectValue != nil else {
                throw RequestError(.badRequest, "auth_variable_override must be a JSON object or null, not \(override)")
            }
            return .user(auth: auth, expires: nil)
        }
        guard rules != nil else {
            // The token gate of a server without rules.
            if options.authToken != nil {
                throw RequestError(.unauthorized, "a valid auth token is needed (Authorization: Bearer TOKEN or ?auth=TOKEN)")
            }
            return .admin
        }
        if override != nil {
            throw RequestError(.unauthorized, "auth_variable_override needs the admin's credential")
        }
        guard let credential else { return .user(auth: .null, expires: nil) }
        guard let claims = IDToken.claims(credential) else {
            throw RequestError(.unauthorized, "the credential is neither the server's token nor a Firebase ID token")
        }
        guard options.acceptUnverifiedTokens else {
            throw RequestError(.unauthorized,
                "ID tokens cannot be verified here; the server accepts them unverified only with --accept-unverified-tokens")
        }
        // An unsigned token (the emulator's mock tokens: `alg: none`) never expires: nothing of
        // it can be verified, its times included, as the Firebase emulator does.
        let expires = IDToken.isUnsigned(credential) ? nil : try IDToken.expiry(claims)
        if let expires, expires <= now { throw RequestError(.unauthorized, "the ID token has expired") }
        return .user(auth: IDToken.auth(claims), expires: expires)
    }

    /// Whether the rules in force may refuse `requester` a read (else every read is allowed).
    func judgesReads(of requester: Requester) -> Bool {
        guard case .user = requester else { return false }
        return rules != nil
    }

    /// Whether `requester` may read `path` (with the query variable `query`) of `document`.
    func mayRead(_ requester: Requester, _ path: Path, query: JSON, in document: JSONDocument, now: Int64) -> Bool {
        guard case .user(let auth, _) = requester, let rules else { return true }
        return rules.permitsRead(at: path, in: document.root, auth: auth, query: query, now: now)
    }

    /// Throws the database's 401 when `requester` may not read `path`, and its 400 for a query
    /// ordered by a child or by value where the rules give no `.indexOn` for it.
    func checkRead(_ requester: Requester, _ path: Path, _ parameters: RequestParameters, in document: JSONDocument, now: Int64) throws(RequestError) {
        guard let rules else { return }
        if let index = parameters.index, !rules.indexes(at: path).contains(index) {
            // The production database's REST answer, word for word.
            let location = "/" + path.keys.joined(separator: "/")
            throw RequestError(.badRequest, "Index not defined, add \".indexOn\": \"\(index)\", for path \"\(location)\", to the rules")
        }
        guard mayRead(requester, path, query: parameters.ruleQuery, in: document, now: now) else { throw Self.permissionDenied }
    }

    /// Whether a stream of `path` may send `document`'s value to `requester` now.
    func streamPermission(_ requester: Requester, _ path: Path, in document: JSONDocument?, now: Int64) -> StreamPermission {
        guard case .user(_, let expires) = requester, rules != nil else { return .allowed }
        if let expires, expires <= now { return .expired }
        guard let document else { return .allowed }
        return mayRead(requester, path, query: .null, in: document, now: now) ? .allowed : .denied
    }

    /// `writes` with server values resolved (so that rules see the values written), or nil
    /// when `requester` may not make them to `document`.
    /// - Throws: `JSONEditError` for a malformed server value.
    func permittedWrites(_ requester: Requester, _ writes: [JSONWrite], to document: JSONDocument, now: Int64) throws(JSONEditError) -> [JSONWrite]? {
        guard case .user(let auth, _) = requester, let rules else { return writes }
        var resolved = [JSONWrite]()
        let index = ChildIndex()
        for w in writes {
            resolved.append(JSONWrite(w.path, try w.value.resolvingServerValues(at: w.path, in: document, serverTime: now, index: index)))
        }
        let permitted = rules.permitsWrite(resolved.map { ($0.path, $0.value) }, to: document.root, auth: auth, now: now)
        return permitted ? resolved : nil
    }

    /// The time rules see as `now`, in milliseconds since 1970.
    static func now() -> Int64 { Int64(PushIDGenerator.systemMilliseconds()) }
}

/// A Firebase ID token (a JWT) read without verifying its signature: the server cannot reach
/// Google's keys, so it is trusted only with `--accept-unverified-tokens`, on loopback.
enum IDToken {
    /// The token's claims; nil when it is not a JWT with a JSON object as its payload.
    static func claims(_ token: String) -> JSONObject? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = base64URLDecoded(parts[1]),
              let claims = try? JSONDocument(parsing: payload).root.json.objectValue else { return nil }
        return claims
    }

    /// Whether the token is unsigned: `alg` is `none` and the signature empty (what the
    /// client SDKs build for the emulator from `mockUserToken`).
    static func isUnsigned(_ token: String) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].isEmpty, let header = base64URLDecoded(parts[0]),
              let fields = try? JSONDocument(parsing: header).root.json.objectValue else { return false }
        return fields["alg"]?.stringValue == "none"
    }

    /// When the token ends (`exp`, in seconds, as milliseconds since 1970), range-checked where
    /// it is converted: nil when it has no `exp` or one past any date a clock reaches.
    /// - Throws: `RequestError` (401) for an `exp` that is not a number.
    static func expiry(_ claims: JSONObject) throws(RequestError) -> Int64? {
        guard let exp = claims["exp"], !exp.isNull else { return nil }
        guard let seconds = exp.doubleValue, !seconds.isNaN else {
            throw RequestError(.unauthorized, "the ID token's exp is not a number of seconds")
        }
        let milliseconds = seconds * 1000
        if milliseconds >= 9.0e18 { return nil }
        if milliseconds <= -9.0e18 { return Int64.min }
        return Int64(milliseconds)
    }

    /// `auth` as rules see it: `uid` from `sub` (or `user_id`), `provider` from
    /// `firebase.sign_in_provider`, and every claim as `token`.
    static func auth(_ claims: JSONObject) -> JSON {
        var members: [(key: String, value: JSON)] = [("uid", claims["sub"] ?? claims["user_id"] ?? .null)]
        if let provider = claims["firebase"]?.objectValue?["sign_in_provider"] { members.append(("provider", provider)) }
        members.append(("token", .object(claims)))
        return .object(JSONObject(members))
    }

    /// Base64url without padding (JWT's), or with it.
    static func base64URLDecoded(_ text: Substring) -> [UInt8]? {
        var out = [UInt8]()
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="): continue
            default: return nil
            }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}
