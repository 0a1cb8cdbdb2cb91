// The WebSocket protocol's messages as types: a client's decoded once, where it arrives; the
// server's encoded once, where it leaves. Names are the client SDKs' (PersistentConnection.ts).
import JSONTree
import LiveQuery

/// A whole message from a client.
enum ClientMessage {
    /// `{"t":"c","d":{"t":"p"}}`, answered with a pong.
    case ping
    /// Any other message the server has nothing to do with (another control message, a data
    /// message without an action).
    case ignored
    /// `{"t":"d","d":{"r":N,"a":ACTION,"b":{…}}}`: what the request asks (or why it cannot be
    /// done), answered when it has a number.
    case request(number: JSON?, Result<ClientRequest, WireError>)

    /// Decodes `text`; nil when it is not a protocol envelope (the connection is then closed).
    init?(decoding text: String) {
        guard let envelope = try? JSONDocument(parsing: Array(text.utf8)).root.json, case .object(let outer) = envelope,
            let layer = outer["t"]?.stringValue, case .object(let body)? = outer["d"]
        else { return nil }
        switch layer {
        case "c": self = body["t"]?.stringValue == "p" ? .ping : .ignored
        case "d":
            guard let action = body["a"]?.stringValue else {
                self = .ignored
                return
            }
            let arguments = body["b"]?.objectValue ?? JSONObject()
            do throws(WireError) {
                self = .request(number: body["r"], .success(try ClientRequest(action, arguments)))
            } catch {
                self = .request(number: body["r"], .failure(error))
            }
        default: self = .ignored
        }
    }
}

/// A client's request, its arguments checked: a bad path, tag or query is the request's error.
enum ClientRequest {
    /// `s` (stats), `appcheck`, `unappeck`: acknowledged, nothing else.
    case acknowledge
    /// `auth`/`gauth`: a credential; the Admin SDK acting as a user adds `authvar` (an object,
    /// kept as its text) or `noauth` (`null`).
    case authenticate(credential: String?, override: String?)
    case unauthenticate
    case listen(ListenRequest)
    /// `n`: the listen of `path` with `tag` ends.
    case unlisten(path: Path, tag: Int?)
    case get(path: Path, query: Query?, ruleQuery: JSON)
    /// `p` (put; null deletes) and `m` (merge), compared with `hash` when a transaction sends one.
    case write(WriteKind, path: Path, data: JSON, hash: String?)
    /// `o`, `om`: a write made when the connection ends.
    case onDisconnect(WriteKind, path: Path, data: JSON)
    /// `oc`: the onDisconnect writes at or below `path` are cancelled.
    case cancelDisconnect(path: Path)

    enum WriteKind { case put, merge }

    init(_ action: String, _ b: JSONObject) throws(WireError) {
        switch action {
        case "s", "unappeck", "appcheck": self = .acknowledge
        case "auth", "gauth":
            let override = b["authvar"].map { String(decoding: $0.serialized(.compact), as: UTF8.self) }
                ?? (b["noauth"]?.boolValue == true ? "null" : nil)
            self = .authenticate(credential: b["cred"]?.stringValue, override: override)
        case "unauth": self = .unauthenticate
        case "q": self = .listen(try ListenRequest(b))
        case "n": self = .unlisten(path: try Self.path(b["p"]), tag: try Self.tag(b["t"]))
        case "g":
            let q = b["q"]?.objectValue
            self = .get(path: try Self.path(b["p"]), query: try WireQuery.query(q), ruleQuery: WireQuery.ruleQuery(q))
        case "p", "m":
            self = .write(action == "p" ? .put : .merge, path: try Self.path(b["p"]), data: b["d"] ?? .null, hash: b["h"]?.stringValue)
        case "o", "om": self = .onDisconnect(action == "o" ? .put : .merge, path: try Self.path(b["p"]), data: b["d"] ?? .null)
        case "oc": self = .cancelDisconnect(path: try Self.path(b["p"]))
        default: throw WireError("unknown action '\(action)'")
        }
    }

