// Following one location over the streaming protocol, reconnecting for as long as it runs.
#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import Dispatch
import JSONTree
import NIOCore
import Synchronization

/// Follows one database location: `GET <location>.json` with `Accept: text/event-stream`,
/// its events delivered in batches, reconnecting with backoff whenever the stream ends, fails,
/// is refused or goes silent.
///
/// Every connection starts with the server's `put` of the whole location (path `/`): the
/// caller replaces its value with it, as one batch, and so catches up on whatever changed
/// while the stream was down.
///
/// Callbacks run one at a time, on the client's event loop thread (keep them short: hand the
/// batch over to your own thread), never after `stop()` returns.
public final class EventStreamConnection: Sendable {
    /// How a connection behaves.
    public struct Options: Sendable {
        /// A stream that receives nothing (not even a keep-alive, which the database sends
        /// every 30 s or so) for this long is taken as lost.
        public var idleTimeout: Duration
        /// The waits between tries.
        public var backoff: Backoff
        /// How long a connection must stay online for the waits to start again from the
        /// shortest: a server that sends a good `put` and then a malformed event or a `cancel`
        /// at once is tried at the slowing pace, not again and again.
        public var healthyAfter: Duration
        /// Query parameters added to the stream's URL as given (`orderBy`, `limitToLast`, …;
        /// JSON-encoded where the REST API wants JSON). A server that refuses them answers
        /// 400, reported as `offline`.
        public var parameters: [(name: String, value: String)]

        public init(idleTimeout: Duration = .seconds(65), backoff: Backoff = Backoff(),
                    parameters: [(name: String, value: String)] = [], healthyAfter: Duration = .seconds(10)) {
            self.idleTimeout = idleTimeout
            self.backoff = backoff
            self.healthyAfter = healthyAfter
            self.parameters = parameters
        }
    }

    private let client: RemoteClient
    private let url: DatabaseURL
    private let path: Path
    private let credential: Credential?
    private let options: Options
    private let onEvents: @Sendable ([StreamEvent]) -> Void
    private let onState: @Sendable (ConnectionState) -> Void

    private struct Running: Sendable {
        var task: Task<Void, Never>?
        var started = false
        var done = false
    }
    private let running = Mutex(Running())
    private let finished = DispatchSemaphore(value: 0)
    private let lastState = Mutex<ConnectionState?>(nil)

    /// A connection that follows `path` (the URL's location by default) once started.
    /// - Parameters:
    ///   - onEvents: the events of one received chunk, in order (a burst the server sent at
    ///     once is one call); `cancel` and `authRevoked` are included, and the connection then
    ///     reconnects.
    ///   - onState: each change of state, starting with `connecting`.
    public init(client: RemoteClient, url: DatabaseURL, path: Path? = nil, credential: Credential?,
                options: Options = Options(),
                onEvents: @escaping @Sendable ([StreamEvent]) -> Void,
                onState: @escaping @Sendable (ConnectionState) -> Void) {
        self.client = client
        self.url = url
        self.path = path ?? url.location
        self.credential = credential
        self.options = options
        self.onEvents = onEvents
        self.onState = onState
    }

    /// Starts following; does nothing when already started or stopped.
    public func start() {
        running.withLock { state in
            guard !state.started else { return }
            state.started = true
            state.task = Task(executorPreference: client.executor) { [self] in
                await Follow.$connection.withValue(ObjectIdentifier(self)) { await follow() }
                running.withLock { $0.done = true }
                finished.signal()
            }
        }
    }

    /// Stops following and waits until the connection's task has ended (a stream being read
    /// is closed at once). From inside a callback it only asks the task to stop, which it
    /// does when the callback returns. Calling it again does nothing.
    public func stop() {
        guard cancelTask() != nil, Follow.connection != ObjectIdentifier(self) else { return }
        finished.wait()
    }

    /// `stop()` for async code: waits for the task without blocking a thread.
    public func stop() async {
        guard let task = cancelTask(), Follow.connection != ObjectIdentifier(self) else { return }
        await task.value
    }

    /// Cancels the task, if one runs, and returns it; a later `start()` does nothing.
    private func cancelTask() -> Task<Void, Never>? {
        let task = running.withLock { running -> Task<Void, Never>? in
            defer { running.task = nil }
            running.started = true
            return running.task
        }
        task?.cancel()
        return task
    }

    /// Whether the connection's task has ended (after `stop()`).
    public var hasEnded: Bool { running.withLock { $0.done } }

    // MARK: - The loop

    /// How one connection ended.
    enum Ending: Equatable {
        /// Lost: try again soon.
        case lost(String)
        /// Refused (4xx, `cancel`): try again at the slowest pace.
        case refused(String)
        /// 401, 403, `auth_revoked`: try again at the slowest pace.
        case unauthorized(String)
        case stopped
    }

    private func follow() async {
        var random = SystemRandomNumberGenerator()
        report(.connecting)
        var attempt = 0
        while !Task.isCancelled {
            let (ending, stayedHealthy) = await connectOnce { self.report(.online) }
            if Task.isCancelled || ending == .stopped { return }
            if stayedHealthy { attempt = 0 }
            attempt += 1
            let delay = Self.retryDelay(after: ending, attempt: attempt, backoff: options.backoff, using: &random)
            switch ending {
            case .lost(let reason):
                report(.reconnecting(attempt: attempt, delayMilliseconds: milliseconds(delay), reason: reason))
            case .refused(let reason):
                report(.offline(reason: reason))
            case .unauthorized(let reason):
                report(.unauthorized(reason: reason))
            case .stopped:
                return
            }
            do { try await Task.sleep(for: delay) } catch { return }
        }
    }

