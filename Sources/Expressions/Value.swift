// Values during evaluation, jq's order over them, and their conversion to `JSON`.
import JSONTree

/// A value during evaluation: a node of the document being read, referred to by its tape index
/// and never copied out, or a value the expression made (a literal, a sum, a lowercased string).
/// Strings are UTF-8 bytes: jq compares strings by their bytes.
enum Value: Sendable {
    case node(Int)
    case null
    case bool(Bool)
    case number(Double)
    case string([UInt8])
    case array([Value])
    case object([(key: [UInt8], value: Value)])
}

/// jq's order of kinds: null < false < true < numbers < strings < arrays < objects.
enum Rank: Int, Comparable {
    case null, `false`, `true`, number, string, array, object

    static func < (a: Rank, b: Rank) -> Bool { a.rawValue < b.rawValue }

    /// jq's `type` name.
    var typeName: String {
        switch self {
        case .null: "null"
        case .false, .true: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// Reading values against one document's tape.
struct Reader {
    let tape: TapeReader

    func rank(_ v: Value) -> Rank {
        switch v {
        case .null: return .null
        case .bool(let b): return b ? .true : .false
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        case .node(let i):
            switch tape.firstByte(i) {
            case UInt8(ascii: "{"): return .object
            case UInt8(ascii: "["): return .array
            case UInt8(ascii: "\""): return .string
            case UInt8(ascii: "t"): return .true
            case UInt8(ascii: "f"): return .false
            case UInt8(ascii: "n"): return .null
            default: return .number
            }
        }
    }

    /// jq's truthiness: everything but `false` and `null`.
    func isTruthy(_ v: Value) -> Bool {
        let r = rank(v)
        return r != .null && r != .false
    }

    /// The number of a value of rank `.number`.
    func number(_ v: Value) -> Double {
        switch v {
        case .number(let d): d
        case .node(let i): tape.number(i)
        default: .nan
        }
    }

    /// Calls `body` with the bytes of a value of rank `.string`.
    func withBytes<R>(_ v: Value, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch v {
        case .string(let s): return s.withUnsafeBufferPointer(body)
        case .node(let i): return tape.withStringBytes(i, body)
        default: return body(UnsafeBufferPointer(start: nil, count: 0))
        }
    }

    func bytes(_ v: Value) -> [UInt8] { withBytes(v) { Array($0) } }

    /// The elements of a value of rank `.array`.
    func elements(_ v: Value) -> [Value] {
        switch v {
        case .array(let a): return a
        case .node(let i):
            var out = [Value]()
            tape.forEachElement(of: i) { out.append(.node($0)) }
            return out
        default: return []
        }
    }

    /// The members of a value of rank `.object`, a later duplicate key replacing an earlier one.
    func members(_ v: Value) -> [(key: [UInt8], value: Value)] {
        switch v {
        case .object(let o): return o
        case .node(let i):
            var out = [(key: [UInt8], value: Value)]()
            tape.forEachMember(of: i) { k, v in out.append((tape.withStringBytes(k) { Array($0) }, .node(v))) }
            return out
        default: return []
        }
    }

    /// Members sorted by key, as jq compares objects.
    func sortedMembers(_ v: Value) -> [(key: [UInt8], value: Value)] {
        members(v).sorted { compareBytes($0.key, $1.key) < 0 }
    }

    /// jq's order: by kind, then numbers by value, strings by bytes, arrays element by element,
    /// objects by their sorted keys, then by their values in key order.
    func compare(_ a: Value, _ b: Value) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch ra {
        case .number:
            let x = number(a), y = number(b)
            return x < y ? -1 : (x == y ? 0 : 1)
        case .string:
            return withBytes(a) { x in withBytes(b) { y in compareBytes(x, y) } }
        case .array:
            let x = elements(a), y = elements(b)
            for (p, q) in zip(x, y) {
                let c = compare(p, q)
                if c != 0 { return c }
            }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        case .object:
            let x = sortedMembers(a), y = sortedMembers(b)
            for (p, q) in zip(x, y) {
                let c = compareBytes(p.key, q.key)
                if c != 0 { return c }
            }
            if x.count != y.count { return x.count < y.count ? -1 : 1 }
            for (p, q) in zip(x, y) {
                let c = compare(p.value, q.value)
                if c != 0 { return c }
            }
            return 0
        case .null, .false, .true:
            return 0
        }
    }

    /// The value with every node read out of the document.
    func owned(_ v: Value) -> Value {
        guard case .node = v else { return v }
        switch rank(v) {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .number: return .number(number(v))
        case .string: return .string(bytes(v))
        case .array: return .array(elements(v).map(owned))
        case .object: return .object(members(v).map { ($0.key, owned($0.value)) })
        }
    }

    /// The value as JSON; a number read from the document keeps its spelling.
    func json(_ v: Value) -> JSON {
        switch v {
        case .node(let i) where rank(v) == .number:
            // Past a double's range (`1e400`) jq gives the largest double, as for one it computes.
            if tape.number(i).isInfinite { return json(.number(tape.number(i))) }
            let text = tape.withBytes(tape.start(i)..<tape.end(i)) { String(decoding: $0, as: UTF8.self) }
            return JSONNumber(text: text).map(JSON.number) ?? .number(JSONNumber(tape.number(i)))
        case .node:
            return json(owned(v))
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let d):
            // jq prints an infinity as the largest double, and NaN as null.
            if d.isNaN { return .null }
            return .number(JSONNumber(d.isInfinite ? (d > 0 ? .greatestFiniteMagnitude : -.greatestFiniteMagnitude) : d))
        case .string(let s): return .string(String(decoding: s, as: UTF8.self))
        case .array(let a): return .array(a.map(json))
        case .object(let o):
            var members = [(key: String, value: JSON)]()
            for m in o {
                let key = String(decoding: m.key, as: UTF8.self)
                members.removeAll { $0.key.utf8.elementsEqual(m.key) }
                members.append((key, json(m.value)))
            }
            return .object(JSONObject(members))
        }
    }

    /// A short rendering of a value for an error message (jq's `number (5)` style).
    func describe(_ v: Value) -> String {
        var text = json(v).serializedString()
        if text.count > 11 { text = String(text.prefix(10)) + "…" }
        return "\(rank(v).typeName) (\(text))"
    }
}

/// Byte order, then length: jq's string order.
func compareBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let n = min(a.count, b.count)
    for i in 0..<n where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in compareBytes(x, y) } }
}
