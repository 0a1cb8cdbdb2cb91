// What the WebSocket sessions of one server share for a revision: query windows and location
// changes, each computed once for every listen that needs it.
import JSONTree
import LiveQuery
import StoreInterface
import Synchronization

/// What the connections of one server share for a revision: a query's window and a location's
/// change (and its message, serialized), each computed once for all the listens that need it.
/// Changes are kept for the newest revision; windows for the newest two (a listen's last sent
/// window is made again from its revision), within a byte limit.
final class WireCache: Sendable {
    typealias Rows = [(key: String, value: JSON)]

    private struct State {
        var revision = 0
        var windows: [WindowKey: (rows: Rows, bytes: Int)] = [:]
        var windowBytes = 0
        var changes: [ChangeKey: StreamChange?] = [:]
        var pushes: [ChangeKey: WireMessage?] = [:]
        var unchanged: [ChangeKey: Bool] = [:]
        /// Lookups of paths in the newest revisions' documents, by revision.
        var indexes: [Int: ChildIndex] = [:]
    }

    /// A location's change from an older revision (to the cache's).
    private struct ChangeKey: Hashable {
        let from: Int
        let path: Path
    }

    private struct WindowKey: Hashable {
        let revision: Int
        let path: Path
        let query: String
    }

    private let state = Mutex(State())
    private static let maxEntries = 1024
    /// The most bytes the windows kept may take (about: their rows' source bytes, twice, and a
    /// row's overhead).
    let windowByteLimit: Int

    init(windowByteLimit: Int = 256 << 20) { self.windowByteLimit = windowByteLimit }

    /// The bytes of the windows kept.
    var windowBytes: Int { state.withLock { $0.windowBytes } }

    func window(path: Path, query: Query, in revision: Revision) -> Rows {
        let key = WindowKey(revision: revision.number, path: path, query: query.description)
        if let kept = state.withLock({ $0.windows[key]?.rows }) { return kept }
        var bytes = 0
        let made: Rows = Window(query: query, path: path, document: revision.document).map {
            bytes += 64 + 2 * $0.value.byteRange.count
            return ($0.key, ServedValue.value($0.value, export: true))
        }
        keep(revision.number) { state in
            guard state.windowBytes + bytes <= windowByteLimit, state.windows.count < Self.maxEntries else { return }
            state.windows[key] = (made, bytes)
            state.windowBytes += bytes
        }
        return made
    }

    /// Whether the location at `path` is byte for byte the same in `new` as in `old` (found once
    /// for all the listens there).
    func isUnchanged(path: Path, from old: Revision, to new: Revision) -> Bool {
        let key = ChangeKey(from: old.number, path: path)
        let (kept, oldIndex, newIndex) = state.withLock { state in
            (state.revision == new.number ? state.unchanged[key] : nil, state.indexes[old.number], state.indexes[new.number])
        }
        if let kept { return kept }
        let before = (oldIndex ?? ChildIndex()).node(at: path, in: old.document.root)
        let after = (newIndex ?? index(for: new)).node(at: path, in: new.document.root)
        let same = switch (before, after) {
        case (nil, nil): true
        case (let b?, let a?): b.hasSameBytes(as: a)
        default: false
        }
        keep(new.number) { if $0.revision == new.number { $0.unchanged[key] = same } }
        return same
    }

    /// The lookups of `revision`'s document (kept while it is among the newest two).
    private func index(for revision: Revision) -> ChildIndex {
        let made = ChildIndex()
        keep(revision.number) { state in
            if state.indexes[revision.number] == nil { state.indexes[revision.number] = made }
        }
        return state.withLock { $0.indexes[revision.number] } ?? made
    }

    private func change(path: Path, from old: Revision, to new: Revision) -> StreamChange? {
        let key = ChangeKey(from: old.number, path: path)
        if let kept = state.withLock({ $0.revision == new.number ? $0.changes[key] : nil }) { return kept }
        var made = StreamChange.between(old.document.root.node(at: path), new.document.root.node(at: path), export: true)
        if let change = made, Self.touchesMetadata(change) {
            // The SDKs read `.value` and `.priority` only as a whole node's: the node goes whole.
            let at = Path(keys: Array(change.path.keys.prefix { $0 != ".priority" && $0 != ".value" }))
            made = StreamChange(name: "put", path: at, data: ServedValue.value(at: path.appending(at), in: new.document, export: true))
        }
        keep(new.number) { if $0.revision == new.number { $0.changes[key] = .some(made) } }
        return made
    }

    /// The message bringing a listen of `path` from `old` to `new` (nil: nothing changed there),
    /// serialized and framed once for every connection that listens there rather than once for each.
    func push(path: Path, from old: Revision, to new: Revision) -> WireMessage? {
        let key = ChangeKey(from: old.number, path: path)
        if let kept = state.withLock({ $0.revision == new.number ? $0.pushes[key] : nil }) { return kept }
        let made = change(path: path, from: old, to: new).map { change in
            let at = WebSocketSession.wirePath(path.appending(change.path))
            return change.name == "put" ? ServerMessage.data(path: at, data: change.data, tag: nil).wire
                : ServerMessage.merge(path: at, data: change.data, tag: nil).wire
        }
        keep(new.number) { if $0.revision == new.number { $0.pushes[key] = .some(made) } }
        return made
    }

    private static func touchesMetadata(_ change: StreamChange) -> Bool {
        if change.path.keys.contains(where: { $0 == ".priority" || $0 == ".value" }) { return true }
        guard change.name == "patch", case .object(let members) = change.data else { return false }
        return members[".priority"] != nil || members[".value"] != nil
    }

    /// Runs `body` on the state of `revision`: a newer revision than the cache's clears what was
    /// kept for older ones (windows and lookups of the one before stay).
    private func keep(_ revision: Int, _ body: (inout State) -> Void) {
        state.withLock { state in
            // Windows and lookups of the two newest revisions; changes of the newest.
            guard revision >= state.revision - 1 else { return }
            if revision > state.revision || state.changes.count + state.pushes.count + state.unchanged.count >= Self.maxEntries {
                if revision > state.revision {
                    let previous = state.revision
                    state.revision = revision
                    state.windows = state.windows.filter { $0.key.revision == previous || $0.key.revision == revision }
                    state.windowBytes = state.windows.values.reduce(0) { $0 + $1.bytes }
                    state.indexes = state.indexes.filter { $0.key == previous || $0.key == revision }
                }
                state.changes.removeAll(keepingCapacity: true)
                state.pushes.removeAll(keepingCapacity: true)
                state.unchanged.removeAll(keepingCapacity: true)
            }
            guard revision == state.revision || revision == state.revision - 1 else { return }
            body(&state)
        }
    }
}
