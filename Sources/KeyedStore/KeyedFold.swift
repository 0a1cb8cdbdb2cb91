// A log's records folded by a key: each record the new value of the child with its key.
import Expressions
import JSONTree

/// The records of a log folded into one child per key (an upsert per record), as
/// `jq -n 'reduce inputs as $r ({}; .[$r.k] = $r)'` folds them; a record `deleteWhen` keeps
/// removes its key's child instead. A record without a key (no value, `null`, an error, or not
/// a string or a number), and an invalid line, is an error row keyed `$N` (N: its record's
/// index), never dropped.
///
/// Folding is incremental: each call reads only the records after those already folded.
public struct KeyedFold: Sendable {
    public let key: Expression
    public let deleteWhen: Expression?
    /// Records folded so far.
    public private(set) var folded = 0
    /// Keys in the order they were (last) added; a key removed and added again moves to the end,
    /// as in jq's objects. A key's place is the last index `position` gives it.
    private var order: [String] = []
    private var position: [String: Int] = [:]
    private var values: [String: JSON] = [:]

    public init(key: Expression, deleteWhen: Expression? = nil) {
        self.key = key
        self.deleteWhen = deleteWhen
    }

    /// Folds the records of `log` (an array's elements, or an object's members, in order) after
    /// the first `folded`.
    /// - Returns: whether any child changed.
    @discardableResult
    public mutating func fold(_ log: JSONNode) -> Bool {
        let records: [JSONNode] = log.kind == .array ? Array(log.elements) : log.members.map(\.value)
        guard folded < records.count else { return false }
        for record in records[folded...] {
            apply(record, index: folded)
            folded += 1
        }
        return true
    }

    /// `log`'s records folded (on top of those already folded), as a document.
    public func document(folding log: JSONDocument) -> JSONDocument {
        var fold = self
        fold.fold(log.root)
        return JSONDocument(fold.value)
    }

    /// The children so far, in order.
    public var value: JSON {
        .object(JSONObject(order.enumerated().compactMap { i, key in
            position[key] == i ? values[key].map { (key: key, value: $0) } : nil
        }))
    }

    private mutating func apply(_ record: JSONNode, index: Int) {
        if record.kind == .object, record[key: JSONLinesBuilder.errorMember] != nil { return set("$\(index)", record.json) }
        let name: String
        switch key.value(of: record) {
        case .value(.string(let s)) where !s.isEmpty: name = s
        case .value(.number(let n)): name = n.text
        case .value(.string): return set("$\(index)", errorRow(index, "--key \(key.text) gives an empty string"))
        case .value(let other): return set("$\(index)", errorRow(index, "--key \(key.text) gives \(other.serializedString()), not a string or a number"))
        case .empty: return set("$\(index)", errorRow(index, "--key \(key.text) gives no value"))
        case .error(let message): return set("$\(index)", errorRow(index, "--key \(key.text): \(message)"))
        }
        if let deleteWhen, record.document.withTapeReader({ deleteWhen.keeps(record.index, in: $0) }) {
            values[name] = nil
            position[name] = nil
        } else {
            set(name, record.json)
        }
    }

    private mutating func set(_ name: String, _ value: JSON) {
        if values[name] == nil {
            position[name] = order.count
            order.append(name)
        }
        values[name] = value
    }

    private func errorRow(_ index: Int, _ message: String) -> JSON {
        .object(JSONObject([(key: JSONLinesBuilder.errorMember, value: .object(JSONObject([
            (key: "record", value: .number(JSONNumber(index))), (key: "message", value: .string(message)),
        ])))]))
    }
}
