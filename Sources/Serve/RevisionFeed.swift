// The store's revisions as shared state: the latest one for reads, and a mailbox per stream.
import NIOCore
import StoreInterface
import Synchronization

/// The latest revision of the file, readable from any task, and the mailboxes of the event
/// streams that follow it.
///
/// The store thread publishes into it and never waits for a reader: a stream that falls behind
/// only has its mailbox's count go up, and is dropped past its limit.
final class RevisionFeed: Sendable {
    private struct State {
        var latest: Revision?
        var status: StoreStatus?
        var mailboxes: [ObjectIdentifier: Mailbox] = [:]
        var closed = false
        /// Tasks waiting for the first revision or a problem.
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Tasks waiting for a revision newer than the one they saw (nil: none came in time).
        var newer: [Int: CheckedContinuation<Revision?, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())
    /// How many revisions a stream may fall behind before it is dropped.
    let mailboxLimit: Int
    /// How many bytes a stream may still owe its client when the file changes.
    let unsentLimit: Int

    init(mailboxLimit: Int, unsentLimit: Int) {
        self.mailboxLimit = mailboxLimit
        self.unsentLimit = unsentLimit
    }

    /// The latest complete, valid state of the file; nil before the first.
    var latest: Revision? { state.withLock { $0.latest } }

    /// The store's latest status.
    var status: StoreStatus? { state.withLock { $0.status } }

    /// How many streams are open.
    var streamCount: Int { state.withLock { $0.mailboxes.count } }

    /// The bytes each open stream has yet to hand to its connection.
    var unsentBytes: [Int] { state.withLock { $0.mailboxes.values.map(\.unsent) } }

    /// From the store thread: a new revision for the readers and every stream.
    func publish(_ revision: Revision) {
        let (boxes, waiters, newer) = state.withLock { state in
            state.latest = revision
            defer {
                state.waiters.removeAll()
                state.newer.removeAll()
            }
            return (Array(state.mailboxes.values), state.waiters, Array(state.newer.values))
        }
        Self.deliver(boxes.compactMap { box in box.post(.revision(revision)).map { (box, $0) } })
        for waiter in waiters { waiter.resume() }
        for waiter in newer { waiter.resume(returning: revision) }
    }

    /// Has each mailbox's session follow what it was posted on its event loop: one task a loop
    /// for all its sessions, rather than one wake-up of each session's task.
    private static func deliver(_ boxes: [(Mailbox, DirectDelivery)]) {
        var loops = [ObjectIdentifier: (loop: any EventLoop, boxes: [Mailbox])]()
        for (box, direct) in boxes {
            loops[ObjectIdentifier(direct.eventLoop), default: (direct.eventLoop, [])].boxes.append(box)
        }
        for (loop, boxes) in loops.values {
            loop.execute { for box in boxes { box.deliverPending() } }
        }
    }

