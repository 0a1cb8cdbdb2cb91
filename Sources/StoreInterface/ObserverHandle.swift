// Handles that identify one registered observer.

/// Identifies one observer, to remove it later. Unique within a store.
public struct ObserverHandle: Hashable, Sendable, CustomStringConvertible {
    let id: UInt64
    public var description: String { "observer \(id)" }
}
