// Decoding Swift types straight from the parsed JSON tree (no round trip through Data).

/// Decodes `Decodable` types from a `JSONNode`, reading the parsed tree directly.
///
/// It decodes as `JSONDecoder` does, with the Realtime Database's view of children: an object's
/// `allKeys` (what a `[String: T]` iterates) leaves out members that are null or whose key starts
/// with `.` (metadata such as `.priority`), which are not children; asking for such a key by name
/// still finds it. Numbers decode into any integer type when their value is an integer that fits
/// (`1e3` and `2.0` are integers; `2.5` or `300` as `Int8` are errors), and into `Double` or
/// `Float` when finite. Keys are matched by code units.
///
/// ```swift
/// struct Player: Decodable { var name: String; var score: Int; var tags: [String]? }
/// let player = try JSONNodeDecoder().decode(Player.self, from: window[0].value)
/// ```
///
/// Errors are `DecodingError`s with the coding path; `describe(_:)` turns one into a line.
public struct JSONNodeDecoder: Sendable {
    /// Values for the types being decoded (`Decoder.userInfo`).
    public var userInfo: [CodingUserInfoKey: any Sendable]

    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Decodes a `T` from `node`.
    /// - Throws: `DecodingError` naming the path and the problem.
    /// - Complexity: O(size of the node) for plain types; keyed lookups are linear in small
    ///   objects and hashed in large ones.
    public func decode<T: Decodable>(_ type: T.Type, from node: JSONNode) throws -> T {
        try NodeDecoder(node: node, codingPath: [], userInfo: userInfo).decodeValue(type)
    }

    /// One line saying where and why decoding failed: `metrics.views: expected Int, found a string`.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            return prefixed(c.codingPath, c.debugDescription)
        case .keyNotFound(let key, let c):
            return prefixed(c.codingPath, "no member \(quoted(key.stringValue))")
        @unknown default:
            return String(describing: error)
        }
    }

    private static func prefixed(_ path: [any CodingKey], _ message: String) -> String {
        path.isEmpty ? message : pathText(path) + ": " + message
    }

    /// `a.b[2].c`: members by name, array elements by index.
    static func pathText(_ path: [any CodingKey]) -> String {
        var out = ""
        for key in path {
            if let i = key.intValue, key is IndexKey {
                out += "[\(i)]"
            } else {
                out += (out.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return out
    }

    static func quoted(_ s: String) -> String { JSON.string(s).serializedString() }
}

/// The coding key of an array element.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// A member name used by `superDecoder()` and for paths.
struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The `Decoder` for one node.
final class NodeDecoder: Decoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

    init(node: JSONNode, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.node = node
        self.codingPath = codingPath
        self.sendableUserInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard node.kind == .object else { throw mismatch([String: Any].self, node, codingPath) }
        return KeyedDecodingContainer(ObjectContainer<Key>(decoder: self, node: node, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard node.kind == .array else { throw mismatch([Any].self, node, codingPath) }
        return ArrayContainer(decoder: self, node: node, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ValueContainer(decoder: self, node: node, codingPath: codingPath)
    }

    /// A decoder for a node below this one.
    func child(_ node: JSONNode, _ key: any CodingKey, path: [any CodingKey]) -> NodeDecoder {
        NodeDecoder(node: node, codingPath: path + [key], userInfo: sendableUserInfo)
    }

    /// Decodes `type` from this decoder's node: scalars directly, other types by their `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalar = try decodeScalar(type, node, codingPath) { return scalar }
        return try T(from: self)
    }
}

// MARK: - Scalars

/// The typeMismatch error for `node` where a `type` was expected.
func mismatch(_ type: Any.Type, _ node: JSONNode, _ path: [any CodingKey]) -> DecodingError {
    let found: String
    switch node.kind {
    case .null: found = "null"
    case .bool: found = "a boolean"
    case .number: found = "a number"
    case .string: found = "a string"
    case .array: found = "an array"
    case .object: found = "an object"
    }
    let expected: String
    switch type {
    case is [String: Any].Type: expected = "an object"
    case is [Any].Type: expected = "an array"
    default: expected = String(describing: type)
    }
    let context = DecodingError.Context(codingPath: path, debugDescription: "expected \(expected), found \(found)")
    return node.isNull ? .valueNotFound(type, context) : .typeMismatch(type, context)
}

/// `type` read from a scalar node, when `type` is a JSON scalar type; nil for other types.
func decodeScalar<T>(_ type: T.Type, _ node: JSONNode, _ path: [any CodingKey]) throws -> T? {
    switch type {
    case is String.Type: return try decodeString(node, path) as? T
    case is Bool.Type: return try decodeBool(node, path) as? T
    case is Double.Type: return try decodeDouble(node, path) as? T
    case is Float.Type: return try decodeFloat(node, path) as? T
    case is Int.Type: return try decodeInteger(Int.self, node, path) as? T
    case is Int8.Type: return try decodeInteger(Int8.self, node, path) as? T
    case is Int16.Type: return try decodeInteger(Int16.self, node, path) as? T
    case is Int32.Type: return try decodeInteger(Int32.self, node, path) as? T
    case is Int64.Type: return try decodeInteger(Int64.self, node, path) as? T
    case is UInt.Type: return try decodeInteger(UInt.self, node, path) as? T
    case is UInt8.Type: return try decodeInteger(UInt8.self, node, path) as? T
    case is UInt16.Type: return try decodeInteger(UInt16.self, node, path) as? T
    case is UInt32.Type: return try decodeInteger(UInt32.self, node, path) as? T
    case is UInt64.Type: return try decodeInteger(UInt64.self, node, path) as? T
    default: return nil
    }
}

func decodeString(_ node: JSONNode, _ path: [any CodingKey]) throws -> String {
    guard let s = node.stringValue else { throw mismatch(String.self, node, path) }
    return s
}

func decodeBool(_ node: JSONNode, _ path: [any CodingKey]) throws -> Bool {
    guard let b = node.boolValue else { throw mismatch(Bool.self, node, path) }
    return b
}

func decodeDouble(_ node: JSONNode, _ path: [any CodingKey]) throws -> Double {
    guard let d = node.doubleValue else { throw mismatch(Double.self, node, path) }
    guard d.isFinite else { throw outOfRange(node, Double.self, path) }
    return d
}

func decodeFloat(_ node: JSONNode, _ path: [any CodingKey]) throws -> Float {
    let d = try decodeDouble(node, path)
    let f = Float(d)
    guard f.isFinite else { throw outOfRange(node, Float.self, path) }
    return f
}

func outOfRange(_ node: JSONNode, _ type: Any.Type, _ path: [any CodingKey]) -> DecodingError {
    .dataCorrupted(DecodingError.Context(
        codingPath: path, debugDescription: "the number \(node.numberText ?? "") does not fit in \(type)"))
}

/// An integer of type `T`, exactly: the number's decimal digits are shifted by its exponent
/// (no trip through `Double`, which would round large values), then parsed with range checks.
func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, _ node: JSONNode, _ path: [any CodingKey]) throws -> T {
    guard let text = node.numberText else { throw mismatch(T.self, node, path) }
    if let v = T(text) { return v }
    guard let digits = integerDigits(text) else {
        if text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) }) { throw outOfRange(node, T.self, path) }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: path, debugDescription: "the number \(text) is not an integer, as \(T.self) requires"))
    }
    guard let v = T(digits) else { throw outOfRange(node, T.self, path) }
    return v
}

