// A Realtime Database location given as a URL: where to send requests, and what to show.
#if canImport(Glibc)
import Glibc
#endif
import JSONTree

/// A database location parsed from a URL such as `http://127.0.0.1:9000/players`,
/// `https://NAME.firebaseio.com/players` or `https://NAME.REGION.firebasedatabase.app/players`.
///
/// `FIREBASE_DATABASE_EMULATOR_HOST=HOST:PORT` is honoured as the Admin SDKs do: an `https`
/// URL then goes to `http://HOST:PORT` with `ns=` set to the first label of its host.
public struct DatabaseURL: Sendable, Equatable {
    /// `http` or `https`, as requests are sent.
    public let scheme: String
    /// The host requests go to (an IPv6 address in brackets), lower-cased.
    public let host: String
    /// The port requests go to; nil for the scheme's default.
    public let port: Int?
    /// The `ns=` parameter sent with every request (an emulator's or `synctable serve`'s
    /// database name); nil for a production host, which names its database itself.
    public let namespace: String?
    /// The database location the URL names (`/players`).
    public let location: Path

    /// The name of the emulator variable the Admin SDKs read.
    public static let emulatorVariable = "FIREBASE_DATABASE_EMULATOR_HOST"

    /// Whether `text` is meant as a URL rather than a file name: it starts with `http://` or
    /// `https://` (in any case).
    public static func looksLikeURL(_ text: String) -> Bool {
        let lower = text.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Parses `text`.
    /// - Parameter environment: where `FIREBASE_DATABASE_EMULATOR_HOST` is read; this
    ///   process's environment by default.
    /// - Throws: `RemoteError` (`.invalidURL`) naming what is wrong; the message never repeats
    ///   the URL's query or user information, where a token could be.
    public init(parsing text: String, environment: [String: String] = processEnvironment()) throws(RemoteError) {
        var rest = Substring(text)
        let lower = text.prefix(8).lowercased()
        var scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https"
            rest = rest.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            scheme = "http"
            rest = rest.dropFirst(7)
        } else {
            throw RemoteError(.invalidURL, "invalid database URL: it must start with http:// or https://")
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let urlPath = rest[slash...]
        let shown = "\(scheme)://\(authority)\(urlPath)"
        func invalid(_ why: String) -> RemoteError {
            RemoteError(.invalidURL, "invalid database URL '\(shown)': \(why)")
        }
        if text.contains("#") { throw invalid("a fragment ('#…') has no meaning for a database") }
        if authority.contains("@") {
            throw RemoteError(.invalidURL, "invalid database URL: it carries user information (USER@ or USER:PASSWORD@); "
                + "give a token with --auth-token or SYNCTABLE_AUTH_TOKEN instead")
        }
        var (host, port) = try Self.hostAndPort(authority, invalid)
        let location = try Self.location(urlPath, invalid)
        var namespace = try Self.namespace(query, invalid)

        let firebaseName = Self.firebaseDatabaseName(host)
        if firebaseName != nil && scheme != "https" {
            throw invalid("a firebaseio.com or firebasedatabase.app URL must be https")
        }
        if let emulator = environment[Self.emulatorVariable], !emulator.isEmpty, scheme == "https" {
            // As the Admin SDKs: the database's name is the first label of the host.
            guard !emulator.contains("//") else {
                throw RemoteError(.invalidURL, "invalid \(Self.emulatorVariable) '\(emulator)': it must be HOST:PORT, without a scheme")
            }
            let name = String(host.prefix { $0 != "." })
            (host, port) = try Self.hostAndPort(Substring(emulator)) { why in
                RemoteError(.invalidURL, "invalid \(Self.emulatorVariable) '\(emulator)': \(why)")
            }
            scheme = "http"
            namespace = name
        } else if firebaseName != nil {
            namespace = nil
        }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.namespace = namespace
        self.location = location
    }

    /// The URL for messages: the server and the location, `ns=` when sent; never a token.
    public var display: String {
        let path = "/" + location.keys.joined(separator: "/")
        return origin + path + (namespace.map { "?ns=" + percentEncoded($0) } ?? "")
    }

    /// `scheme://host[:port]`.
    var origin: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }

    /// The REST URL of `path` (a database path, not relative to `location`): each key
    /// percent-encoded, `.json` added, `ns=` first, then `parameters` as given, percent-encoded.
    /// An auth token is not added here (see `Credential`).
    public func requestURL(for path: Path, parameters: [(name: String, value: String)] = []) -> String {
        var url = origin + "/" + path.keys.map(percentEncoded).joined(separator: "/") + ".json"
        let all = (namespace.map { [(name: "ns", value: $0)] } ?? []) + parameters
        for (i, p) in all.enumerated() {
            url += (i == 0 ? "?" : "&") + percentEncoded(p.name) + "=" + percentEncoded(p.value)
        }
        return url
    }

