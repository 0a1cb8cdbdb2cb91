// What a followed location delivered: its batches of events and its states, in order, and the
// value they build.
import JSONTree
@testable import RemoteStore
import Synchronization
import TestSupport

/// Collects an `EventStreamConnection`'s callbacks, applying each batch to a document as the
/// remote store does.
final class Recorder: Sendable {
    private struct Log {
        var batches: [[StreamEvent]] = []
        var states: [ConnectionState] = []
        var value: JSONDocument = JSONDocument(.null)
        var problems: [String] = []
    }
    private let log = Mutex(Log())

    /// The callbacks to give a connection.
    var onEvents: @Sendable ([StreamEvent]) -> Void {
        { events in
            self.log.withLock { log in
                log.batches.append(events)
                // Event by event: one call to `applying` refuses writes that overlap, and a
                // later event of a batch may write inside an earlier one's value.
                for event in events {
                    do {
                        log.value = try log.value.applying(event.writes)
                    } catch {
                        log.problems.append("\(event): \(error)")
                    }
                }
            }
        }
    }

    var onState: @Sendable (ConnectionState) -> Void {
        { state in self.log.withLock { $0.states.append(state) } }
    }

    var batches: [[StreamEvent]] { log.withLock { $0.batches } }
    var states: [ConnectionState] { log.withLock { $0.states } }
    var state: ConnectionState? { states.last }
    /// The value the batches applied in order give (normalized).
    var value: JSON { normalized(log.withLock { $0.value.root.json }) }
    /// Batches that could not be applied.
    var problems: [String] { log.withLock { $0.problems } }

    /// The number of `put`s at the root (one a connection).
    var rootPuts: Int {
        batches.joined().filter { if case .put(let path, _) = $0 { path.isRoot } else { false } }.count
    }
}

/// JSON text parsed.
func json(_ text: String) -> JSON {
    try! JSONDocument(parsing: text).root.json
}

/// The value at `path` in the file, normalized (null when absent).
func fileValue(_ file: String, at path: Path) -> JSON? {
    guard let text = readFileText(file), let document = try? JSONDocument(parsing: text) else { return nil }
    return normalized(document.root.node(at: path)?.json ?? .null)
}

/// One client per test, shut down at its end.
final class TestClient {
    let client = RemoteClient()
    deinit { try? client.syncShutdown() }
}

/// A connection following `url`, recorded; started.
func follow(_ url: String, client: RemoteClient, token: String? = nil,
            options: EventStreamConnection.Options = .init()) throws -> (EventStreamConnection, Recorder) {
    let recorder = Recorder()
    let connection = EventStreamConnection(
        client: client, url: try DatabaseURL(parsing: url, environment: [:]),
        credential: token.flatMap { Credential(token: $0) }, options: options,
        onEvents: recorder.onEvents, onState: recorder.onState)
    connection.start()
    return (connection, recorder)
}

/// `value` as the database sees it: nulls and empty objects and arrays are not there.
func normalized(_ value: JSON) -> JSON {
    switch value {
    case .object(let object):
        let members = object.members.map { (key: $0.key, value: normalized($0.value)) }.filter { !$0.value.isNull }
        return members.isEmpty ? .null : .object(JSONObject(members))
    case .array(let elements):
        let kept = elements.map(normalized)
        return kept.allSatisfy(\.isNull) ? .null : .array(kept)
    default:
        return value
    }
}

/// Polls `condition` until it holds (true) or `seconds` pass (false), sleeping between polls
/// without holding a thread; for `#expect(await eventually { … })`.
func eventually(seconds: Double = 60, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
}
