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
    /// - Throws: `PathError` for an escape other than `~0` or `~1`.
    public init(_ text: String) throws(PathError) {
        var keys = [String]()
        for segment in text.split(separator: "/", omittingEmptySubsequences: true) {
            var key = ""
            var it = segment.unicodeScalars.makeIterator()
            while let c = it.next() {
                guard c == "~" else {
                    key.unicodeScalars.append(c)
                    continue
                }
                switch it.next() {
                case "0": key.append("~")
                case "1": key.append("/")
                case let other:
                    throw PathError(path: text, message: "'~' must be followed by 0 or 1 (found \(other.map { "'\($0)'" } ?? "end of path"))")
                }
            }
            keys.append(key)
        }
        self.keys = keys
    }

    public var isRoot: Bool { keys.isEmpty }
    public var lastKey: String? { keys.last }
    public var parent: Path? { isRoot ? nil : Path(keys: Array(keys.dropLast())) }

    public func child(_ key: String) -> Path { Path(keys: keys + [key]) }
    public func appending(_ other: Path) -> Path { Path(keys: keys + other.keys) }

    public var description: String {
        "/" + keys.map { $0.replacingAll("~", with: "~0").replacingAll("/", with: "~1") }.joined(separator: "/")
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

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
