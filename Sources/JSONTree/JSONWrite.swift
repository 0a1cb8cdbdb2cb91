// One change to a JSON tree (the value at a path becomes a value), and why a set of changes
// cannot be applied.

/// A write: the value at `path` becomes `value`. Writing `null` (or an empty object or
/// array) removes the node, as in the Realtime Database.
public struct JSONWrite: Sendable, Equatable, CustomStringConvertible {
    public var path: Path
    public var value: JSON

    public init(_ path: Path, _ value: JSON) {
        self.path = path
        self.value = value
    }

    /// `set(path, value)`.
    public static func set(_ path: Path, _ value: JSON) -> [JSONWrite] { [JSONWrite(path, value)] }

    /// `remove(path)`: the same as setting null.
    public static func remove(_ path: Path) -> [JSONWrite] { [JSONWrite(path, .null)] }

    /// A multi-path update: each value replaces the node at `base` + its relative path;
    /// nodes not named keep their values.
    public static func update(_ base: Path, _ values: [(path: Path, value: JSON)]) -> [JSONWrite] {
        values.map { JSONWrite(base.appending($0.path), $0.value) }
    }

    /// A multi-path update given as an object: each member's key is a relative path
    /// (`"a/b"` writes `base/a/b`), as in the Realtime Database's `update`.
    /// - Throws: `JSONEditError` when a key is not a valid path.
    public static func update(_ base: Path, _ object: JSONObject) throws(JSONEditError) -> [JSONWrite] {
        var writes = [JSONWrite]()
        for m in object.members {
            let relative: Path
            do { relative = try Path(m.key) } catch {
                throw JSONEditError(.invalidPath(m.key, error.message))
            }
            writes.append(JSONWrite(base.appending(relative), m.value))
        }
        return writes
    }

    public var description: String { "\(path) = \(value.serializedString())" }
}

/// Why writes cannot be applied to a document. The document is left as it was.
public struct JSONEditError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// A write names a key of the array at `array` that is not an index.
        case notAnIndex(write: Path, array: Path, key: String)
        /// A write names an index far past the end of the array at `array`.
        case indexTooFar(write: Path, array: Path, index: Int, count: Int)
        /// Two writes of one update where one path is (or is inside) the other.
        case overlapping(ancestor: Path, descendant: Path)
        /// A malformed relative path in an update.
        case invalidPath(String, String)
        /// A `{".sv": …}` object that is not a known server value.
        case invalidServerValue(at: Path, String)
        /// A write names or writes a key the database forbids: which, and why.
        case forbiddenKey(write: Path, key: String, why: String)
        /// A write would nest the document deeper than `limit` containers.
        case tooDeep(write: Path, depth: Int, limit: Int)
        /// A bug: the edited bytes did not parse. Nothing is written.
        case internalError(String)
    }

    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    public var description: String {
        switch reason {
        case let .notAnIndex(write, array, key):
            return "cannot write \(write): \(array) is an array, and '\(key)' is not an index (0, 1, 2, …)"
        case let .indexTooFar(write, array, index, count):
            return "cannot write \(write): index \(index) is more than \(maximumArrayPadding) past the end of "
                + "the array \(array) (\(count) elements)"
        case let .overlapping(ancestor, descendant):
            return ancestor == descendant
                ? "path \(ancestor) is written twice in one update"
                : "path \(ancestor) is an ancestor of \(descendant); one update cannot write both"
        case let .invalidPath(path, message):
            return "invalid path '\(path)': \(message)"
        case let .invalidServerValue(at, message):
            return "invalid server value at \(at): \(message)"
        case let .forbiddenKey(write, key, why):
            return "cannot write \(write): the key \(quotedKey(key)) \(why)"
        case let .tooDeep(write, depth, limit):
            return "cannot write \(write): the document would be nested \(depth) levels deep, "
                + "more than the limit of \(limit)"
        case let .internalError(message):
            return "internal error while editing (nothing written): \(message)"
        }
    }
}

