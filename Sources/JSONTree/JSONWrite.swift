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
        /// A write goes below `path`, which holds a value of `kind` (not an object or array).
        case notAContainer(write: Path, at: Path, kind: JSONKind)
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
        /// A bug: the edited bytes did not parse. Nothing is written.
        case internalError(String)
    }

    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    public var description: String {
        switch reason {
        case let .notAContainer(write, at, kind):
            return "cannot write \(write): \(at) is \(kind.withArticle), not an object"
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
        case let .internalError(message):
            return "internal error while editing (nothing written): \(message)"
        }
    }
}

/// Writing an index past the end of an array pads it with nulls (null elements are not
/// children, so the other elements keep their keys); a larger gap than this is an error,
/// so that a typo cannot write a huge file.
public let maximumArrayPadding = 1024

extension JSONKind {
    var withArticle: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

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
