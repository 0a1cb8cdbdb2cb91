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
        // The data goes out before the `ok` (the SDK raises its events on the data).
        let data: JSON
        if let query = request.query {
            data = Self.object(cache.window(path: request.path, query: query, in: revision))
        } else {
            data = ServedValue.value(at: request.path, in: revision.document, export: true)
        }
        if listens.isEmpty { base = revision }
        // Sent at a newer revision than the others were: it follows from there.
        ahead[key] = revision.number > (base?.number ?? 0) ? revision : nil
        listens.insert(Listen(request))
        pending.append(ServerMessage.data(path: request.wirePath, data: data, tag: request.query == nil ? nil : request.tag ?? 0).wire)
        return Answer(data: [:])
    }

    func unlisten(_ key: ListenKey) {
        listens.remove(key)
        ahead[key] = nil
    }

    /// Brings every listen from the revision it was last sent to `revision`: their messages are
    /// pending, written with the next flush.
    func follow(_ revision: Revision) {
        // The rules or the data changed (the same revision comes again when only the rules
        // did): a listen the user may no longer read is revoked.
        if let requester, access.judgesReads(of: requester) { revokeUnreadable(in: revision, as: requester) }
        guard let base, revision.number > base.number else { return }
        // Only the listens where their location changed are visited (most often, a location
        // above them did not).
        listens.forEachChanged({ !cache.isUnchanged(path: $0, from: base, to: revision) }) { listen in
            if ahead.isEmpty || ahead[listen.key] == nil { bring(listen, from: base, to: revision) }
        }
        for (key, since) in ahead.sorted(by: { $0.key.precedes($1.key) }) where since.number <= revision.number {
            if let listen = listens[key], since.number < revision.number, !cache.isUnchanged(path: key.path, from: since, to: revision) {
                bring(listen, from: since, to: revision)
            }
            ahead[key] = nil
        }
        self.base = revision
    }

    /// The message bringing `listen` from `old` to `new`, if its data differs, made pending.
    private func bring(_ listen: Listen, from old: Revision, to new: Revision) {
        if let query = listen.query {
            // The window last sent is made again from its revision (a listen holds no copy of
            // it: identical queries share one, within the cache's bytes).
            let sent = cache.window(path: listen.path, query: query, in: old)
            let window = cache.window(path: listen.path, query: query, in: new)
            if let change = Self.merge(from: sent, to: window) {
                pending.append(ServerMessage.merge(path: listen.wirePath, data: change, tag: listen.tag ?? 0).wire)
            }
        } else if let push = cache.push(path: listen.path, from: old, to: new) {
            pending.append(push)
        }
    }

    private func revokeUnreadable(in revision: Revision, as requester: Requester) {
        var revoked = [Listen]()
        let now = Access.now()
        listens.forEach { listen in
            if !access.mayRead(requester, listen.path, query: listen.ruleQuery, in: revision.document, now: now) { revoked.append(listen) }
        }
        for listen in revoked {
            pending.append(ServerMessage.revoked(path: listen.wirePath, query: listen.wireQuery, tag: listen.tag).wire)
            unlisten(listen.key)
        }
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

    /// The order of the listens' messages when several follow from their own revisions.
    func precedes(_ other: ListenKey) -> Bool {
        path == other.path ? (tag ?? -1) < (other.tag ?? -1) : path.keys.lexicographicallyPrecedes(other.path.keys)
    }
}

struct Listen {
    let path: Path
    let wirePath: String
    let query: Query?
    let tag: Int?
    /// The rules' `query` variable for it (null for the location's whole value).
    let ruleQuery: JSON
    /// The query as the client sent it (`q`), to name the listen when it is revoked.
    let wireQuery: JSON

    init(_ request: ListenRequest) {
        path = request.path
        wirePath = request.wirePath
        query = request.query
        tag = request.tag
        ruleQuery = request.ruleQuery
        wireQuery = request.wireQuery
    }

    var key: ListenKey { ListenKey(path: path, tag: tag) }
}
