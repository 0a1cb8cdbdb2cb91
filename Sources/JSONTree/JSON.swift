// A JSON value built in code: what writes, query bounds and tests construct.
// Parsed files are `JSONDocument`s; `JSONNode.json` turns a parsed node into a `JSON`.

/// An immutable JSON value.
///
/// Equality is JSON's: numbers compare as `Double`, strings and keys by code units,
/// objects regardless of member order.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    public var kind: JSONKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    public var isNull: Bool { if case .null = self { true } else { false } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var doubleValue: Double? { if case .number(let n) = self { n.double } else { nil } }
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    public var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    /// The member named `key` of an object, or the element at index `key` of an array.
    public subscript(key: String) -> JSON? {
        switch self {
        case .object(let o): return o[key]
        case .array(let a):
            guard let i = arrayIndex(key), i < a.count else { return nil }
            return a[i]
        default: return nil
        }
    }

    /// The value at `path`, or nil where the path does not exist.
    public subscript(path path: Path) -> JSON? {
        var node = self
        for key in path.keys {
            guard let next = node[key] else { return nil }
            node = next
        }
        return node
    }
}

/// The six kinds of JSON value.
public enum JSONKind: Sendable, Hashable {
    case null, bool, number, string, array, object

    /// The kind of a well-formed value whose first byte is `byte` (a parsed node's, on its tape).
    @inlinable
    public init(firstByte byte: UInt8) {
        switch byte {
        case UInt8(ascii: "{"): self = .object
        case UInt8(ascii: "["): self = .array
        case UInt8(ascii: "\""): self = .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): self = .bool
        case UInt8(ascii: "n"): self = .null
        default: self = .number
        }
    }
}

/// A JSON number: its spelling as written, and its value as a `Double`.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The spelling, as in the file (`1.0`, `1e3`, `12345678901234567890`).
    public let text: String
    public let double: Double

    /// A number with a known valid spelling.
    public init?(text: String) {
        guard isValidJSONNumber(text), let d = parseJSONNumber(text) else { return nil }
        self.text = text
        self.double = d
    }

    /// A number from a finite `Double`, spelled the shortest way that reads back exactly
    /// (integers without a fraction: `3`, not `3.0`).
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON numbers are finite")
        self.double = value
        if abs(value) < 1e15, let integer = Int64(exactly: value) {
            self.text = value == 0 && value.sign == .minus ? "-0" : String(integer)
        } else {
            // Swift prints the shortest round-tripping form; make it JSON (no "inf", no leading ".").
            self.text = "\(value)"
        }
    }

    public init(_ value: Int) {
        self.text = String(value)
        self.double = Double(value)
    }

    /// A number whose spelling is known to be valid JSON (from the parser).
    init(validText: String, double: Double) {
        self.text = validText
        self.double = double
    }

    public static func == (a: JSONNumber, b: JSONNumber) -> Bool { a.double == b.double }
    public func hash(into hasher: inout Hasher) { hasher.combine(double) }
    public var description: String { text }
}

/// The members of a JSON object, in order; keys are unique by code units.
public struct JSONObject: Sendable {
    public private(set) var members: [(key: String, value: JSON)]

    /// Members in the given order; a repeated key keeps its last value, at its last place
    /// (the parser's rule for duplicate keys).
    public init(_ members: [(key: String, value: JSON)]) {
        var last = [JSONKey: Int](minimumCapacity: members.count)
        for (i, m) in members.enumerated() { last[JSONKey(m.key)] = i }
        self.members = last.count == members.count
            ? members
            : members.enumerated().filter { last[JSONKey($0.element.key)] == $0.offset }.map(\.element)
    }

    public init() { members = [] }

    /// Members already known to have unique keys (from the parser).
    init(uniqueMembers: [(key: String, value: JSON)]) { members = uniqueMembers }

    public var count: Int { members.count }
    public var keys: [String] { members.map(\.key) }

    /// - Complexity: O(n).
    public subscript(key: String) -> JSON? {
        get { members.first { codeUnitsEqual($0.key, key) }?.value }
        set {
            if let i = members.firstIndex(where: { codeUnitsEqual($0.key, key) }) {
                if let v = newValue { members[i].value = v } else { members.remove(at: i) }
            } else if let v = newValue {
                members.append((key: key, value: v))
            }
        }
    }
}

// MARK: - Equality

extension JSON: Equatable {
    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return codeUnitsEqual(x, y)
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x == y
        default: return false
        }
    }
}

extension JSONObject: Equatable {
    /// Equal when both have the same keys with equal values, in any order.
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        if a.count <= 8 {
            return a.members.allSatisfy { m in b[m.key] == m.value }
        }
        var index = [JSONKey: Int](minimumCapacity: b.count)
        for (i, m) in b.members.enumerated() { index[JSONKey(m.key)] = i }
        return a.members.allSatisfy { m in index[JSONKey(m.key)].map { b.members[$0].value == m.value } ?? false }
    }
}

// MARK: - Literals, for code and tests

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

/// The array index a key names: `"0"`, `"1"`, … (no sign, no leading zeros).
@inlinable
public func arrayIndex(_ key: String) -> Int? {
    guard let first = key.utf8.first, key.utf8.count <= 18 else { return nil }
    if first == UInt8(ascii: "0") { return key.utf8.count == 1 ? 0 : nil }
    var n = 0
    for c in key.utf8 {
        guard c >= 0x30 && c <= 0x39 else { return nil }
        n = n * 10 + Int(c - 0x30)
    }
    return n
}
