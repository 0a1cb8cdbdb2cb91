// The kinds of events a listener can observe, each with the type its handler receives.
import LiveQuery

/// What to observe on a `StoreReference`, and what the handler is given: a `ChildEvent` for the
/// four child events, the whole `Window` for `.value`.
///
/// ```swift
/// ref.observe(.childAdded) { event in print(event.key, event.prevKey ?? "first") }
/// ref.observe(.value) { window in print(window.count, "rows") }
/// ```
public struct EventType<Payload>: Sendable {
    let kind: EventKind
    /// The handler's argument, taken from an event of this kind.
    let payload: @Sendable (QueryEvent) -> Payload?
}

/// The event kinds, without their payload types.
enum EventKind: Sendable, Equatable {
    case child(ChildEvent.Kind)
    case value
}

extension EventType where Payload == ChildEvent {
    public static var childAdded: EventType { child(.childAdded) }
    public static var childChanged: EventType { child(.childChanged) }
    public static var childRemoved: EventType { child(.childRemoved) }
    public static var childMoved: EventType { child(.childMoved) }

    private static func child(_ kind: ChildEvent.Kind) -> EventType {
        EventType(kind: .child(kind)) { event in
            if case .child(let e) = event { e } else { nil }
        }
    }
}

extension EventType where Payload == Window {
    /// Once per revision that changes the window (and first for a new listener), after its child events.
    public static var value: EventType {
        EventType(kind: .value) { event in
            if case .value(let window) = event { window } else { nil }
        }
    }
}
