// The listeners of one query at one location, sharing one window.
import JSONTree
import LiveQuery

/// Every observer of one (path, query), and the window they were last told about.
struct ListenerGroup {
    let id: Int
    let path: Path
    let query: Query
    /// The window as of the last delivery; nil before the first revision.
    var window: Window?
    /// Increases whenever `window` is replaced, so that a change computed ahead of time from an
    /// older window is recognised and not applied.
    var version = 0
    var observers: [QueryObserver] = []
    /// Its first window is being evaluated on the worker thread.
    var evaluating = false

    /// What the read worker needs to compute this group's next change off the loop thread.
    var snapshot: ListenerSnapshot {
        ListenerSnapshot(group: id, version: version, path: path, query: query, window: window)
    }
}

/// One observer of a query.
struct QueryObserver {
    let handle: ObserverHandle
    /// The reference it was registered through.
    let owner: UInt64
    let callback: Callback

    enum Callback {
        /// Events of one kind.
        case event(EventKind, (QueryEvent) -> Void)
        /// Each revision's whole change.
        case changes((WindowChange) -> Void)
    }
}

/// A group's query and window, sent to the read worker with a read.
package struct ListenerSnapshot: Sendable {
    package let group: Int
    package let version: Int
    let path: Path
    let query: Query
    let window: Window?

    /// The change this group's listeners get for a new document.
    /// - Complexity: that of `Window.advanced(to:)`, or a full evaluation for a first window.
    package func change(to document: JSONDocument) -> WindowChange {
        if let window { return window.advanced(to: document) }
        return WindowChange.initial(Window(query: query, path: path, document: document))
    }
}

/// A change computed by the read worker for one group.
package struct PrecomputedChange: Sendable {
    let group: Int
    /// The group's `version` the change starts from.
    let version: Int
    let change: WindowChange

    package init(group: Int, version: Int, change: WindowChange) {
        self.group = group
        self.version = version
        self.change = change
    }
}
