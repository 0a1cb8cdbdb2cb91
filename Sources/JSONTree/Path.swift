// Locations in a JSON tree: `/`-separated keys.

/// A location in a JSON tree: `/` is the root, `/users/alice/age` a nested child.
///
/// A key that contains `/` or `~` is written with RFC 6901 escapes (`~1`, `~0`).
/// Keys compare by code units.
public struct Path: Sendable, Hashable, CustomStringConvertible {
    public let keys: [String]

    public static let root = Path(keys: [])

    public init(keys: [String]) { self.keys = keys }

    /// Parses a path; empty segments are ignored (`/a//b/` is `/a/b`).
    /// Splits at `/` code units, not characters: a `/` followed by a combining mark
    /// still separates two keys.
    /// - Throws: `PathError` for an escape other than `~0` or `~1`.
    public init(_ text: String) throws(PathError) {
        var keys = [String]()
        for segment in text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            var key = [UInt8]()
            var i = segment.startIndex
            while i < segment.endIndex {
                let c = segment[i]
                i = segment.index(after: i)
                guard c == UInt8(ascii: "~") else {
                    key.append(c)
                    continue
                }
                let next = i < segment.endIndex ? segment[i] : nil
                switch next {
                case UInt8(ascii: "0"): key.append(UInt8(ascii: "~"))
                case UInt8(ascii: "1"): key.append(UInt8(ascii: "/"))
                default:
                    let found = next.map { _ in "'" + String(decoding: segment[i...].prefix(4), as: UTF8.self).prefix(1) + "'" } ?? "end of path"
                    throw PathError(path: text, message: "'~' must be followed by 0 or 1 (found \(found))")
                }
                i = segment.index(after: i)
            }
            keys.append(String(decoding: key, as: UTF8.self))
        }
        self.keys = keys
    }

    public var isRoot: Bool { keys.isEmpty }
    public var lastKey: String? { keys.last }
    public var parent: Path? { isRoot ? nil : Path(keys: Array(keys.dropLast())) }

    public func child(_ key: String) -> Path { Path(keys: keys + [key]) }
    public func appending(_ other: Path) -> Path { Path(keys: keys + other.keys) }

    public var description: String {
        "/" + keys.map(Path.escape).joined(separator: "/")
    }

    /// A key with RFC 6901 escapes (`~` → `~0`, `/` → `~1`), by code units.
    static func escape(_ key: String) -> String {
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return key }
        var out = [UInt8]()
        for c in key.utf8 {
            switch c {
            case UInt8(ascii: "~"): out += [UInt8(ascii: "~"), UInt8(ascii: "0")]
            case UInt8(ascii: "/"): out += [UInt8(ascii: "~"), UInt8(ascii: "1")]
            default: out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func == (a: Path, b: Path) -> Bool {
        a.keys.count == b.keys.count && zip(a.keys, b.keys).allSatisfy { codeUnitsEqual($0, $1) }
    }

    public func hash(into hasher: inout Hasher) {
        for k in keys { hasher.combine(JSONKey(k)) }
    }
}

/// A malformed path.
public struct PathError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let message: String
    public var description: String { "invalid path '\(path)': \(message)" }
}
