// A WebSocket session's listens: what each client follows, and bringing it up to date.
import JSONTree
import LiveQuery
import StoreInterface

extension WebSocketSession {
    func listen(_ request: ListenRequest, as requester: Requester) -> Answer {
        guard let revision = feed.latest else { return Answer(status: "unavailable", data: "the file has not been read yet") }
        // Rules are not filters: a listen whose location the user may not read whole is refused.
        guard access.mayRead(requester, request.path, query: request.ruleQuery, in: revision.document, now: Access.now()) else {
            return Self.denied
        }
        let key = ListenKey(path: request.path, tag: request.tag)
        if listens[key] == nil && listens.count >= options.maxListensPerConnection {
            return Answer(status: "too_big", data: .string("a connection listens to at most \(options.maxListensPerConnection) locations at once"))
        }
        let listen = Listen(request, revision: revision)
        // The data goes out before the `ok` (the SDK raises its events on the data).
        let data: JSON
        if let query = request.query {
            data = Self.object(cache.window(path: request.path, query: query, in: revision))
        } else {
            data = ServedValue.value(at: request.path, in: revision.document, export: true)
        }
        listens[key] = listen
        listenOrder = nil
        pending.append(ServerMessage.data(path: request.wirePath, data: data, tag: request.query == nil ? nil : request.tag ?? 0).wire)
        return Answer(data: [:])
    }

    /// Brings every listen from the revision it last sent to `revision`.
    func follow(_ revision: Revision) async {
        if listenOrder == nil { listenOrder = listens.keys.sorted { $0.order < $1.order } }
        var revoked = [ListenKey]()
        for key in listenOrder ?? [] {
            // (Nothing else changes the listens while this runs: their indexes hold.)
            guard let index = listens.index(forKey: key) else { continue }
            let listen = listens.values[index]
            // The rules or the data changed (the same revision comes again when only the rules
            // did): a listen the user may no longer read is revoked.
            if let requester, !access.mayRead(requester, listen.path, query: listen.ruleQuery, in: revision.document, now: Access.now()) {
                await send(.revoked(path: listen.wirePath, query: listen.wireQuery, tag: listen.tag))
                revoked.append(key)
                continue
            }
            guard listen.revision.number < revision.number else { continue }
            // Where its location did not change (most often, a location above it did not),
            // nothing is computed for a listen.
            if !cache.isUnchanged(path: listen.path, ancestors: listen.ancestors, from: listen.revision, to: revision) {
                if let query = listen.query {
                    // The window last sent is made again from its revision (a listen holds no
                    // copy of it: identical queries share one, within the cache's bytes).
                    let sent = cache.window(path: listen.path, query: query, in: listen.revision)
                    let window = cache.window(path: listen.path, query: query, in: revision)
                    if let change = Self.merge(from: sent, to: window) {
                        await send(.merge(path: listen.wirePath, data: change, tag: listen.tag ?? 0))
                    }
                } else if let push = cache.push(path: listen.path, from: listen.revision, to: revision) {
                    await send(serialized: push)
                }
            }
            listens.values[index].revision = revision
        }
        for key in revoked { listens[key] = nil }
        if !revoked.isEmpty { listenOrder = nil }
    }

    /// The children that differ between two windows: the new value of each added or changed
    /// child, null for each that left; nil when none.
    static func merge(from old: [(key: String, value: JSON)], to new: [(key: String, value: JSON)]) -> JSON? {
        var before = [JSONKey: JSON]()
        before.reserveCapacity(old.count)
        for row in old { before[JSONKey(row.key)] = row.value }
        var changed = [(key: String, value: JSON)]()
        var kept = Set<JSONKey>()
        for row in new {
            let key = JSONKey(row.key)
            kept.insert(key)
            if let previous = before[key], previous == row.value { continue }
            changed.append((row.key, row.value))
        }
        for row in old where !kept.contains(JSONKey(row.key)) { changed.append((row.key, .null)) }
        return changed.isEmpty ? nil : .object(JSONObject(changed))
    }

    /// The value a `get` answers: the location's, or its query's window.
    static func data(at path: Path, query: Query?, in revision: Revision) -> JSON {
        guard let query else { return ServedValue.value(at: path, in: revision.document, export: true) }
        let rows = Window(query: query, path: path, document: revision.document).map { ($0.key, ServedValue.value($0.value, export: true)) }
        return rows.isEmpty ? .null : .object(JSONObject(rows))
    }

    static func object(_ window: [(key: String, value: JSON)]) -> JSON {
        window.isEmpty ? .null : .object(JSONObject(window))
    }

    static func wirePath(_ path: Path) -> String { "/" + path.keys.joined(separator: "/") }
}

/// A listen: untagged (the location's whole value) or tagged (a query's window).
struct ListenKey: Hashable {
    let path: Path
    let tag: Int?
    /// The order listens are brought to a new revision in (made once: a revision sorts them all).
    let order: String

    init(path: Path, tag: Int?) {
        self.path = path
        self.tag = tag
        order = "\(path.keys.joined(separator: "/"))#\(tag ?? -1)"
    }

    static func == (a: ListenKey, b: ListenKey) -> Bool { a.path == b.path && a.tag == b.tag }
    func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(tag)
    }
}

struct Listen {
    let path: Path
    let wirePath: String
    let query: Query?
    let tag: Int?
    /// The revision whose data the client was last sent.
    var revision: Revision
    /// The rules' `query` variable for it (null for the location's whole value).
    let ruleQuery: JSON
    /// The query as the client sent it (`q`), to name the listen when it is revoked.
    let wireQuery: JSON
    /// The locations above it (not the root), shortest first: where one did not change, the
    /// listen's did not either.
    let ancestors: [Path]

    init(_ request: ListenRequest, revision: Revision) {
        path = request.path
        wirePath = request.wirePath
        query = request.query
        tag = request.tag
        self.revision = revision
        ruleQuery = request.ruleQuery
        wireQuery = request.wireQuery
        ancestors = request.path.ancestors
    }
}
