// One cell of a column as a value to count: what a frequency row stands for.
import JSONTree
import LiveQuery

/// The value of a child at a column's path, as counted by the derived views: strings by their
/// code units, numbers by value (`1` and `1.0` are one value), containers by their compact JSON.
///
/// Values are ordered the way the database orders them — missing < null < `false` < `true` <
/// numbers < strings (UTF-16 code units) < containers — with containers ordered by their
/// JSON text, so that every two distinct values have an order (the frequency table's ties).
public enum ColumnValue: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The child has nothing at the path (or is not an object there).
    case missing
    case null
    case bool(Bool)
    case number(Double)
    case string(JSONKey)
    /// A binned number: the range `[index × width, (index + 1) × width)` of the view's width.
    case range(index: Int64, width: Double)
    /// An object or an array, as its compact JSON.
    case container(kind: JSONKind, json: String)

    /// The value of `child` at `path`.
    public init(_ child: JSONNode, at path: Path) {
        self = ColumnReader(path).value(of: child)
    }

    /// The value of a node.
    public init(_ node: JSONNode) {
        switch node.kind {
        case .null: self = .null
        case .bool: self = .bool(node.boolValue ?? false)
        case .number: self = .number(node.doubleValue ?? 0)
        case .string: self = .string(JSONKey(node.stringValue ?? ""))
        case .object, .array: self = .container(kind: node.kind, json: node.json.serializedString())
        }
    }

    /// This value in bins of `width`: a number becomes its range; anything else stays.
    public func binned(width: Double?) -> ColumnValue {
        guard let width, case .number(let x) = self else { return self }
        let index = (x / width).rounded(.down)
        // (Past ±2⁶² the index is clamped: no file holds such a spread of finite numbers in bins.)
        return .range(index: Int64(max(-0x1p62, min(0x1p62, index.isNaN ? 0 : index))), width: width)
    }

    /// A range's bounds: its numbers are at least `lower` and below `upper` (nil for a value).
    public var rangeBounds: (lower: JSON, upper: JSON)? {
        guard case .range(let i, let w) = self else { return nil }
        return (numberJSON(Double(i) * w), numberJSON(Double(i + 1) * w))
    }

    /// The value as JSON (a range as its lower bound), for the JSON pane, copying and export.
    public var json: JSON {
        switch self {
        case .missing, .null: .null
        case .bool(let b): .bool(b)
        case .number(let x): numberJSON(x)
        case .string(let s): .string(s.string)
        case .range(let i, let w): numberJSON(Double(i) * w)
        case .container(_, let json): (try? JSONDocument(parsing: Array(json.utf8)))?.root.json ?? .null
        }
    }

    /// How a cell shows the value: strings as they are, `(missing)`, ranges as `[10, 20)`.
    public var description: String {
        switch self {
        case .missing: "(missing)"
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let x): numberText(x)
        case .string(let s): s.string
        case .range(let i, let w): "[\(numberText(Double(i) * w)), \(numberText(Double(i + 1) * w)))"
        case .container(_, let json): json
        }
    }

    /// A text naming the value uniquely (a row's key in a batch): a kind letter, then the value.
    public var identity: String {
        switch self {
        case .missing: "m"
        case .null: "z"
        case .bool(let b): b ? "t" : "f"
        case .number(let x): "n\(x)"
        case .string(let s): "s" + s.string
        case .range(let i, let w): "r\(i)/\(w)"
        case .container(_, let json): "c" + json
        }
    }

    private var rank: Int {
        switch self {
        case .missing: 0
        case .null: 1
        case .bool(false): 2
        case .bool(true): 3
        case .number, .range: 4
        case .string: 5
        case .container: 6
        }
    }

    private var sortNumber: Double {
        switch self {
        case .number(let x): x
        case .range(let i, let w): Double(i) * w
        default: 0
        }
    }

    public static func < (a: ColumnValue, b: ColumnValue) -> Bool {
        let ra = a.rank, rb = b.rank
        if ra != rb { return ra < rb }
        switch (a, b) {
        case (.string(let x), .string(let y)): return utf16Compare(x.string, y.string) < 0
        case (.container(_, let x), .container(_, let y)): return utf16Compare(x, y) < 0
        case (.number, _), (.range, _):
            let x = a.sortNumber, y = b.sortNumber
            if x != y { return x < y }
            // A number and the range it starts (one view holds one or the other).
            if case .number = a, case .range = b { return true }
            return false
        default: return false
        }
    }

    public static func == (a: ColumnValue, b: ColumnValue) -> Bool {
        switch (a, b) {
        case (.missing, .missing), (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.range(let i, let w), .range(let j, let v)): i == j && w == v
        case (.container(_, let x), .container(_, let y)): codeUnitsEqual(x, y)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rank)
        switch self {
        case .number(let x): hasher.combine(x)
        case .string(let s): hasher.combine(s)
        case .range(let i, let w):
            hasher.combine(i)
            hasher.combine(w)
        case .container(_, let json): hasher.combine(JSONKey(json))
        default: break
        }
    }
}

/// Reads one column of many children straight from the tape: the path's keys are UTF-8 once,
/// and no `JSONNode` or `String` is made on the way down (a million children are read in tens
/// of milliseconds, where `JSONNode.node(at:)` takes most of a second).
struct ColumnReader {
    let path: Path
    let keys: [[UInt8]]
    /// A computed column's value, read instead of the path (no value counts as missing).
    let computed: ChildValue?

    init(_ path: Path) {
        self.path = path
        keys = path.keys.map { Array($0.utf8) }
        computed = nil
    }

    init(_ computed: ChildValue) {
        path = .root
        keys = []
        self.computed = computed
    }

    /// The column's name: its path, or the computed column's expression.
    var name: String { computed?.text ?? path.description }

    /// The value of `child` at the path, as `ColumnValue(child, at: path)` reads it.
    func value(of child: JSONNode) -> ColumnValue {
        child.document.withTapeReader { value(of: child, $0) }
    }

    /// The value of `child` (a node of the document `tape` reads) at the path.
    func value(of child: JSONNode, _ tape: TapeReader) -> ColumnValue {
        if let computed {
            return computed.value(child.index, tape).map { ColumnValue(JSONDocument($0).root) } ?? .missing
        }
        var i = child.index
        for (k, key) in keys.enumerated() {
            switch tape.kind(i) {
            case .object:
                guard let member = key.withUnsafeBufferPointer({ tape.member(of: i, named: $0) }) else { return .missing }
                i = member
            case .array:
                // An element by its index: rare in a column's path, read the general way.
                let rest = Path(keys: Array(path.keys[k...]))
                return JSONNode(document: child.document, index: i).node(at: rest).map(ColumnValue.init) ?? .missing
            default:
                return .missing
            }
        }
        switch tape.kind(i) {
        case .null: return .null
        case .bool: return .bool(tape.firstByte(i) == UInt8(ascii: "t"))
        case .number: return .number(tape.number(i))
        case .string: return .string(JSONKey(tape.withStringBytes(i) { String(decoding: $0, as: UTF8.self) }))
        case .object, .array: return ColumnValue(JSONNode(document: child.document, index: i))
        }
    }
}

/// A number as JSON spells it, shortest first (`3`, `0.25`, `1e+21`).
func numberText(_ x: Double) -> String {
    x.isFinite ? JSONNumber(x).text : "\(x)"
}

/// A number as a JSON value (null for one that is not finite).
func numberJSON(_ x: Double) -> JSON {
    x.isFinite ? .number(JSONNumber(x)) : .null
}
