// One revision's change to a synced array's rows, as the history keeps it: keys, indexes and
// the bytes of what changed, never a copy of the rows or a handle on the revision's document.
import JSONTree
import LiveQuery

/// Who wrote a revision, when the history's owner knows.
public enum RevisionWriter: String, Sendable, Hashable {
    /// The program keeping the history (the viewer's own edit).
    case this
    /// Another process writing the file.
    case otherProcess = "other process"
    /// A database over the network.
    case network
    case unknown
}

/// A field of a child that a revision changed: its path inside the child (empty: the whole
/// value) and its values before and after as JSON bytes (nil: missing).
public struct FieldChange: Sendable, Equatable {
    public let path: [String]
    public let old: [UInt8]?
    public let new: [UInt8]?

    public init(path: [String], old: [UInt8]?, new: [UInt8]?) {
        self.path = path
        self.old = old
        self.new = new
    }

    /// The path as `/`-separated text (`score`, `metrics/views`; `` for the whole value).
    public var pathText: String { path.joined(separator: "/") }
    /// The old and new values as JSON (nil: missing).
    public var oldJSON: JSON? { old.flatMap(parsedJSON) }
    public var newJSON: JSON? { new.flatMap(parsedJSON) }

    var byteCount: Int { path.reduce(0) { $0 + $1.utf8.count + 16 } + (old?.count ?? 0) + (new?.count ?? 0) + 64 }
}

/// What a revision did to one child of the rows.
public struct ChildChange: Sendable {
    public enum Kind: String, Sendable, Hashable {
        case added, removed, changed, moved
    }

    public let kind: Kind
    public let key: String
    /// Its index in the rows before (nil: added) and after (nil: removed).
    public let oldIndex: Int?
    public let newIndex: Int?
    /// A changed child whose place among the kept rows changed too (a moved child always has).
    public let isMoved: Bool
    /// The whole value of an added (new) or removed (old) child, as JSON bytes.
    public let value: [UInt8]?
    /// The fields a changed child changed.
    public let fields: [FieldChange]

    var byteCount: Int { 96 + key.utf8.count + (value?.count ?? 0) + fields.reduce(0) { $0 + $1.byteCount } }
}

/// One revision's change to the rows: when, by whom, the rows' batch, and each child's change.
public struct RevisionRecord: Sendable {
    /// The store's revision number.
    public let revision: Int
    /// Wall-clock time it was recorded, seconds since 1970.
    public let time: Double
    public internal(set) var writer: RevisionWriter
    /// The rows before → the rows after, as the array reported it.
    public let batch: BatchDiff
    /// Removed children (old order), then added, moved and changed ones (new order).
    public let changes: [ChildChange]
    /// What the record costs in memory, approximately, in bytes.
    public let byteCount: Int

    init(revision: Int, time: Double, writer: RevisionWriter, batch: BatchDiff, changes: [ChildChange]) {
        self.revision = revision
        self.time = time
        self.writer = writer
        self.batch = batch
        self.changes = changes
        byteCount = 128 + changes.reduce(0) { $0 + $1.byteCount } + 16 * (batch.deletes.count + batch.inserts.count)
            + 16 * batch.moves.count + 40 * batch.reloads.count
    }

    /// The record of `batch` turning `old` rows into `new` ones.
    /// - Complexity: O(changed rows × their changed bytes); rows the batch keeps unchanged are not read.
    init(revision: Int, time: Double, writer: RevisionWriter, old: [SyncedRow], new: [SyncedRow], batch: BatchDiff) {
        var changes = [ChildChange]()
        for i in batch.deletes {
            changes.append(ChildChange(kind: .removed, key: old[i].key, oldIndex: i, newIndex: nil, isMoved: false,
                                       value: Array(old[i].value.rawBytes), fields: []))
        }
        for j in batch.inserts {
            changes.append(ChildChange(kind: .added, key: new[j].key, oldIndex: nil, newIndex: j, isMoved: false,
                                       value: Array(new[j].value.rawBytes), fields: []))
        }
        var reloadOfNew = [Int: Int]()
        for r in batch.reloads { reloadOfNew[r.to] = r.from }
        for m in batch.moves where reloadOfNew[m.to] == nil {
            changes.append(ChildChange(kind: .moved, key: new[m.to].key, oldIndex: m.from, newIndex: m.to, isMoved: true,
                                       value: nil, fields: []))
        }
        let movedTo = Set(batch.moves.map(\.to))
        for r in batch.reloads {
            changes.append(ChildChange(kind: .changed, key: new[r.to].key, oldIndex: r.from, newIndex: r.to,
                                       isMoved: movedTo.contains(r.to),
                                       value: nil, fields: fieldChanges(from: old[r.from].value, to: new[r.to].value)))
        }
        self.init(revision: revision, time: time, writer: writer, batch: batch, changes: changes)
    }
}

/// The fields that differ between two values of a child: members of objects compared by value,
/// recursively; anything else (a scalar, an array, a kind changed) as one field.
/// - Complexity: O(members) hashing, plus the bytes of members whose bytes differ.
public func fieldChanges(from old: JSONNode, to new: JSONNode, path: [String] = []) -> [FieldChange] {
    if old.hasSameBytes(as: new) { return [] }
    guard old.kind == .object, new.kind == .object else {
        return old.valueEquals(new) ? [] : [FieldChange(path: path, old: Array(old.rawBytes), new: Array(new.rawBytes))]
    }
    var oldMembers = [JSONKey: JSONNode](minimumCapacity: old.count)
    var oldOrder = [JSONKey]()
    for m in old.members {
        guard let k = m.key.stringValue else { continue }
        oldMembers[JSONKey(k)] = m.value
        oldOrder.append(JSONKey(k))
    }
    var result = [FieldChange]()
    var seen = Set<JSONKey>()
    for m in new.members {
        guard let k = m.key.stringValue else { continue }
        let key = JSONKey(k)
        seen.insert(key)
        if let before = oldMembers[key] {
            result += fieldChanges(from: before, to: m.value, path: path + [k])
        } else {
            result.append(FieldChange(path: path + [k], old: nil, new: Array(m.value.rawBytes)))
        }
    }
    for key in oldOrder where !seen.contains(key) {
        result.append(FieldChange(path: path + [key.string], old: Array(oldMembers[key]!.rawBytes), new: nil))
    }
    return result
}

/// `value` with each field set to its value before (`reverse`) or after the change.
func applying(_ fields: [FieldChange], to value: JSON, reverse: Bool) -> JSON {
    var value = value
    for field in (reverse ? fields.reversed() : fields) {
        let replacement = (reverse ? field.old : field.new).flatMap(parsedJSON)
        value = setting(replacement, at: field.path[...], in: value)
    }
    return value
}

/// `value` with the member at `path` replaced (nil: removed); objects are made where missing.
private func setting(_ replacement: JSON?, at path: ArraySlice<String>, in value: JSON) -> JSON {
    guard let first = path.first else { return replacement ?? .null }
    var object = value.objectValue ?? JSONObject()
    let inner = object[first] ?? .null
    object[first] = path.count == 1 ? replacement : setting(replacement, at: path.dropFirst(), in: inner)
    return .object(object)
}

/// JSON bytes the history wrote itself, read back.
func parsedJSON(_ bytes: [UInt8]) -> JSON? {
    try? JSONDocument(parsing: bytes).root.json
}