    /// A request's `p`: `/players/alice` (the SDK's form; the root is `/`).
    static func path(_ value: JSON?) throws(WireError) -> Path {
        guard let text = value?.stringValue else { throw WireError("p must be a path string") }
        let keys = text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        // `ref.setPriority(p)` writes to `…/.priority`.
        for (i, key) in keys.enumerated() where !(i == keys.count - 1 && key == ".priority") {
            do { try DatabasePath.check(key) } catch { throw WireError(error.message) }
        }
        guard keys.count <= DatabasePath.maxDepth else { throw WireError("the path is deeper than \(DatabasePath.maxDepth) levels") }
        return Path(keys: keys)
    }

    /// A listen's tag, range-checked where it is converted: an integer a JavaScript number holds
    /// exactly, or none.
    static func tag(_ value: JSON?) throws(WireError) -> Int? {
        guard let value, !value.isNull else { return nil }
        guard let n = value.doubleValue, n == n.rounded(), abs(n) <= 9_007_199_254_740_991 else {
            throw WireError("a listen's tag must be a whole number between -2^53 and 2^53")
        }
        return Int(n)
    }
}

/// `q`: listen to a location's whole value (no tag) or to a query's window (a tag).
struct ListenRequest {
    let path: Path
    /// The path as the client wrote it, which its messages about the listen repeat.
    let wirePath: String
    let tag: Int?
    let query: Query?
    /// The rules' `query` variable (null for the location's whole value).
    let ruleQuery: JSON
    /// The query as the client sent it, to name the listen when it is revoked.
    let wireQuery: JSON

    init(_ b: JSONObject) throws(WireError) {
        path = try ClientRequest.path(b["p"])
        wirePath = b["p"]?.stringValue ?? "/"
        tag = try ClientRequest.tag(b["t"])
        query = tag == nil ? nil : try WireQuery.query(b["q"]?.objectValue)
        ruleQuery = tag == nil ? .null : WireQuery.ruleQuery(b["q"]?.objectValue)
        wireQuery = b["q"] ?? .null
    }
}

/// A message from the server.
enum ServerMessage {
    /// The connection's first message: the server's time (for the client's estimate of it).
    case hello(milliseconds: Int, host: String, session: String)
    case pong
    /// The answer to request `request`: `ok`, or the error the SDKs know (`permission_denied`,
    /// `datastale`, …) with its data.
    case answer(request: JSON, status: String, data: JSON)
    /// A listen's location (or its query's window) is now `data`; `merge`: these children changed.
    case data(path: String, data: JSON, tag: Int?)
    case merge(path: String, data: JSON, tag: Int?)
    /// A listen the user may no longer read, revoked.
    case revoked(path: String, query: JSON, tag: Int?)
    /// A listen the server can no longer serve (the file was removed): why.
    case cancelled(path: String, why: String)

    var json: JSON {
        switch self {
        case .hello(let milliseconds, let host, let session):
            let hello: JSON = ["t": "h", "d": ["ts": .number(JSONNumber(milliseconds)), "v": "5", "h": .string(host), "s": .string(session)]]
            return ["t": "c", "d": hello]
        case .pong: return ["t": "c", "d": ["t": "o", "d": [:]]]
        case .answer(let request, let status, let data):
            return ["t": "d", "d": ["r": request, "b": ["s": .string(status), "d": data]]]
        case .data(let path, let data, let tag): return Self.action("d", path: path, data: data, tag: tag)
        case .merge(let path, let data, let tag): return Self.action("m", path: path, data: data, tag: tag)
        case .revoked(let path, let query, let tag):
            guard let tag else { return ["t": "d", "d": ["a": "c", "b": ["p": .string(path)]]] }
            return ["t": "d", "d": ["a": "c", "b": ["p": .string(path), "q": query, "t": .number(JSONNumber(tag))]]]
        case .cancelled(let path, let why):
            return ["t": "d", "d": ["a": "c", "b": ["p": .string(path), "d": .string(why)]]]
        }
    }

    /// The message as it goes on the wire: serialized and framed once.
    var wire: WireMessage { WireMessage(String(decoding: json.serialized(.compact), as: UTF8.self)) }

    private static func action(_ action: String, path: String, data: JSON, tag: Int?) -> JSON {
        guard let tag else { return ["t": "d", "d": ["a": .string(action), "b": ["p": .string(path), "d": data]]] }
        return ["t": "d", "d": ["a": .string(action), "b": ["p": .string(path), "d": data, "t": .number(JSONNumber(tag))]]]
    }
}