    /// The wait before the next try: the backoff's for a lost stream; after a refusal, the same
    /// doubling up to the slow pace, since trying again and again would not change it.
    static func retryDelay(after ending: Ending, attempt: Int, backoff: Backoff, using random: inout some RandomNumberGenerator) -> Duration {
        switch ending {
        case .lost: backoff.delay(attempt: attempt, using: &random)
        case .refused, .unauthorized: backoff.delayAfterRefusal(attempt: attempt, using: &random)
        case .stopped: backoff.delay(attempt: .max, using: &random)
        }
    }

    /// Calls `onState` when the state changed (a slow retry refused again is no change).
    private func report(_ new: ConnectionState) {
        guard !Task.isCancelled, lastState.withLock({ last in
            defer { last = new }
            return last != new
        }) else { return }
        onState(new)
    }

    /// One connection, from the request to its end: the stream read on one task, a watchdog
    /// for silence on another; the first to finish ends both. Whether it stayed online for
    /// `healthyAfter`.
    private func connectOnce(online: @escaping @Sendable () -> Void) async -> (Ending, stayedHealthy: Bool) {
        let activity = Activity()
        let ending = await withTaskGroup(of: Ending?.self) { group in
            group.addTask {
                await self.read(activity) {
                    activity.onlineAt.store(monotonicNanoseconds(), ordering: .relaxed)
                    online()
                }
            }
            group.addTask { await self.watch(activity) }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .stopped
        }
        let onlineAt = activity.onlineAt.load(ordering: .relaxed)
        let healthy = UInt64(milliseconds(options.healthyAfter)) * 1_000_000
        return (ending, onlineAt > 0 && monotonicNanoseconds() - onlineAt >= healthy)
    }

    /// What the reading task tells the watchdog and the loop.
    private final class Activity: Sendable {
        /// When the last bytes arrived (monotonic nanoseconds).
        let last = Atomic<UInt64>(monotonicNanoseconds())
        /// When the connection delivered its first put (monotonic nanoseconds); 0 before.
        let onlineAt = Atomic<UInt64>(0)

        func touch() { last.store(monotonicNanoseconds(), ordering: .relaxed) }
    }

    /// Returns `.lost` once nothing has arrived for `idleTimeout`; nil when cancelled.
    private func watch(_ activity: Activity) async -> Ending? {
        let timeout = UInt64(milliseconds(options.idleTimeout)) * 1_000_000
        while true {
            let last = activity.last.load(ordering: .relaxed)
            let now = monotonicNanoseconds()
            let idle = now > last ? now - last : 0
            if idle >= timeout {
                return .lost("nothing received for \(milliseconds(options.idleTimeout)) ms (not even a keep-alive)")
            }
            do { try await Task.sleep(for: .nanoseconds(Int64(timeout - idle))) } catch { return nil }
        }
    }

    private func read(_ activity: Activity, online: () -> Void) async -> Ending? {
        let parameters = options.parameters + (credential?.parameters ?? [])
        var request = HTTPClientRequest(url: url.requestURL(for: path, parameters: parameters))
        request.headers.add(name: "Accept", value: "text/event-stream")
        for header in credential?.headers ?? [] { request.headers.add(name: header.name, value: header.value) }
        do {
            let response = try await client.http.execute(request, timeout: .milliseconds(Int64(milliseconds(options.idleTimeout))))
            activity.touch()
            guard response.status == .ok else {
                let error = await RestClient.error(for: response, credential: credential)
                if error.isUnauthorized { return .unauthorized(error.message) }
                if (400..<500).contains(Int(response.status.code)) { return .refused(error.message) }
                return .lost(error.message)
            }
            let type = response.headers.first(name: "content-type") ?? ""
            guard type.lowercased().hasPrefix("text/event-stream") else {
                return .refused("the server answered \(type.isEmpty ? "without a Content-Type" : "with \(type)"), not an event stream")
            }
            var parser = EventStreamParser()
            var sawPut = false
            for try await chunk in response.body {
                activity.touch()
                let (events, error) = parser.parse(chunk.readableBytesView)
                if Task.isCancelled { return nil }
                if !events.isEmpty { onEvents(events) }
                if !sawPut, events.contains(where: { if case .put = $0 { true } else { false } }) {
                    sawPut = true
                    online()
                }
                if let error { return .lost(redacted(error.message)) }
                for event in events {
                    if case .cancel(let reason) = event { return .refused("the server cancelled the stream: \(redacted(reason))") }
                    if case .authRevoked = event { return .unauthorized("the token expired or was revoked (auth_revoked)") }
                }
            }
            return Task.isCancelled ? nil : .lost("the server ended the stream")
        } catch {
            if Task.isCancelled { return nil }
            return .lost(RestClient.transportError(error, url: url, credential: credential).message)
        }
    }

    private func redacted(_ text: String) -> String { credential?.redact(text) ?? text }
}

/// The connection whose task is running (to tell a callback's `stop()` from another's).
private enum Follow {
    @TaskLocal static var connection: ObjectIdentifier?
}

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}
