// `Accept: text/event-stream`: a location's value, then its changes, as server-sent events.
import StoreInterface
import Hummingbird
import JSONTree
import NIOCore
import Synchronization

/// The streaming protocol: `put` with the whole value at path `/`, then for each revision of
/// the file the smallest `put` (one location changed) or `patch` (several children of one
/// location changed) that turns the last value sent into the new one; `keep-alive` when idle;
/// `cancel` when the location can no longer be served (or read: the rules deny it, at the start
/// or after the rules or the data changed); `auth_revoked` when the user's ID token expires.
enum EventStream {
    static func response(
        path: Path, parameters: RequestParameters, feed: RevisionFeed, events: RevisionCache<EventBytes>,
        channel: any Channel, options: ServeOptions, access: Access, requester: Requester
    ) throws(RequestError) -> Response {
        if parameters.query != nil || parameters.shallow {
            throw RequestError(.badRequest, "streaming is of a location's whole value: no orderBy, range, limit or shallow")
        }
        guard let mailbox = feed.subscribe() else {
            throw RequestError(.serviceUnavailable, "the server is stopping")
        }
        let export = parameters.export
        let body = ResponseBody { writer in
            // A client that stops reading leaves this task waiting in a write; when it falls
            // too far behind, or the server stops, cancelling the task ends that write and the
            // connection.
            let task = withUnsafeCurrentTask { $0.map(TaskHandle.init) }
            mailbox.attach { task?.task.cancel() }
            defer {
                mailbox.detach()
                feed.unsubscribe(mailbox)
            }
            let out = EventWriter(mailbox: mailbox, channel: channel)
            var sent = feed.latest
            if try await end(&writer, access.streamPermission(requester, path, in: sent?.document, now: Access.now())) { return }
            if let first = sent {
                // Every stream of a location opened at this revision sends the same put: it is
                // serialised once.
                let put = await events.answer(revision: first.number, key: Self.key("P", path, export)) {
                    let value = ServedValue.value(at: path, in: first.document, export: export)
                    return EventBytes(event("put", path: .root, data: value))
                }
                if let bytes = put.buffer { try await out.send(bytes, to: &writer) }
            } else {
                try await out.send(event("put", path: .root, data: .null), to: &writer)
            }
            while true {
                switch await mailbox.next() {
                case .revision(let revision):
                    if try await end(&writer, access.streamPermission(requester, path, in: revision.document, now: Access.now())) {
                        return
                    }
                    // Streams of one location that sent the same revision send the same event:
                    // it is computed once.
                    let key = Self.key("D\(sent?.number ?? 0)", path, export)
                    let change = await events.answer(revision: revision.number, key: key) { [sent] in
                        EventBytes(Self.change(path: path, export: export, from: sent, to: revision))
                    }
                    if let bytes = change.buffer { try await out.send(bytes, to: &writer) }
                    sent = revision
                case .tick:
                    if try await end(&writer, access.streamPermission(requester, path, in: nil, now: Access.now())) { return }
                    try await out.send(ByteBuffer(string: "event: keep-alive\ndata: null\n\n"), to: &writer)
                case .cancel(let why):
                    try await out.send(ByteBuffer(bytes: line("cancel", .string(why))), to: &writer)
                    try await writer.finish(nil)
                    return
                case .closed:
                    try await writer.finish(nil)
                    return
                case .dropped(let why):
                    throw ServeError("the stream was dropped: \(why)")
                }
            }
        }
        var headers = HTTPFields()
        // The charset named: without it, clients such as the Admin SDK's decode the events as Latin-1.
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Ends a stream its user may no longer read with the database's event (in its words, which
    /// clients match); whether it ended.
    private static func end(_ writer: inout any ResponseBodyWriter, _ permission: StreamPermission) async throws -> Bool {
        switch permission {
        case .allowed: return false
        case .denied: try await writer.write(ByteBuffer(string: "event: cancel\ndata: null\n\n"))
        case .expired: try await writer.write(ByteBuffer(string: "event: auth_revoked\ndata: credential is no longer valid\n\n"))
        }
        try await writer.finish(nil)
        return true
    }

    /// An event's key in the cache: what it is (`P` the first put, `D` and a revision number
    /// the change from that revision), the format and the location, as bytes.
    private static func key(_ what: String, _ path: Path, _ export: Bool) -> [UInt8] {
        let format: [UInt8] = [0, export ? 0x45 : 0x2D]
        return Array(what.utf8) + format + Array(path.keys.joined(separator: "/").utf8)
    }

    static func event(_ name: String, path: Path, data: JSON) -> ByteBuffer {
        // Database paths, not JSON pointers: keys joined by "/", no escapes ("/" cannot be in a key).
        let payload = JSON.object(JSONObject([("path", .string("/" + path.keys.joined(separator: "/"))), ("data", data)]))
        return ByteBuffer(bytes: line(name, payload))
    }

    /// One event; JSON text has no raw newlines, so its data is one line.
    private static func line(_ name: String, _ data: JSON) -> [UInt8] {
        var out = Array("event: \(name)\ndata: ".utf8)
        data.write(to: &out, style: .compact, depth: 0)
        out.append(contentsOf: "\n\n".utf8)
        return out
    }
}

/// An event's bytes (nil: the revision changed nothing at the location), as kept in the cache.
struct EventBytes: ByteSized {
    let buffer: ByteBuffer?
    init(_ buffer: ByteBuffer?) { self.buffer = buffer }
    var byteCount: Int { buffer?.readableBytes ?? 0 }
}

extension EventStream {
    /// The event that takes a stream of `path` from what it sent at `old` to `new`; nil when the
    /// location's value did not change.
    static func change(path: Path, export: Bool, from old: Revision?, to new: Revision) -> ByteBuffer? {
        let change = StreamChange.between(old?.document.root.node(at: path), new.document.root.node(at: path), export: export)
        return change.map { EventStream.event($0.name, path: $0.path, data: $0.data) }
    }
}

/// The running stream's task, to cancel it from the store thread while the stream is attached
/// to its mailbox (`detach` happens before the task ends, so the handle is never used after).
private struct TaskHandle: @unchecked Sendable {
    let task: UnsafeCurrentTask
}

/// The one event that turns `old` into `new`, relative to the streamed location.
struct StreamChange: Equatable {
    let name: String
    let path: Path
    let data: JSON