    public static func == (a: DatabaseURL, b: DatabaseURL) -> Bool {
        a.scheme == b.scheme && a.host == b.host && a.port == b.port && a.namespace == b.namespace && a.location == b.location
    }

    // MARK: - Parts

    private static func hostAndPort(_ authority: Substring, _ invalid: (String) -> RemoteError) throws(RemoteError) -> (String, Int?) {
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw invalid("an IPv6 host has no closing ']'") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected '\(after)' after the IPv6 host") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw invalid("it has no host") }
        if !host.hasPrefix("["), let bad = host.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_")) }) {
            throw invalid("the host contains '\(bad)'")
        }
        var port: Int?
        if let portText {
            guard let n = Int(portText), portText.allSatisfy(\.isASCII), (1...65535).contains(n) else {
                throw invalid("the port '\(portText)' is not a number from 1 to 65535")
            }
            port = n
        }
        return (host.lowercased(), port)
    }

    /// The database location of a URL path: keys percent-decoded, `.json` at the end left out,
    /// each key checked against the database's rules.
    private static func location(_ urlPath: Substring, _ invalid: (String) -> RemoteError) throws(RemoteError) -> Path {
        var segments = urlPath.split(separator: "/", omittingEmptySubsequences: true)
        if let last = segments.last, last.hasSuffix(".json") {
            let stem = last.dropLast(5)
            if stem.isEmpty { segments.removeLast() } else { segments[segments.count - 1] = stem }
        }
        var keys = [String]()
        for segment in segments {
            guard let key = percentDecoded(segment) else {
                throw invalid("the path has a malformed percent escape or bytes that are not UTF-8 in '\(segment)'")
            }
            if let why = keyProblem(key) { throw invalid(why) }
            keys.append(key)
        }
        guard keys.count <= 32 else { throw invalid("the path is \(keys.count) levels deep; the database allows 32") }
        return Path(keys: keys)
    }

    /// Why `key` cannot be a database key (the Realtime Database's rule, JSONTree's), or nil.
    static func keyProblem(_ key: String) -> String? {
        forbiddenKeyReason(key).map { "the key '\(key)' \($0)" }
    }

    /// The `ns=` of a URL's query; any other parameter is refused (a token belongs in
    /// `--auth-token`, a query in the query flags).
    private static func namespace(_ query: Substring, _ invalid: (String) -> RemoteError) throws(RemoteError) -> String? {
        var namespace: String?
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name = pair.prefix { $0 != "=" }
            let value = pair.dropFirst(name.count + 1)
            switch name {
            case "ns":
                guard let decoded = percentDecoded(value), !decoded.isEmpty else { throw invalid("ns= needs a database name") }
                namespace = decoded
            case "auth", "access_token":
                throw invalid("it carries a token (\(name)=…); give it with --auth-token or SYNCTABLE_AUTH_TOKEN instead")
            default:
                throw invalid("the query parameter '\(name)' is not supported in the URL (only ns=)")
            }
        }
        return namespace
    }

    /// The database name of a production host: `NAME.firebaseio.com`, `NAME.REGION.firebasedatabase.app`.
    private static func firebaseDatabaseName(_ host: String) -> String? {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if host.hasSuffix(".firebaseio.com") && labels.count == 3 { return String(labels[0]) }
        if host.hasSuffix(".firebasedatabase.app") && labels.count == 4 { return String(labels[0]) }
        return nil
    }
}

/// This process's environment variables.
public func processEnvironment() -> [String: String] {
    var out = [String: String]()
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let eq = text.firstIndex(of: "=") {
            out[String(text[..<eq])] = String(text[text.index(after: eq)...])
        }
        entry += 1
    }
    return out
}

/// `text` with every byte outside the URL's unreserved characters (`A-Z a-z 0-9 - . _ ~`)
/// as `%XX`.
func percentEncoded(_ text: String) -> String {
    var out = [UInt8]()
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.append(byte)
        default:
            let hex = Array("0123456789ABCDEF".utf8)
            out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// `text` with `%XX` escapes decoded; nil for a malformed escape or bytes that are not UTF-8.
func percentDecoded(_ text: Substring) -> String? {
    guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
    var bytes = [UInt8]()
    let utf8 = Array(text.utf8)
    var i = 0
    while i < utf8.count {
        if utf8[i] == UInt8(ascii: "%") {
            guard i + 2 < utf8.count, let high = hexDigit(utf8[i + 1]), let low = hexDigit(utf8[i + 2]) else { return nil }
            bytes.append(high << 4 | low)
            i += 3
        } else {
            bytes.append(utf8[i])
            i += 1
        }
    }
    return String(validating: bytes, as: UTF8.self)
}

private func hexDigit(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
}