    /// Waits for a revision newer than revision `number`, until `deadline`: nil if none came
    /// by then, or the feed closed.
    func revision(
        after number: Int, until deadline: ContinuousClock.Instant, isolation: isolated (any Actor)? = #isolation
    ) async -> Revision? {
        await withCheckedContinuation(isolation: isolation) { continuation in
            let waiter = state.withLock { state -> Int? in
                if let latest = state.latest, latest.number > number {
                    continuation.resume(returning: latest)
                    return nil
                }
                if state.closed {
                    continuation.resume(returning: nil)
                    return nil
                }
                state.nextWaiter += 1
                state.newer[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let waiter else { return }
            // Whichever comes first resumes the waiter, under the lock: a revision, or this.
            Task {
                try? await Task.sleep(until: deadline)
                state.withLock { $0.newer.removeValue(forKey: waiter) }?.resume(returning: nil)
            }
        }
    }

    /// From the store thread: the store's status changed.
    func publish(_ status: StoreStatus) {
        let (boxes, waiters) = state.withLock { state in
            state.status = status
            defer { if status.problem != nil { state.waiters.removeAll() } }
            return (Array(state.mailboxes.values), status.problem != nil ? state.waiters : [])
        }
        if status.problem == .missing {
            for box in boxes { box.post(.cancel("the file was removed")) }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the first revision is read, or the store reports a problem (then returns it).
    func firstRevision() async -> Result<Revision, ServeError> {
        while true {
            let ready: Result<Revision, ServeError>? = state.withLock { state in
                if let latest = state.latest { return .success(latest) }
                if let problem = state.status?.problem { return .failure(ServeError(problem.description)) }
                if state.closed { return .failure(ServeError("the server stopped")) }
                return nil
            }
            if let ready { return ready }
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.latest != nil || state.status?.problem != nil || state.closed { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    /// A new mailbox that receives every revision from now on, holding up to `queueLength` of
    /// them before it coalesces; nil once the feed is closed.
    func subscribe(queueLength: Int = 1) -> Mailbox? {
        let box = Mailbox(limit: mailboxLimit, unsentLimit: unsentLimit, queueLength: queueLength)
        let added = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.mailboxes[ObjectIdentifier(box)] = box
            return true
        }
        return added ? box : nil
    }

    func unsubscribe(_ box: Mailbox) {
        _ = state.withLock { $0.mailboxes.removeValue(forKey: ObjectIdentifier(box)) }
    }

    /// Hands every stream the latest revision again, so that each checks its access anew (the
    /// rules changed). Posted under the lock, so that no stream gets it after a newer one.
    func recheckStreams() {
        Self.deliver(state.withLock { state in
            guard let latest = state.latest else { return [] }
            return state.mailboxes.values.compactMap { box in box.post(.revision(latest)).map { (box, $0) } }
        })
    }

    /// Wakes every idle stream so that it sends a keep-alive.
    func tick() {
        for box in state.withLock({ Array($0.mailboxes.values) }) { box.post(.tick) }
    }

    /// The server is stopping: every stream ends (one stuck in a write to a client that does
    /// not read is interrupted).
    func close() {
        let (boxes, waiters, newer) = state.withLock { state in
            state.closed = true
            defer {
                state.waiters.removeAll()
                state.newer.removeAll()
            }
            return (Array(state.mailboxes.values), state.waiters, Array(state.newer.values))
        }
        for box in boxes { box.post(.closed) }
        for waiter in waiters { waiter.resume() }
        for waiter in newer { waiter.resume(returning: nil) }
    }
}

/// One stream's inbox. Revisions past `queueLength` (or past `queueBytes` of files) are
/// coalesced (a stream sends the change from what it last sent to the newest revision): an event
/// stream holds one, a WebSocket session a few, so that a burst of writes reaches its client as
/// that many changes, as the database sends them. `behind` counts the revisions skipped, and `unsent` the bytes of events
/// the stream has yet to hand to its connection.
final class Mailbox: Sendable {
    enum Message: Sendable {
        case revision(Revision)
        /// Time for a keep-alive, if nothing else is pending (for a WebSocket session: look for
        /// its client's frame).
        case tick
        /// The location can no longer be served: why.
        case cancel(String)
        /// The server is stopping.
        case closed
        /// The stream fell too far behind: how.
        case dropped(String)
    }

    private struct State {
        var pending: [Revision] = []
        /// The sizes of the pending revisions' files.
        var pendingBytes = 0
        var behind = 0
        var unsent = 0
        var tick = false
        var final: Message?
        var waiter: CheckedContinuation<Message, Never>?
        /// Ends the stream's task when it is dropped or the server stops (its client not
        /// reading may hold it in a write).
        var onDrop: (@Sendable () -> Void)?
        /// How revisions reach the stream while it waits, without waking its task.
        var direct: DirectDelivery?
        /// Whether its event loop is to deliver the pending revisions directly.
        var scheduled = false

        mutating func enqueue(_ revision: Revision, queueLength: Int) {
            let size = Int(revision.identity.size)
            if pending.isEmpty || (pending.count < queueLength && pendingBytes + size <= Mailbox.queueBytes) {
                pending.append(revision)
                pendingBytes += size
            } else {
                behind += 1
                pendingBytes += size - Int(pending[pending.count - 1].identity.size)
                pending[pending.count - 1] = revision
            }
        }

        mutating func takeFirst() -> Revision {
            let revision = pending.removeFirst()
            pendingBytes -= Int(revision.identity.size)
            behind = 0
            return revision
        }
    }

    /// What `post` does besides keeping the message.
    private enum Delivery {
        case resume(CheckedContinuation<Message, Never>, Message)
        case direct(DirectDelivery)
    }

    private let state = Mutex(State())
    private let limit: Int
    private let unsentLimit: Int
    private let queueLength: Int
    /// Past this many bytes of files, revisions coalesce whatever `queueLength` allows: a client
    /// that does not read holds at most one large revision.
    static let queueBytes = 16 << 20

    init(limit: Int, unsentLimit: Int, queueLength: Int = 1) {
        self.limit = limit
        self.unsentLimit = unsentLimit
        self.queueLength = max(1, queueLength)
    }

    /// The stream has `bytes` more (or, negative, fewer) to hand to its connection.
    func owe(_ bytes: Int) {
        state.withLock { $0.unsent += bytes }
    }

    /// The bytes the stream has yet to hand to its connection.
    var unsent: Int { state.withLock { $0.unsent } }

    /// Hands `message` to the waiting stream, or keeps it for its next `next()`; the direct
    /// delivery to schedule when the revision is to reach the waiting stream that way.
    @discardableResult
    func post(_ message: Message) -> DirectDelivery? {
        let delivery: Delivery? = state.withLock { state in
            if state.final != nil {
                // Ending already (cancelled), maybe stuck writing why: the server stopping ends it.
                if case .closed = message {
                    state.onDrop?()
                    state.onDrop = nil
                }
                return nil
            }
            if let waiter = state.waiter { return Self.handOver(message, to: waiter, in: &state, queueLength: queueLength) }
            switch message {
            case .revision(let revision):
                state.enqueue(revision, queueLength: queueLength)
                var why: String?
                if state.behind > limit { why = "it fell more than \(limit) revisions behind" }
                if state.unsent > unsentLimit { why = "the file changed while it still had \(state.unsent) bytes to send" }
                if let why {
                    state.pending.removeAll()
                    state.pendingBytes = 0
                    state.final = .dropped(why)
                    // Under the lock, so that it cannot run after `detach()` (the task may be gone).
                    state.onDrop?()
                    state.onDrop = nil
                }
            case .tick: state.tick = true
            case .closed:
                // No one waits: the stream is writing, maybe to a client that does not read.
                state.final = message
                state.onDrop?()
                state.onDrop = nil
            case .cancel, .dropped: state.final = message
            }
            return nil
        }
        switch delivery {
        case .resume(let waiter, let message)?:
            waiter.resume(returning: message)
            return nil
        case .direct(let direct)?: return direct
        case nil: return nil
        }
    }

    /// A message for the stream waiting in `next()`: a revision stays pending for its event loop
    /// to deliver (scheduled once for all that come before it runs); anything else wakes it,
    /// with the revisions pending first.
    private static func handOver(
        _ message: Message, to waiter: CheckedContinuation<Message, Never>, in state: inout State, queueLength: Int
    ) -> Delivery? {
        switch message {
        case .revision(let revision) where state.direct != nil:
            state.enqueue(revision, queueLength: queueLength)
            defer { state.scheduled = true }
            return state.scheduled ? nil : state.direct.map(Delivery.direct)
        case .tick where !state.pending.isEmpty:
            state.waiter = nil
            return .resume(waiter, .revision(state.takeFirst()))
        default:
            // (Revisions are pending here only for a direct delivery: the stream ends, and they
            // no longer matter.)
            state.pending.removeAll()
            state.pendingBytes = 0
            state.waiter = nil
            return .resume(waiter, message)
        }
    }

    /// From the stream's event loop: the revisions pending while it still waits, each followed
    /// at once; one its connection cannot take now wakes the stream with it.
    func deliverPending() {
        while true {
            let next: (Revision, DirectDelivery)? = state.withLock { state in
                guard state.waiter != nil, let direct = state.direct, !state.pending.isEmpty else {
                    state.scheduled = false
                    return nil
                }
                return (state.takeFirst(), direct)
            }
            guard let (revision, direct) = next else { return }
            if direct.deliver(revision) { continue }
            let waiter: CheckedContinuation<Message, Never>? = state.withLock { state in
                state.scheduled = false
                guard let waiter = state.waiter else {
                    // Woken meanwhile: it takes the revision next.
                    state.pending.insert(revision, at: 0)
                    state.pendingBytes += Int(revision.identity.size)
                    return nil
                }
                state.waiter = nil
                return waiter
            }
            waiter?.resume(returning: .revision(revision))
            return
        }
    }

    /// While the stream waits in `next()`, its revisions are followed by `deliver` on
    /// `eventLoop` (the stream's own executor) instead of waking it.
    func deliverWhileWaiting(on eventLoop: any EventLoop, _ deliver: @escaping @Sendable (Revision) -> Bool) {
        state.withLock { $0.direct = DirectDelivery(eventLoop: eventLoop, deliver: deliver) }
    }

    /// Calls `cancel` if the stream is dropped while it is attached.
    func attach(onDrop cancel: @escaping @Sendable () -> Void) {
        state.withLock { $0.onDrop = cancel }
    }

    /// After this returns, the stream's `onDrop` is never called.
    func detach() {
        state.withLock { state in
            state.onDrop = nil
            state.direct = nil
        }
    }

    /// Whether the stream has been dropped for falling behind.
    var isDropped: Bool {
        state.withLock { if case .dropped = $0.final { true } else { false } }
    }

    /// The next message: a pending revision first, then the end of the stream, then a tick.
    /// (Run on the caller's executor: a WebSocket session is woken on its event loop directly.)
    func next(isolation: isolated (any Actor)? = #isolation) async -> Message {
        await withCheckedContinuation(isolation: isolation) { continuation in
            let ready: Message? = state.withLock { state in
                if let final = state.final { return final }
                if !state.pending.isEmpty {
                    state.tick = false
                    return .revision(state.takeFirst())
                }
                if state.tick {
                    state.tick = false
                    return .tick
                }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// How a stream's revisions reach it while it waits, without waking its task: `deliver`, on
/// `eventLoop`, follows one at once (false when the stream's connection takes no more now).
struct DirectDelivery: Sendable {
    let eventLoop: any EventLoop
    let deliver: @Sendable (Revision) -> Bool
}