/// The integer a JSON number denotes, as plain decimal digits (`"-1.50e2"` → `"-150"`); nil
/// when it has a fractional part. Very long results are cut short (they fit no integer type).
func integerDigits(_ text: String) -> String? {
    var negative = false
    var mantissa = [UInt8]()
    var fractionDigits = 0
    var exponent = 0
    var exponentNegative = false
    var part = 0  // 0: integer part, 1: fraction, 2: exponent
    for c in text.utf8 {
        switch c {
        case UInt8(ascii: "-") where part == 0 && mantissa.isEmpty: negative = true
        case UInt8(ascii: "-") where part == 2: exponentNegative = true
        case UInt8(ascii: "+") where part == 2: break
        case UInt8(ascii: "."): part = 1
        case UInt8(ascii: "e"), UInt8(ascii: "E"): part = 2
        case 48...57:
            if part == 2 {
                exponent = min(exponent * 10 + Int(c - 48), 100_000)
            } else {
                mantissa.append(c)
                if part == 1 { fractionDigits += 1 }
            }
        default: return nil
        }
    }
    let shift = (exponentNegative ? -exponent : exponent) - fractionDigits
    while mantissa.count > 1 && mantissa.first == UInt8(ascii: "0") { mantissa.removeFirst() }
    if mantissa.allSatisfy({ $0 == UInt8(ascii: "0") }) { return "0" }
    if shift < 0 {
        let cut = -shift
        guard cut <= mantissa.count, mantissa.suffix(cut).allSatisfy({ $0 == UInt8(ascii: "0") }) else { return nil }
        mantissa.removeLast(cut)
    } else {
        mantissa += [UInt8](repeating: UInt8(ascii: "0"), count: min(shift, 64))
    }
    return (negative ? "-" : "") + String(decoding: mantissa, as: UTF8.self)
}
