// What a followed location's connection is doing: the store status's own connection states.
import StoreInterface

/// The state of an `EventStreamConnection`, as a remote store's `status.connection` shows it.
public typealias ConnectionState = ConnectionStatus