/// Writing an index past the end of an array pads it with nulls (null elements are not
/// children, so the other elements keep their keys); a larger gap than this is an error,
/// so that a typo cannot write a huge file.
public let maximumArrayPadding = 1024

extension JSON {
    /// The value as the Realtime Database stores it: `nil` for null; objects without null
    /// members; arrays whose null-valued elements stay as `null` placeholders (keeping the
    /// other elements' indexes) without trailing nulls; an empty object or array is `nil`.
    /// - Complexity: O(size).
    public var normalized: JSON? {
        switch self {
        case .null: return nil
        case .bool, .number, .string: return self
        case .object(let o):
            var members = [(key: String, value: JSON)]()
            members.reserveCapacity(o.count)
            for m in o.members {
                if let v = m.value.normalized { members.append((m.key, v)) }
            }
            return members.isEmpty ? nil : .object(JSONObject(uniqueMembers: members))
        case .array(let a):
            var elements = a.map { $0.normalized ?? .null }
            while let last = elements.last, last.isNull { elements.removeLast() }
            return elements.isEmpty ? nil : .array(elements)
        }
    }
}

/// A key for a message: JSON-quoted (so control characters show as escapes), cut in the
/// middle when very long (the limit is 768 bytes; the message says how long it is).
private func quotedKey(_ key: String) -> String {
    let quoted = JSON.string(key).serializedString()
    guard quoted.count > 80 else { return quoted }
    return "\(quoted.prefix(40))…\(quoted.suffix(20)) (\(key.utf8.count) bytes)"
}

/// The longest key the database accepts, in UTF-8 bytes.
public let maximumKeyBytes = 768

/// Why the database forbids `key` in a write, or nil when it is allowed: empty, longer than
/// 768 UTF-8 bytes, or holding `.` `$` `#` `[` `]` `/` or an ASCII control character.
/// `.priority` and `.value` are the metadata keys a write may name.
public func forbiddenKeyReason(_ key: String) -> String? {
    if key.isEmpty { return "is empty" }
    if key == ".priority" || key == ".value" { return nil }
    if key.utf8.count > maximumKeyBytes { return "is longer than \(maximumKeyBytes) bytes" }
    for byte in key.utf8 {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "/"):
            return "holds '\(Character(Unicode.Scalar(byte)))' (keys cannot hold . $ # [ ] /)"
        case 0..<0x20, 0x7F:
            return "holds a control character"
        default: continue
        }
    }
    return nil
}

extension JSONWrite {
    /// Checks what the database would refuse: forbidden keys in the written value, or in the
    /// path of a write that creates something (removing a key the file already has is
    /// allowed, since reading such keys is), and nesting deeper than the parser's limit.
    /// - Throws: `.forbiddenKey`, `.tooDeep`.
    func validate() throws(JSONEditError) {
        if !value.isNull {
            for key in path.keys {
                if let why = forbiddenKeyReason(key) { throw JSONEditError(.forbiddenKey(write: path, key: key, why: why)) }
            }
        }
        let depth = path.keys.count + (try value.nesting(in: path))
        if depth > maximumJSONDepth { throw JSONEditError(.tooDeep(write: path, depth: depth, limit: maximumJSONDepth)) }
    }
}

extension JSON {
    /// How many containers deep this value is (0 for a scalar), after checking its keys.
    fileprivate func nesting(in path: Path) throws(JSONEditError) -> Int {
        switch self {
        case .object(let object):
            var deepest = 0
            for member in object.members {
                if let why = forbiddenKeyReason(member.key) {
                    throw JSONEditError(.forbiddenKey(write: path, key: member.key, why: why))
                }
                deepest = max(deepest, try member.value.nesting(in: path))
            }
            return deepest + 1
        case .array(let elements):
            var deepest = 0
            for element in elements { deepest = max(deepest, try element.nesting(in: path)) }
            return deepest + 1
        default:
            return 0
        }
    }
}
