// `Accept: text/event-stream`: a location's value, then its changes, as server-sent events.
import FileStore
import Hummingbird
import JSONTree
import Synchronization

/// The streaming protocol: `put` with the whole value at path `/`, then for each revision of
/// the file the smallest `put` (one location changed) or `patch` (several children of one
/// location changed) that turns the last value sent into the new one; `keep-alive` when idle;
/// `cancel` when the location can no longer be served (or read: the rules deny it, at the start
/// or after the rules or the data changed); `auth_revoked` when the user's ID token expires.
enum EventStream {
    static func response(
        path: Path, parameters: RequestParameters, feed: RevisionFeed, events: EventCache, options: ServeOptions,
        access: Access, requester: Requester
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
            // too far behind, cancelling the task ends that write and the connection.
            let task = withUnsafeCurrentTask { $0.map(TaskHandle.init) }
            mailbox.attach { task?.task.cancel() }
            defer {
                mailbox.detach()
                feed.unsubscribe(mailbox)
            }
            var sent = feed.latest
            if try await end(&writer, access.streamPermission(requester, path, in: sent?.document, now: Access.now())) { return }
            let first = sent.map { ServedValue.value(at: path, in: $0.document, export: export) } ?? .null
            try await writer.write(event("put", path: .root, data: first))
            while true {
                switch await mailbox.next() {
                case .revision(let revision):
                    if try await end(&writer, access.streamPermission(requester, path, in: revision.document, now: Access.now())) {
                        return
                    }
                    // Streams of one location that sent the same revision send the same event:
                    // it is computed once.
                    if let bytes = events.event(path: path, export: export, from: sent, to: revision) {
                        try await writer.write(bytes)
                    }
                    sent = revision
                case .tick:
                    if try await end(&writer, access.streamPermission(requester, path, in: nil, now: Access.now())) { return }
                    try await writer.write(ByteBuffer(string: "event: keep-alive\ndata: null\n\n"))
                case .cancel(let why):
                    try await writer.write(ByteBuffer(bytes: line("cancel", .string(why))))
                    try await writer.finish(nil)
                    return
                case .closed:
                    try await writer.finish(nil)
                    return
                case .dropped:
                    throw ServeError("the stream fell more than \(options.streamBacklogLimit) revisions behind")
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

/// The event each stream of a location sends for a revision, computed by the first stream that
/// needs it; kept for the newest revision only.
final class EventCache: Sendable {
    private struct State {
        var revision = 0
        var events: [String: ByteBuffer?] = [:]
    }

    private let state = Mutex(State())

    /// The event that takes a stream of `path` from what it sent at `old` to `new`; nil when the
    /// location's value did not change.
    func event(path: Path, export: Bool, from old: Revision?, to new: Revision) -> ByteBuffer? {
        let key = "\(export ? "E" : "-")\(old?.number ?? 0) \(path.description)"
        if let kept = state.withLock({ $0.revision == new.number ? $0.events[key] : nil }) { return kept }
        let made = Self.compute(path: path, export: export, from: old, to: new)
        state.withLock { state in
            guard new.number >= state.revision else { return }
            if new.number > state.revision || state.events.count >= 4096 {
                state.revision = new.number
                state.events.removeAll(keepingCapacity: true)
            }
            state.events[key] = made
        }
        return made
    }

    private static func compute(path: Path, export: Bool, from old: Revision?, to new: Revision) -> ByteBuffer? {
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
