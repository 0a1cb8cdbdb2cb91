// One column of many children as numbers, read straight from the tape (what charts draw).
import JSONTree
import LiveQuery

/// The numbers of one column — a path inside each child, or a computed column — as a chart
/// reads them: a row's number, or nil (NaN in the bulk read) where it holds something else.
///
/// ```swift
/// let score = NumberColumn(path: try Path("score"))
/// let xs = score.numbers(of: window)        // one pass, one array, NaN where not a number
/// ```
public struct NumberColumn: Sendable {
    private let reader: ColumnReader

    public init(path: Path) { reader = ColumnReader(path) }
    public init(computed: ChildValue) { reader = ColumnReader(computed) }

    /// `child`'s number in the column; nil when it holds no number there.
    public func number(of child: JSONNode) -> Double? {
        child.document.withTapeReader { reader.number(at: child.index, child.document, $0) }
    }

    /// Every row's number in row order, NaN where a row holds no number (JSON has no NaN, so
    /// NaN says "not a number" unambiguously).
    /// - Complexity: one pass over the rows' tape entries; no allocation per row.
    public func numbers(of window: Window) -> [Double] {
        NumberColumn.numbers([self], of: window)[0]
    }

    /// Each column's numbers, as `numbers(of:)`, reading each row once for all of them.
    public static func numbers(_ columns: [NumberColumn], of window: Window) -> [[Double]] {
        var result = columns.map { _ in [Double](repeating: .nan, count: window.count) }
        let document = window.document
        document.withTapeReader { tape in
            for (c, column) in columns.enumerated() {
                result[c].withUnsafeMutableBufferPointer { out in
                    for i in 0..<window.count {
                        out[i] = column.reader.number(at: window.valueIndex(at: i), document, tape) ?? .nan
                    }
                }
            }
        }
        return result
    }
}

extension ColumnReader {
    /// The number at the path below the node at tape index `index` of `document` (`tape` reads
    /// it), nil when there is no number there; nothing is made on the way unless the column is
    /// computed or the path goes through an array.
    func number(at index: Int, _ document: JSONDocument, _ tape: TapeReader) -> Double? {
        if computed != nil || keys.isEmpty {
            if computed == nil { return tape.kind(index) == .number ? tape.number(index) : nil }
            guard case .number(let x) = value(of: JSONNode(document: document, index: index), tape) else { return nil }
            return x
        }
        var i = index
        for key in keys {
            guard tape.kind(i) == .object else {
                guard case .number(let x) = value(of: JSONNode(document: document, index: index), tape) else { return nil }
                return x
            }
            guard let member = key.withUnsafeBufferPointer({ tape.member(of: i, named: $0) }) else { return nil }
            i = member
        }
        return tape.kind(i) == .number ? tape.number(i) : nil
    }
}
