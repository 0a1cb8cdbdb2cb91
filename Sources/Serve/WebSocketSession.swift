// The Realtime Database's WebSocket protocol (the client SDKs' transport): one connection.
import StoreInterface
import Foundation
import HummingbirdWebSocket
import JSONTree
import LiveQuery
import NIOCore
import NIOWebSocket
import Synchronization

/// One client SDK's connection: its listens, the onDisconnect writes it left, and what it may do.
///
/// Everything a connection does happens in one loop, one input at a time — a frame from the
/// client, or a revision of the file — so that a listen's data always goes out before its `ok`
/// and never after a newer revision's change. The loop waits on the connection's mailbox itself:
/// a revision wakes it directly, and the client's frames are handed over through it one at a
/// time and waited for, so a client that floods is read no faster than it is answered, and a
/// client that does not read holds at most a few pending revisions.
final class WebSocketSession {
    /// What the loop handles next.
    enum Input: Sendable {
        case text(String)
        case clientClosed
        case feed(Mailbox.Message)
    }

    /// The largest frame a client may send: 16,384 characters of up to three bytes each.
    static let maxFrameBytes = 3 * WebSocketFrames.maxCharacters

    /// How many revisions a session holds before it coalesces them: each write of a burst is a
    /// change of its own for the client's listens (a limited query's client counts them), and
    /// the revisions held are the newest few, shared by every session.
    static let revisionQueue = 8

    private let feed: RevisionFeed
    private let store: StoreThread
    private let options: ServeOptions
    private let cache: WireCache
    private let access: Access
    /// Who the client is: from its `auth` (none yet: a user without credentials).
    private var requester: Requester?
    /// For closing the connection with a reason (the WebSocket closing handshake).
    private let outbound: WebSocketOutboundWriter
    /// Where the session's messages are written, frames straight to the connection's pipeline.
    private let channel: any Channel
    private var frames: FrameAssembler
    private var listens: [ListenKey: Listen] = [:]
    /// The listens in the order a revision brings them up to date; nil once one is added or
    /// removed (made again at the next revision).
    private var listenOrder: [ListenKey]?
    /// Writes to make when the connection ends, in the order they were asked for, each as the
    /// user who asked for it, kept as the compact text of their data (what it costs charged).
    private var onDisconnect: [(path: Path, write: DisconnectWrite, requester: Requester, bytes: Int)] = []
    /// The bytes of the onDisconnect writes' data.
    private var disconnectBytes = 0
    /// What the connection holds, charged against the server's budget.
    let account: MemoryAccount
    /// Since when a message has been unfinished (its frames, or its numbered pieces).
    let unfinished = UnfinishedMessages()
    init(
        feed: RevisionFeed, store: StoreThread, options: ServeOptions, access: Access, cache: WireCache,
        budget: MemoryBudget, outbound: WebSocketOutboundWriter, channel: any Channel
    ) {
        self.feed = feed
        self.store = store
        self.options = options
        self.access = access
        self.cache = cache
        self.outbound = outbound
        self.channel = channel
        frames = FrameAssembler(limit: options.maxBodyBytes)
        account = MemoryAccount(budget)
        // No credential: open without rules or token, `auth` null under rules, nobody behind
        // the token gate until the client authenticates.
        requester = try? access.requester(credential: nil, override: nil, now: Access.now())
    }

