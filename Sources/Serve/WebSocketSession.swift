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
actor WebSocketSession {
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

    let feed: RevisionFeed
    let store: StoreThread
    let options: ServeOptions
    let cache: WireCache
    let access: Access
    /// Who the client is: from its `auth` (none yet: a user without credentials).
    var requester: Requester?
    /// For closing the connection with a reason (the WebSocket closing handshake).
    private let outbound: WebSocketOutboundWriter
    /// Where the session's messages are written, frames straight to the connection's pipeline.
    let channel: any Channel
    /// Its frame encoder, past which the messages' frames are written (framed once for all).
    var frameEncoder: ChannelHandlerContext?
    private var frames: FrameAssembler
    var listens = ListenTree()
    /// The revision the listens were last brought to, and those sent a newer one since (each
    /// follows from its own until the others reach it).
    var base: Revision?
    var ahead: [ListenKey: Revision] = [:]
    /// Writes to make when the connection ends, in the order they were asked for.
    var left = LeftWrites()
    /// Messages to send before the answer of the request being handled.
    var pending: [WireMessage] = []
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
        feed: RevisionFeed, store: StoreThread, options: ServeOptions, access: Access, cache: WireCache, budget: MemoryBudget,
        sweeper: UnfinishedSweeper
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
        // An unfinished message counts as idle: one not whole within the idle timeout of its
        // first frame closes the connection (else a client could hold its bytes forever).
        sweeper.watch(unfinished) {
            try? await outbound.close(.policyViolation, reason: "a message was left unfinished for \(options.idleTimeoutMilliseconds / 1000) s")
            channel.close(promise: nil)
        }
        // While the session waits for its mailbox, a revision is followed on its event loop
        // at once, without waking its task.
        mailbox.deliverWhileWaiting(on: channel.eventLoop) { revision in
            session.assumeIsolated { $0.followDirectly(revision) }
        }
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
            await session.run(host: host, mailbox: mailbox, client: client)
            client.close()
            // From now on, dropping the mailbox (or the server stopping) must not cancel this task.
            mailbox.detach()
            feed.unsubscribe(mailbox)
            sweeper.unwatch(unfinished)
            group.cancelAll()
        }
        await session.disconnected()
        account.close()
    }

    /// The session runs on its connection's event loop: a revision wakes it there directly, and
    /// its frames are written without another hop.
    nonisolated var unownedExecutor: UnownedSerialExecutor { channel.eventLoop.executor.asUnownedSerialExecutor() }

    /// The connection's loop: one input at a time, until the client leaves or the server stops.
    private func run(host: String, mailbox: Mailbox, client: ClientHandOver) async {
        await start(host: host)
        loop: while true {
            // The mailbox's message first (revisions are never held back by the client's
            // frames), then the client's frame that came meanwhile, if any.
            let message = await mailbox.next()
            guard await handle(.feed(message)) else { break }
            if case .cancel = message {
                // The location is gone and the mailbox ended: the client's frames alone.
                while true {
                    let (input, handled) = await client.next()
                    let goOn = await handle(input)
                    handled.resume()
                    if !goOn { break loop }
                }
            }
            if let (input, handled) = client.take() {
                let goOn = await handle(input)
                handled.resume()
                if !goOn { break loop }
            }
        }
    }

    // MARK: - The loop's steps

    private func start(host: String) async {
        frameEncoder = Self.encoderContext(of: channel)
        // The server's time, one millisecond early: the client estimates server time from it
        // (for its local view of a server timestamp), and that estimate must come before the time
        // the server gives the write, as it does over any real network. On loopback, within the
        // same millisecond, the two could be equal, and the client would then see no change
        // when the server's value arrives.
        await send(.hello(milliseconds: Self.now - 1, host: host, session: Self.sessionID()))
    }

    /// Handles one input; false when the connection should end.
    private func handle(_ input: Input) async -> Bool {
        switch input {
        case .clientClosed:
            return false
        case .feed(.revision(let revision)):
            follow(revision)
            await flush()
            return true
        case .feed(.tick):
            return true
        case .feed(.cancel(let why)):
            listens.forEach { pending.append(ServerMessage.cancelled(path: $0.wirePath, why: why).wire) }
            listens.removeAll()
            ahead = [:]
            await flush()
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
    private func received(_ text: String) async -> Bool {
        switch ClientMessage(decoding: text) {
        case nil:
            try? await outbound.close(.protocolError, reason: "a message is not a protocol envelope")
            return false
        case .ping?:
            await send(.pong)
        case .ignored?:
            break
        case .request(let number, let request)?:
            let answer: Answer
            switch request {
            case .success(let request): answer = await perform(request)
            case .failure(let error): answer = Answer(status: "error", data: .string(error.message))
            }
            if let number {
                await send(.answer(request: number, status: answer.status, data: answer.data))
            } else {
                await flush()
            }
        }
        return true
    }

    /// A request's outcome: `ok`, or the error the SDKs know (`permission_denied`, `datastale`, …).
    struct Answer {
        var status = "ok"
        var data: JSON = ""
    }

    static let denied = Answer(status: "permission_denied", data: "Permission denied")
    private static let readOnly = Answer(status: "permission_denied", data: "the database is served read-only")

    private func perform(_ request: ClientRequest) async -> Answer {
        switch request {
        case .acknowledge:
            return Answer(data: [:])
        case .authenticate(let credential, let override):
            do throws(RequestError) {
                requester = try access.requester(credential: credential, override: override, now: Access.now())
                return Answer(data: [:])
            } catch {
                requester = nil
                return Answer(status: "invalid_token", data: .string(error.message))
            }
        case .unauthenticate:
            requester = try? access.requester(credential: nil, override: nil, now: Access.now())
            return Answer(data: [:])
        default:
            guard let requester else { return Answer(status: "permission_denied", data: "a valid credential is needed (auth)") }
            return await perform(request, as: requester)
        }
    }

    /// A request that needs a credential, as the user the client is.
    private func perform(_ request: ClientRequest, as requester: Requester) async -> Answer {
        switch request {
        case .acknowledge, .authenticate, .unauthenticate:
            return await perform(request)
        case .listen(let listen):
            return self.listen(listen, as: requester)
        case .unlisten(let path, let tag):
            unlisten(ListenKey(path: path, tag: tag))
            return Answer()
        case .get(let path, let query, let ruleQuery):
            guard let revision = feed.latest else { return Answer(status: "unavailable", data: "the file has not been read yet") }
            guard access.mayRead(requester, path, query: ruleQuery, in: revision.document, now: Access.now()) else { return Self.denied }
            return Answer(data: Self.data(at: path, query: query, in: revision))
        case .write(let kind, let path, let data, let hash):
            guard !options.readOnly else { return Self.readOnly }
            return await write(kind, path: path, data: data, hash: hash, as: requester)
        case .onDisconnect(let kind, let path, let data):
            guard !options.readOnly else { return Self.readOnly }
            return leave(kind, path: path, data: data, as: requester)
        case .cancelDisconnect(let path):
            cancelLeft(at: path)
            return Answer()
        }
    }

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
    func next(isolation: isolated (any Actor)? = #isolation) async -> Handed {
        await withCheckedContinuation(isolation: isolation) { loop in
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

