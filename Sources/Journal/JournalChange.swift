// What a revision changed, as a journal line holds it: JSON Pointers set or removed, found by
// comparing two values and applied to give the second back exactly.
import JSONTree

/// One change between two values: the value at `pointer` set (`value` non-nil) or removed.
///
/// `pointer` is a JSON Pointer (RFC 6901): `""` the whole value, `/players/ada/score` a member
/// (`~1` for `/` and `~0` for `~` in a key), `/3` an array's element. Setting an array's element
/// one past its end appends; removing one removes it.
public struct JournalChange: Sendable, Equatable {
    public var pointer: [String]
    public var value: JSON?

    public init(pointer: [String], value: JSON?) {
        self.pointer = pointer
        self.value = value
    }
}

/// The changes that turn `old` into `new`, exactly (number spellings, key order, nulls and empty
/// containers included): members and elements compared recursively, a value of another kind set whole.
/// - Complexity: O(children of the containers that differ) plus the bytes compared; equal subtrees
///   cost one comparison of their bytes.
public func journalChanges(from old: JSONNode, to new: JSONNode) -> [JournalChange] {
    var changes = [JournalChange]()
    var pointer = [String]()
    diff(old, new, &pointer, &changes)
    return changes
}

private func diff(_ old: JSONNode, _ new: JSONNode, _ pointer: inout [String], _ changes: inout [JournalChange]) {
    if old.hasSameBytes(as: new) { return }
    switch (old.kind, new.kind) {
    case (.object, .object): diffObjects(old, new, &pointer, &changes)
    case (.array, .array): diffArrays(old, new, &pointer, &changes)
    default:
        // Scalars whose bytes differ, or kinds that do: the new spelling is kept, `1.0` stays `1.0`.
        changes.append(JournalChange(pointer: pointer, value: new.json))
    }
}

private func diffObjects(_ old: JSONNode, _ new: JSONNode, _ pointer: inout [String], _ changes: inout [JournalChange]) {
    // The common case, the same keys in the same order (spelt alike): only members whose bytes
    // differ cost more than a comparison.
    if old.count == new.count, zip(old.members, new.members).allSatisfy({ $0.key.hasSameBytes(as: $1.key) }) {
        for (o, n) in zip(old.members, new.members) where !o.value.hasSameBytes(as: n.value) {
            pointer.append(n.key.stringValue ?? "")
            diff(o.value, n.value, &pointer, &changes)
            pointer.removeLast()
        }
        return
    }
    let oldMembers = old.members.map { (key: $0.key.stringValue ?? "", value: $0.value) }
    let newMembers = new.members.map { (key: $0.key.stringValue ?? "", value: $0.value) }
    var oldByKey = [JSONKey: JSONNode](minimumCapacity: oldMembers.count)
    for m in oldMembers { oldByKey[JSONKey(m.key)] = m.value }
    let newKeys = Set(newMembers.map { JSONKey($0.key) })
    // Removing members and appending new ones keeps the order of the rest: anything else is the whole object set.
    let kept = oldMembers.filter { newKeys.contains(JSONKey($0.key)) }.map(\.key)
    let added = newMembers.filter { oldByKey[JSONKey($0.key)] == nil }.map(\.key)
    guard (kept + added).elementsEqual(newMembers.map(\.key), by: codeUnitsEqual) else {
        changes.append(JournalChange(pointer: pointer, value: new.json))
        return
    }
    for m in oldMembers where !newKeys.contains(JSONKey(m.key)) {
        changes.append(JournalChange(pointer: pointer + [m.key], value: nil))
    }
    for m in newMembers {
        pointer.append(m.key)
        if let before = oldByKey[JSONKey(m.key)] {
            diff(before, m.value, &pointer, &changes)
        } else {
            changes.append(JournalChange(pointer: pointer, value: m.value.json))
        }
        pointer.removeLast()
    }
}

private func diffArrays(_ old: JSONNode, _ new: JSONNode, _ pointer: inout [String], _ changes: inout [JournalChange]) {
    let oldElements = Array(old.elements), newElements = Array(new.elements)
    for i in 0..<min(oldElements.count, newElements.count) {
        pointer.append(String(i))
        diff(oldElements[i], newElements[i], &pointer, &changes)
        pointer.removeLast()
    }
    if newElements.count > oldElements.count {
        for i in oldElements.count..<newElements.count {
            changes.append(JournalChange(pointer: pointer + [String(i)], value: newElements[i].json))
        }
    } else {
        // From the end, so that each removal is of the last element.
        for i in (newElements.count..<oldElements.count).reversed() {
            changes.append(JournalChange(pointer: pointer + [String(i)], value: nil))
        }
    }
}

/// Why a change cannot be applied (a journal that was edited, or of another value).
public struct JournalApplyError: Error, Sendable, CustomStringConvertible {
    public let pointer: String
    public let reason: String
    public var description: String { "\(pointer.isEmpty ? "the whole value" : pointer): \(reason)" }
}

/// `["players", "a/b"]` as `/players/a~1b`.
public func jsonPointer(_ keys: [String]) -> String {
    keys.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
}

/// `/players/a~1b` as `["players", "a/b"]`; nil when it does not start with `/` (and is not empty).
public func pointerKeys(_ pointer: String) -> [String]? {
    guard !pointer.isEmpty else { return [] }
    guard pointer.hasPrefix("/") else { return nil }
    return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
        String($0).replacing("~1", with: "/").replacing("~0", with: "~")
    }
}