    /// Serves the connection until the client leaves or the server stops.
    static func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel, host: String,
        feed: RevisionFeed, store: StoreThread, options: ServeOptions, access: Access, cache: WireCache, budget: MemoryBudget
    ) async {
        guard let mailbox = feed.subscribe(queueLength: Self.revisionQueue) else { return }
        // A client that does not read holds the loop in a write: when it falls too far behind,
        // or the server stops, cancelling the connection's task ends that write.
        let task = withUnsafeCurrentTask { $0.map(ConnectionTask.init) }
        mailbox.attach { task?.task.cancel() }
        let session = WebSocketSession(
            feed: feed, store: store, options: options, access: access, cache: cache, budget: budget, outbound: outbound, channel: channel)
        let client = ClientHandOver(mailbox: mailbox)
        let (account, unfinished) = (session.account, session.unfinished)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var reader = MessageReader(limit: options.maxBodyBytes, account: account, unfinished: unfinished)
                do {
                    var frames = inbound.makeAsyncIterator()
                    while let frame = try await frames.next() {
                        switch reader.take(frame) {
                        case .waiting: continue
                        case .message(let text): await client.hand(.text(text))
                        case .refused(let code, let reason):
                            try? await outbound.close(code, reason: reason)
                            throw CancellationError()
                        }
                    }
                } catch {}
                reader.close()
                await client.hand(.clientClosed)
            }
            // An unfinished message counts as idle: one not whole within the idle timeout of its
            // first frame closes the connection (else a client could hold its bytes forever).
            group.addTask {
                let limit = Duration.milliseconds(options.idleTimeoutMilliseconds)
                while !Task.isCancelled {
                    try? await Task.sleep(for: min(limit / 4, .seconds(1)))
                    guard unfinished.isOverdue(limit) else { continue }
                    try? await outbound.close(.policyViolation, reason: "a message was left unfinished for \(options.idleTimeoutMilliseconds / 1000) s")
                    channel.close(promise: nil)
                    return
                }
            }
            await session.start(host: host)
            loop: while true {
                // The mailbox's message first (revisions are never held back by the client's
                // frames), then the client's frame that came meanwhile, if any.
                let message = await mailbox.next()
                guard await session.handle(.feed(message)) else { break }
                if case .cancel = message {
                    // The location is gone and the mailbox ended: the client's frames alone.
                    while true {
                        let (input, handled) = await client.next()
                        let goOn = await session.handle(input)
                        handled.resume()
                        if !goOn { break loop }
                    }
                }
                if let (input, handled) = client.take() {
                    let goOn = await session.handle(input)
                    handled.resume()
                    if !goOn { break loop }
                }
            }
            client.close()
            // From now on, dropping the mailbox (or the server stopping) must not cancel this task.
            mailbox.detach()
            feed.unsubscribe(mailbox)
            group.cancelAll()
        }
        await session.disconnected()
        account.close()
    }

    // MARK: - The loop's steps

    private func start(host: String) async {
        // The server's time, one millisecond early: the client estimates server time from it
        // (for its local view of a server timestamp), and that estimate must come before the time
        // the server gives the write, as it does over any real network. On loopback, within the
        // same millisecond, the two could be equal, and the client would then see no change
        // when the server's value arrives.
        let hello: JSON = [
            "t": "h",
            "d": ["ts": .number(JSONNumber(Self.now - 1)), "v": "5", "h": .string(host), "s": .string(Self.sessionID())],
        ]
        await send(["t": "c", "d": hello])
    }

    /// Handles one input; false when the connection should end.
    private func handle(_ input: Input) async -> Bool {
        switch input {
        case .clientClosed:
            return false
        case .feed(.revision(let revision)):
            await follow(revision)
            return true
        case .feed(.tick):
            return true
        case .feed(.cancel(let why)):
            for (key, listen) in listens {
                await send(["t": "d", "d": ["a": "c", "b": ["p": .string(listen.wirePath), "d": .string(why)]]])
                listens[key] = nil
                listenOrder = nil
            }
            return true
        case .feed(.closed), .feed(.dropped):
            return false
        case .text(let text):
            let held = frames.heldBytes
            let step = frames.take(text)
            if frames.isAssembling { unfinished.piecesStarted() } else { unfinished.piecesEnded() }
            // The pieces held for a split message are charged while they wait.
            if frames.heldBytes > held, let refusal = account.charge(frames.heldBytes - held) {
                try? await outbound.close(.policyViolation, reason: refusal)
                return false
            }
            if frames.heldBytes < held { account.release(held - frames.heldBytes) }
            switch step {
            case .waiting: return true
            case .tooLarge:
                try? await outbound.close(.messageTooLarge, reason: "a message is over \(options.maxBodyBytes) bytes")
                return false
            case .message(let message):
                // What the message costs once parsed is charged before it is parsed.
                let cost = parsedCost(message.utf8)
                if let refusal = account.charge(cost) {
                    try? await outbound.close(.policyViolation, reason: "a message would cost \(cost) bytes once read: \(refusal)")
                    return false
                }
                defer { account.release(cost) }
                return await received(message)
            }
        }
    }

    /// A whole message from the client.
    private func received(_ message: String) async -> Bool {
        guard let envelope = try? JSONDocument(parsing: Array(message.utf8)).root.json, case .object(let outer) = envelope,
            let layer = outer["t"]?.stringValue, case .object(let body)? = outer["d"]
        else {
            try? await outbound.close(.protocolError, reason: "a message is not a protocol envelope")
            return false
        }
        if layer == "c" {
            // The only control message a client sends is a ping.
            if body["t"]?.stringValue == "p" { await send(["t": "c", "d": ["t": "o", "d": [:]]]) }
            return true
        }
        guard layer == "d", let action = body["a"]?.stringValue else { return true }
        let request = body["r"]
        let arguments = body["b"]?.objectValue ?? JSONObject()
        let answer: Answer
        do throws(WireError) {
            answer = try await perform(action, arguments)
        } catch {
            answer = Answer(status: "error", data: .string(error.message))
        }
        if let request {
            await send(["t": "d", "d": ["r": request, "b": ["s": .string(answer.status), "d": answer.data]]])
        } else {
            await flush()
        }
        return true
    }

    /// A request's outcome: `ok`, or the error the SDKs know (`permission_denied`, `datastale`, …).
    private struct Answer {
        var status = "ok"
        var data: JSON = ""
    }

    private func perform(_ action: String, _ b: JSONObject) async throws(WireError) -> Answer {
        switch action {
        case "s", "unappeck", "appcheck":
            return Answer(data: [:])
        case "auth", "gauth":
            // The Admin SDK acting as a user sends `authvar` (an object) or `noauth` (null).
            let override = b["authvar"].map { String(decoding: $0.serialized(.compact), as: UTF8.self) }
                ?? (b["noauth"]?.boolValue == true ? "null" : nil)
            do throws(RequestError) {
                requester = try access.requester(credential: b["cred"]?.stringValue, override: override, now: Access.now())
                return Answer(data: [:])
            } catch {
                requester = nil
                return Answer(status: "invalid_token", data: .string(error.message))
            }
        case "unauth":
            requester = try? access.requester(credential: nil, override: nil, now: Access.now())
            return Answer(data: [:])
        default:
            break
        }
        guard let requester else { return Answer(status: "permission_denied", data: "a valid credential is needed (auth)") }
        switch action {
        case "q": return try listen(b, as: requester)
        case "n":
            let path = try Self.path(b["p"])
            listens[ListenKey(path: path, tag: try Self.tag(b["t"]))] = nil
            listenOrder = nil
            return Answer()
        case "g":
            let path = try Self.path(b["p"])
            let query = try WireQuery.query(b["q"]?.objectValue)
            guard let revision = feed.latest else { return Answer(status: "unavailable", data: "the file has not been read yet") }
            guard access.mayRead(requester, path, query: WireQuery.ruleQuery(b["q"]?.objectValue), in: revision.document, now: Access.now()) else {
                return Self.denied
            }
            return Answer(data: Self.data(at: path, query: query, in: revision))
        case "p", "m":
            guard !options.readOnly else { return Answer(status: "permission_denied", data: "the database is served read-only") }
            let path = try Self.path(b["p"])
            let data = b["d"] ?? .null
            return try await write(action == "p" ? .put : .merge, path: path, data: data, hash: b["h"]?.stringValue, as: requester)
        case "o", "om":
            guard !options.readOnly else { return Answer(status: "permission_denied", data: "the database is served read-only") }
            let path = try Self.path(b["p"])
            let data = b["d"] ?? .null
            _ = try Self.plan(action == "o" ? .put : .merge, path: path, data: data, hash: nil)
            // Kept as text, which costs its bytes; parsed again when the connection ends.
            let text = data.serialized(.compact)
            guard onDisconnect.count < options.maxListensPerConnection, disconnectBytes + text.count <= options.maxBodyBytes else {
                return Answer(status: "too_big", data: .string("a connection's onDisconnect writes are at most \(options.maxListensPerConnection), of \(options.maxBodyBytes) bytes in all"))
            }
            if let refusal = account.charge(text.count) { return Answer(status: "too_big", data: .string(refusal)) }
            disconnectBytes += text.count
            onDisconnect.append((path, action == "o" ? .put(text) : .merge(text), requester, text.count))
            return Answer()
        case "oc":
            let path = try Self.path(b["p"])
            onDisconnect.removeAll { $0.path.keys.starts(with: path.keys) }
            let kept = onDisconnect.reduce(0) { $0 + $1.bytes }
            account.release(disconnectBytes - kept)
            disconnectBytes = kept
            return Answer()
        default:
            throw WireError("unknown action '\(action)'")
        }
    }

    // MARK: - Listens

    /// A listen's tag, range-checked where it is converted: an integer a JavaScript number holds
    /// exactly, or none.
    static func tag(_ value: JSON?) throws(WireError) -> Int? {
        guard let value, !value.isNull else { return nil }
        guard let n = value.doubleValue, n == n.rounded(), abs(n) <= 9_007_199_254_740_991 else {
            throw WireError("a listen's tag must be a whole number between -2^53 and 2^53")
        }
        return Int(n)
    }

    private static let denied = Answer(status: "permission_denied", data: "Permission denied")

    private func listen(_ b: JSONObject, as requester: Requester) throws(WireError) -> Answer {
        let path = try Self.path(b["p"])
        let tag = try Self.tag(b["t"])
        let query = tag == nil ? nil : try WireQuery.query(b["q"]?.objectValue)
        guard let revision = feed.latest else { return Answer(status: "unavailable", data: "the file has not been read yet") }
        let ruleQuery = tag == nil ? JSON.null : WireQuery.ruleQuery(b["q"]?.objectValue)
        // Rules are not filters: a listen whose location the user may not read whole is refused.
        guard access.mayRead(requester, path, query: ruleQuery, in: revision.document, now: Access.now()) else { return Self.denied }
        let key = ListenKey(path: path, tag: tag)
        if listens[key] == nil && listens.count >= options.maxListensPerConnection {
            return Answer(status: "too_big", data: .string("a connection listens to at most \(options.maxListensPerConnection) locations at once"))
        }
        var listen = Listen(path: path, wirePath: b["p"]?.stringValue ?? "/", query: query, tag: tag, revision: revision)
        listen.ancestors = path.ancestors
        listen.ruleQuery = ruleQuery
        listen.wireQuery = b["q"] ?? .null
        // The data goes out before the `ok` (the SDK raises its events on the data).
        var initial = JSONObject([("p", .string(listen.wirePath))])
        if let query {
            let window = cache.window(path: path, query: query, in: revision)
            initial = JSONObject([("p", .string(listen.wirePath)), ("d", Self.object(window)), ("t", .number(JSONNumber(tag ?? 0)))])
        } else {
            initial = JSONObject([("p", .string(listen.wirePath)), ("d", ServedValue.value(at: path, in: revision.document, export: true))])
        }
        listens[key] = listen
        listenOrder = nil
        pending.append(WireMessage(Self.text(["t": "d", "d": ["a": "d", "b": .object(initial)]])))
        return Answer(data: [:])
    }

    /// Messages to send before the answer of the request being handled.
    private var pending: [WireMessage] = []

    /// Brings every listen from the revision it last sent to `revision`.
    private func follow(_ revision: Revision) async {
        if listenOrder == nil { listenOrder = listens.keys.sorted { $0.order < $1.order } }
        var revoked = [ListenKey]()
        for key in listenOrder ?? [] {
            // (Nothing else changes the listens while this runs: their indexes hold.)
            guard let index = listens.index(forKey: key) else { continue }
            let listen = listens.values[index]
            // The rules or the data changed (the same revision comes again when only the rules
            // did): a listen the user may no longer read is revoked.
            if let requester, !access.mayRead(requester, listen.path, query: listen.ruleQuery, in: revision.document, now: Access.now()) {
                var cancel = JSONObject([("p", .string(listen.wirePath))])
                if let tag = listen.tag { cancel = JSONObject([("p", .string(listen.wirePath)), ("q", listen.wireQuery), ("t", .number(JSONNumber(tag)))]) }
                await send(["t": "d", "d": ["a": "c", "b": .object(cancel)]])
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
                        await send(["t": "d", "d": ["a": "m", "b": ["p": .string(listen.wirePath), "d": change, "t": .number(JSONNumber(listen.tag ?? 0))]]])
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

    // MARK: - Writes

    private enum WriteKind { case put, merge }

    /// An onDisconnect write's data, as compact JSON text.
    private enum DisconnectWrite {
        case put([UInt8])
        case merge([UInt8])
    }

    private static func plan(_ kind: WriteKind, path: Path, data: JSON, hash: String?) throws(WireError) -> WritePlan {
        do {
            switch kind {
            case .put:
                if data.isNull { return try WritePlan(method: .delete, path: path, content: .null, ifMatch: nil, ifHash: hash) }
                return try WritePlan(method: .put, path: path, content: data, ifMatch: nil, ifHash: hash)
            case .merge:
                return try WritePlan(method: .patch, path: path, content: data, ifMatch: nil, ifHash: hash)
            }
        } catch {
            throw WireError(error.message)
        }
    }

    private func write(_ kind: WriteKind, path: Path, data: JSON, hash: String?, as requester: Requester) async throws(WireError) -> Answer {
        let checkedPlan = try Self.plan(kind, path: path, data: data, hash: hash).decided(by: access, for: requester)
        let outcome: WritePlan.Outcome
        do {
            outcome = try await store.perform { store in checkedPlan.apply(to: store) }
        } catch {
            return Answer(status: "unavailable", data: .string(error.description))
        }
        switch outcome {
        case .written, .appended:
            // The store has published the write's revision: the client's listens hear of it
            // before the `ok` (the SDK drops its own pending write on the `ok`, and would show
            // the old value in between).
            if let latest = feed.latest { await follow(latest) }
            return Answer()
        case .preconditionFailed:
            await catchUp(path: path, from: hash)
            return Answer(status: "datastale", data: "the value changed")
        case .failed(let error) where error.status == .unauthorized: return Self.denied
        case .failed(let error): return Answer(status: "error", data: .string(error.message))
        }
    }

    /// A transaction's put found another value than the client's: the client reruns it on the
    /// value its listen holds, so that value must reach it before the `datastale` (else it
    /// retries on the same stale value and gives up after 25 tries). The value the write saw is
    /// on disk; the store publishes it shortly, if another process wrote it.
    private func catchUp(path: Path, from hash: String?) async {
        let deadline = ContinuousClock.now + .seconds(1)
        while let hash, ContinuousClock.now < deadline {
            if let latest = feed.latest, NodeHash.of(ServedValue.value(at: path, in: latest.document, export: true)) != hash { break }
            try? await Task.sleep(for: .milliseconds(2))
        }
        if let latest = feed.latest { await follow(latest) }
    }

    /// The connection ended: the writes it left for that moment are made, in order.
    private func disconnected() async {
        for (path, write, requester, _) in onDisconnect {
            let plan: WritePlan?
            switch write {
            case .put(let text):
                plan = (try? JSONDocument(parsing: text).root.json).flatMap { try? Self.plan(.put, path: path, data: $0, hash: nil) }
            case .merge(let text):
                plan = (try? JSONDocument(parsing: text).root.json).flatMap { try? Self.plan(.merge, path: path, data: $0, hash: nil) }
            }
            guard let plan = plan?.decided(by: access, for: requester) else { continue }
            _ = try? await store.perform { store in plan.apply(to: store) }
        }
        onDisconnect = []
    }

    // MARK: - Sending

    /// Sends `message` (after any data that must precede it), split into frames when long.
    private func send(_ message: JSON) async {
        await send(serialized: WireMessage(Self.text(message)))
    }

    private func send(serialized message: WireMessage) async {
        pending.append(message)
        await flush()
    }

    /// Writes the pending messages' frames to the connection in one hop to its event loop.
    ///
    /// While the connection takes them, nothing is awaited. Once its buffer is past its
    /// high-water mark (the client is not reading), the loop waits until these frames are
    /// written: meanwhile revisions coalesce in the mailbox, which drops the connection (cancels
    /// its task, closing it, which ends the wait) when it falls too far behind.
    private func flush() async {
        var frames = [WebSocketFrame]()
        for message in pending {
            for frame in message.frames { frames.append(WebSocketFrame(fin: true, opcode: .text, data: frame)) }
        }
        pending = []
        guard let last = frames.last else { return }
        let channel = self.channel
        let written = channel.isWritable ? nil : channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            for frame in frames.dropLast() { channel.write(frame, promise: nil) }
            channel.writeAndFlush(last, promise: written)
        }
        guard let written else { return }
        // A future's wait does not end when the task is cancelled: closing the channel fails
        // the write, which does.
        await withTaskCancellationHandler {
            try? await written.futureResult.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    // MARK: - Values

    static func data(at path: Path, query: Query?, in revision: Revision) -> JSON {
        guard let query else { return ServedValue.value(at: path, in: revision.document, export: true) }
        let rows = Window(query: query, path: path, document: revision.document).map { ($0.key, ServedValue.value($0.value, export: true)) }
        return rows.isEmpty ? .null : .object(JSONObject(rows))
    }

    static func object(_ window: [(key: String, value: JSON)]) -> JSON {
        window.isEmpty ? .null : .object(JSONObject(window))
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

    static func wirePath(_ path: Path) -> String { "/" + path.keys.joined(separator: "/") }

    static func text(_ message: JSON) -> String { String(decoding: message.serialized(.compact), as: UTF8.self) }

    private static var now: Int { Int(Date().timeIntervalSince1970 * 1000) }

    private static func sessionID() -> String {
        String((0..<20).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
    }
}

/// The connection's task, to cancel it from the feed while the session is attached to its
/// mailbox (`detach` happens before the task ends, so the handle is never used after).
private struct ConnectionTask: @unchecked Sendable {
    let task: UnsafeCurrentTask
}

/// The client's frames on their way to the session's loop, one at a time: the connection's reader
/// leaves a frame here, wakes the loop through its mailbox (a tick: nothing to send), or directly
/// once the mailbox has ended, and waits until the loop has handled it.
private final class ClientHandOver: Sendable {
    typealias Handed = (input: WebSocketSession.Input, handled: CheckedContinuation<Void, Never>)

    private struct State {
        var input: Handed?
        /// The loop, its mailbox ended, waiting for the client's next frame.
        var loop: CheckedContinuation<Handed, Never>?
        var closed = false
    }

    private enum Wake {
        case mailbox
        case loop(CheckedContinuation<Handed, Never>)
        case nobody
    }

    private let state = Mutex(State())
    private let mailbox: Mailbox

    init(mailbox: Mailbox) { self.mailbox = mailbox }

    /// From the reader: returns once the loop has handled `input`, or has ended.
    func hand(_ input: WebSocketSession.Input) async {
        await withCheckedContinuation { handled in
            let wake = state.withLock { state -> Wake in
                guard !state.closed else { return .nobody }
                if let loop = state.loop {
                    state.loop = nil
                    return .loop(loop)
                }
                state.input = (input, handled)
                return .mailbox
            }
            switch wake {
            case .mailbox: mailbox.post(.tick)
            case .loop(let loop): loop.resume(returning: (input, handled))
            case .nobody: handled.resume()
            }
        }
    }

    /// From the loop: the frame waiting, if any; the loop resumes its reader once it is handled.
    func take() -> Handed? {
        state.withLock { state in
            defer { state.input = nil }
            return state.input
        }
    }

    /// From the loop once its mailbox has ended: the client's next frame (the reader always
    /// hands one more, `clientClosed`, when its connection or task ends).
    func next() async -> Handed {
        await withCheckedContinuation { loop in
            let ready = state.withLock { state -> Handed? in
                if let input = state.input {
                    state.input = nil
                    return input
                }
                state.loop = loop
                return nil
            }
            if let ready { loop.resume(returning: ready) }
        }
    }

    /// The loop has ended: the reader waits no more.
    func close() {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.input = nil }
            return state.input
        }
        waiting?.handled.resume()
    }
}

/// A listen: untagged (the location's whole value) or tagged (a query's window).
private struct ListenKey: Hashable {
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

private struct Listen {
    let path: Path
    let wirePath: String
    let query: Query?
    let tag: Int?
    /// The revision whose data the client was last sent.
    var revision: Revision
    /// The rules' `query` variable for it (null for the location's whole value).
    var ruleQuery: JSON = .null
    /// The query as the client sent it (`q`), to name the listen when it is revoked.
    var wireQuery: JSON = .null
    /// The locations above it (not the root), shortest first: where one did not change, the
    /// listen's did not either.
    var ancestors: [Path] = []
}