    init(name: String, path: Path, data: JSON) {
        self.name = name
        self.path = path
        self.data = data
    }

    /// nil when the values are equal.
    init?(from old: JSON, to new: JSON) {
        var path = Path.root
        var old = old
        var new = new
        while true {
            if old == new { return nil }
            guard let oldChildren = Self.children(old), let newChildren = Self.children(new) else { break }
            var changed = [(key: String, value: JSON)]()
            for (key, value) in newChildren.members where oldChildren[key].map({ !($0 == value) }) ?? true {
                changed.append((key, value))
            }
            for key in oldChildren.keys where newChildren[key] == nil { changed.append((key, .null)) }
            if changed.isEmpty { break }  // the same children, as an array and as an object
            if changed.count == 1 {
                // One child differs: descend, so the event names the deepest location that changed.
                let key = changed[0].key
                path = path.child(key)
                old = oldChildren[key] ?? .null
                new = newChildren[key] ?? .null
                continue
            }
            self.name = "patch"
            self.path = path
            self.data = .object(JSONObject(changed))
            return
        }
        self.name = "put"
        self.path = path
        self.data = new
    }

    /// The same event computed on the parsed trees: only the children that differ are
    /// converted, so a stream of a large location costs what changed, not the location's size.
    /// - Complexity: O(children of each location on the way down to the change).
    static func between(_ old: JSONNode?, _ new: JSONNode?, export: Bool) -> StreamChange? {
        var path = Path.root
        var old = old.flatMap { $0.isNull ? nil : $0 }
        var new = new.flatMap { $0.isNull ? nil : $0 }
        while true {
            guard let o = old, let n = new else {
                if old == nil && new == nil { return nil }
                return StreamChange(name: "put", path: path, data: new.map { ServedValue.value($0, export: export) } ?? .null)
            }
            if o.hasSameBytes(as: n) { return nil }
            guard o.kind == n.kind, o.isContainer, export || (!hasMetadata(o) && !hasMetadata(n)) else {
                // A leaf, a change of kind, or priorities to leave out: compare the served values.
                return StreamChange(from: ServedValue.value(o, export: export), to: ServedValue.value(n, export: export))
                    .map { StreamChange(name: $0.name, path: path.appending($0.path), data: $0.data) }
            }
            let before = children(o)
            var seen = Set<JSONKey>()
            var changed = [(key: String, node: JSONNode?)]()
            for (key, child) in orderedChildren(n) {
                seen.insert(JSONKey(key))
                if let previous = before[JSONKey(key)], previous.valueEquals(child) { continue }
                changed.append((key, child))
            }
            for (key, _) in orderedChildren(o) where !seen.contains(JSONKey(key)) { changed.append((key, nil)) }
            if changed.isEmpty { return nil }
            if changed.count == 1 {
                path = path.child(changed[0].key)
                old = before[JSONKey(changed[0].key)]
                new = changed[0].node
                continue
            }
            let data = changed.map { (key: $0.key, value: $0.node.map { ServedValue.value($0, export: export) } ?? .null) }
            return StreamChange(name: "patch", path: path, data: .object(JSONObject(data)))
        }
    }

    /// A container's children by key (an array's by index), nulls left out.
    private static func children(_ node: JSONNode) -> [JSONKey: JSONNode] {
        var out = [JSONKey: JSONNode]()
        out.reserveCapacity(node.count)
        for (key, child) in orderedChildren(node) { out[JSONKey(key)] = child }
        return out
    }

    private static func orderedChildren(_ node: JSONNode) -> [(String, JSONNode)] {
        if node.kind == .array {
            return node.elements.enumerated().compactMap { $0.element.isNull ? nil : (String($0.offset), $0.element) }
        }
        return node.members.compactMap { m in m.value.isNull ? nil : (m.key.stringValue!, m.value) }
    }

    /// Whether an object has `.priority` or `.value` members (left out of a served value).
    private static func hasMetadata(_ node: JSONNode) -> Bool {
        node.kind == .object && node.members.contains { $0.key.stringEquals(".priority") || $0.key.stringEquals(".value") }
    }

    /// An object's members, or an array's elements keyed by index; nil for a leaf or null.
    private static func children(_ value: JSON) -> JSONObject? {
        switch value {
        case .object(let o): return o
        case .array(let a):
            return JSONObject(a.enumerated().compactMap { $0.element.isNull ? nil : (String($0.offset), $0.element) })
        default: return nil
        }
    }
}
