// Which columns the table shows: the key, then members of the children (inferred, or given
// with --columns), each knowing whether it holds numbers.
import JSONTree
import RateStore
import LiveQuery
import SyncedArray
import TableUI

/// What one column shows for a child.
enum ColumnSpec: Hashable {
    /// The child's key (always the first column).
    case key
    /// The child itself: the one column of a scalar child.
    case value
    /// The value at a path inside the child (`score`, `metrics/views`).
    case member(Path)
    /// The recent values of a numeric path inside the child, from the history, as a sparkline.
    case spark(Path)
    /// A value an expression computes from the child.
    case computed(ComputedColumn)

    var title: String {
        switch self {
        case .key: "key"
        case .value: "value"
        case .member(let path): path.keys.joined(separator: "/")
        case .spark(let path): path.keys.joined(separator: "/") + " trend"
        case .computed(let column): column.title
        }
    }

    /// The value this column shows for a child (nil: missing, shown empty; a trend is not a value;
    /// a computed column with no value, or an error, has none).
    func node(in child: JSONNode) -> JSONNode? {
        switch self {
        case .key, .spark: nil
        case .value: child
        case .member(let path): child.node(at: path)
        case .computed(let column):
            if case .value(let json) = column.result(for: child) { JSONDocument(json).root } else { nil }
        }
    }

    /// The column's cell for a row: an expression's error for the row is shown as `⚠ ` and jq's
    /// message; a number in `format` when one is given (else as written).
    func cell(key: String, child: JSONNode, format: NumberFormat? = nil) -> String {
        switch self {
        case .key: return key
        case .computed(let column):
            switch column.result(for: child) {
            case .value(.number(let n)): return format?.text(for: n.text) ?? n.text
            case .value(let json): return cellText(JSONDocument(json).root)
            case .empty: return ""
            case .error(let message): return "⚠ " + message
            }
        default:
            let node = node(in: child)
            if let format, let node, node.kind == .number, let spelled = node.numberText { return format.text(for: spelled) ?? spelled }
            return cellText(node)
        }
    }
}

/// The columns of the table, in order, with the key first.
///
/// Inferred columns are the union of the members of the rows' children, most common
/// first (ties: the first seen first); a child that is not an object counts towards one
/// `value` column. While the table is live, members seen for the first time are appended at
/// the end, so columns never jump while the user reads them; a new location or a reload
/// infers them afresh.
/// The paths of the numbers (and resets) inside a `$rate` member.
private func ratePaths(_ node: JSONNode, _ path: [String]) -> [[String]] {
    guard node.kind == .object else { return [path] }
    return node.members.flatMap { m in m.key.stringValue.map { ratePaths(m.value, path + [$0]) } ?? [] }
}

struct ColumnSet {
    private(set) var specs: [ColumnSpec]
    /// Per column: every value present is a number (right-aligned, ↑/↓ on change).
    private(set) var numeric: [Bool]
    /// Given by --columns: never extended.
    let isFixed: Bool
    /// Columns the user hid (`x`, `--columns -name`): not shown, and not added back when a
    /// child has them, until shown again (`X`).
    private(set) var hidden: [ColumnSpec] = []
    /// Where each column hidden with `x` was, so that `X` puts it back there.
    private var hiddenPlaces: [ColumnSpec: Int] = [:]
    /// Widths the user set (`>` `<`), in cells.
    private(set) var widths: [ColumnSpec: Int] = [:]
    /// How columns show their numbers (`%`); a column without one shows them as written.
    private(set) var formats: [ColumnSpec: NumberFormat] = [:]
    /// Columns the user placed by hand (moved, shown again): columns inferred afresh keep them
    /// where they were.
    private var placedByHand: Set<ColumnSpec> = []

    /// More would not fit any terminal; members past this are not shown.
    static let maximumColumns = 64

    init(fixed members: [Path]) {
        specs = [.key] + members.map { $0.isRoot ? .value : .member($0) }
        numeric = Array(repeating: false, count: specs.count)
        isFixed = true
    }

    /// The columns of the children in `rows`.
    /// - Complexity: O(rows × members).
    init(inferredFrom rows: [SyncedRow]) {
        specs = [.key]
        numeric = [false]
        isFixed = false
        var counts: [ColumnSpec: (count: Int, first: Int)] = [:]
        for row in rows {
            for spec in ColumnSet.memberSpecs(of: row.value) {
                let seen = counts[spec] ?? (0, counts.count)
                counts[spec] = (seen.count + 1, seen.first)
            }
        }
        let ordered = counts.sorted { a, b in
            a.value.count != b.value.count ? a.value.count > b.value.count : a.value.first < b.value.first
        }
        specs += ordered.prefix(ColumnSet.maximumColumns - 1).map(\.key)
        numeric = Array(repeating: false, count: specs.count)
        recomputeNumeric(rows)
    }

    /// The specs a child contributes: its members (without `.priority`-style metadata), or `value`;
    /// none for an error row.
    private static func memberSpecs(of child: JSONNode) -> [ColumnSpec] {
        guard child.kind == .object else { return [.value] }
        // A line that is not a record has no fields: its `$error` marker is not a column.
        if errorRowText(child) != nil { return [] }
        var specs: [ColumnSpec] = []
        for (key, value) in child.members {
            guard let name = key.stringValue, !name.hasPrefix(".") else { continue }
            // Rates (`--rate`, R) are columns each, not one object.
            if name == rateMember { specs += ratePaths(value, [name]).map { .member(Path(keys: $0)) } } else { specs.append(.member(Path(keys: [name]))) }
        }
        return specs
    }

    /// Appends columns for members of `rows[indexes]` that no column shows yet (not for --columns).
    /// - Returns: whether columns were added.
    @discardableResult
    mutating func extend(from rows: [SyncedRow], at indexes: some Sequence<Int>) -> Bool {
        guard !isFixed else { return false }
        var known = Set(specs)
        var added = false
        for i in indexes {
            for spec in ColumnSet.memberSpecs(of: rows[i].value) where !hidden.contains(spec) {
                guard specs.count < ColumnSet.maximumColumns, known.insert(spec).inserted else { continue }
                specs.append(spec)
                numeric.append(false)
                added = true
            }
        }
        if added { recomputeNumeric(rows) }
        return added
    }

    // MARK: Shaping by the user

    /// Hides the column at `index` (never the key, column 0).
    mutating func hide(at index: Int) {
        guard index > 0, index < specs.count else { return }
        hiddenPlaces[specs[index]] = index
        hidden.append(specs.remove(at: index))
        numeric.remove(at: index)
    }

    /// Hides the columns named (`--columns -name`) before any is shown.
    mutating func hide(_ names: [ColumnSpec]) {
        for spec in names where !hidden.contains(spec) {
            if let i = specs.firstIndex(of: spec), i > 0 {
                hide(at: i)
            } else {
                hidden.append(spec)
            }
        }
    }

    /// Shows a hidden column again where it was (at the end if it never was shown);
    /// `recomputeNumeric` then decides its alignment.
    mutating func show(_ spec: ColumnSpec) {
        guard let i = hidden.firstIndex(of: spec) else { return }
        hidden.remove(at: i)
        let place = min(hiddenPlaces.removeValue(forKey: spec) ?? specs.count, specs.count)
        specs.insert(spec, at: place)
        numeric.insert(false, at: place)
        placedByHand.insert(spec)
    }

    /// Moves the column at `index` one place left (`delta` -1) or right; the key stays first.
    /// - Returns: its new index.
    mutating func move(at index: Int, by delta: Int) -> Int {
        let target = index + delta
        guard index > 0, target > 0, target < specs.count else { return index }
        specs.swapAt(index, target)
        numeric.swapAt(index, target)
        placedByHand.insert(specs[target])
        return target
    }

    /// Expands the column at `index` into `members` (the paths of its object's members), in its
    /// place; the object's own column is kept among the hidden ones, so that it is not inferred
    /// again. `recomputeNumeric` then decides the new columns' alignment.
    mutating func expand(at index: Int, into members: [ColumnSpec]) {
        guard index > 0, index < specs.count else { return }
        let fresh = members.filter { !specs.contains($0) }
        hidden.append(specs[index])
        placedByHand.formUnion(fresh)
        specs.replaceSubrange(index...index, with: fresh)
        numeric.replaceSubrange(index...index, with: Array(repeating: false, count: fresh.count))
    }

    /// Puts the columns below `parent` (`metrics/views`, `metrics/likes`) back into `parent`'s
    /// column, where the first of them was.
    /// - Returns: whether there were such columns.
    mutating func collapse(into parent: Path) -> Bool {
        func isBelow(_ spec: ColumnSpec) -> Bool {
            guard case .member(let p) = spec, p.keys.count > parent.keys.count else { return false }
            return zip(p.keys, parent.keys).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
        }
        guard let first = specs.firstIndex(where: isBelow) else { return false }
        let kept = specs.indices.filter { !isBelow(specs[$0]) }
        specs = kept.map { specs[$0] }
        numeric = kept.map { numeric[$0] }
        let spec = ColumnSpec.member(parent)
        hidden.removeAll { $0 == spec || isBelow($0) }
        if !specs.contains(spec) {
            specs.insert(spec, at: first)
            numeric.insert(false, at: first)
        }
        return true
    }

    /// These columns for new rows (a new location's, a log's that started over): inferred
    /// afresh from `rows`, keeping what the user chose — hidden columns, widths, computed and
    /// trend columns, and the columns placed by hand, where they were, when the rows have them.
    /// Columns given by `--columns` stay as they are.
    func reinferred(from rows: [SyncedRow]) -> ColumnSet {
        guard !isFixed else { return self }
        var fresh = ColumnSet(inferredFrom: rows)
        fresh.hide(hidden)
        fresh.widths = widths
        fresh.formats = formats
        for (index, spec) in specs.enumerated() {
            switch spec {
            case .computed(let column): fresh.addComputed(column, at: fresh.specs.count)
            case .spark(let path): fresh.toggleSpark(path)
            case .key, .value, .member:
                guard placedByHand.contains(spec), rows.contains(where: { spec.node(in: $0.value) != nil }) else { continue }
                if let i = fresh.specs.firstIndex(of: spec) {
                    fresh.specs.remove(at: i)
                    fresh.numeric.remove(at: i)
                }
                let at = min(index, fresh.specs.count)
                fresh.specs.insert(spec, at: at)
                fresh.numeric.insert(false, at: at)
                fresh.placedByHand.insert(spec)
            }
        }
        fresh.recomputeNumeric(rows)
        return fresh
    }

    /// These columns for a log's new file (it started over): inferred afresh as
    /// `reinferred(from:)` does; of the columns given by `--columns`, those the new rows have.
    func forNewFile(_ rows: [SyncedRow]) -> ColumnSet {
        guard isFixed else { return reinferred(from: rows) }
        var kept = self
        for i in kept.specs.indices.reversed() {
            switch kept.specs[i] {
            case .value, .member:
                guard !rows.contains(where: { kept.specs[i].node(in: $0.value) != nil }) else { continue }
                kept.specs.remove(at: i)
                kept.numeric.remove(at: i)
            case .key, .computed, .spark: continue
            }
        }
        kept.recomputeNumeric(rows)
        return kept
    }

    /// Adds computed columns after the others, except that one whose name `--columns` gives
    /// (`--computed 'nd = .depends | length' --columns package,nd`) takes that column's place:
    /// the user defined it, so the name is that column, not a member no child has.
    mutating func addComputed(_ columns: [ComputedColumn]) {
        for column in columns {
            if isFixed, let name = column.name, let i = specs.firstIndex(of: .member(Path(keys: [name]))) {
                specs[i] = .computed(column)
            } else {
                addComputed(column, at: specs.count)
            }
        }
    }

    /// Adds a computed column at `index` (clamped); `recomputeNumeric` then decides its alignment.
    /// - Returns: whether it was added (not when a column has the same definition).
    @discardableResult
    mutating func addComputed(_ column: ComputedColumn, at index: Int) -> Bool {
        let spec = ColumnSpec.computed(column)
        guard !specs.contains(spec) else { return false }
        hidden.removeAll { $0 == spec }
        let at = max(1, min(index, specs.count))
        specs.insert(spec, at: at)
        numeric.insert(false, at: at)
        return true
    }

    /// Adds a member's column at `index` (clamped), unless it is shown.
    mutating func addMember(_ path: Path, at index: Int) {
        let spec = ColumnSpec.member(path)
        guard !specs.contains(spec) else { return }
        hidden.removeAll { $0 == spec }
        let at = max(1, min(index, specs.count))
        specs.insert(spec, at: at)
        numeric.insert(false, at: at)
    }

    /// Adds a trend column of `path` right after its member's column (or last), or removes it.
    /// - Returns: whether it is shown now.
    @discardableResult
    mutating func toggleSpark(_ path: Path) -> Bool {
        if let i = specs.firstIndex(of: .spark(path)) {
            specs.remove(at: i)
            numeric.remove(at: i)
            return false
        }
        let at = specs.firstIndex(of: .member(path)).map { $0 + 1 } ?? specs.count
        specs.insert(.spark(path), at: at)
        numeric.insert(false, at: at)
        return true
    }

    /// The paths with trend columns.
    var sparkPaths: [Path] {
        specs.compactMap { if case .spark(let path) = $0 { path } else { nil } }
    }

    mutating func setWidth(_ width: Int, of spec: ColumnSpec) {
        widths[spec] = width
    }

    /// Shows `spec`'s numbers in `format` (nil: as written).
    mutating func setFormat(_ format: NumberFormat?, of spec: ColumnSpec) {
        formats[spec] = format
    }

    /// Decides which columns are numeric from `rows`.
    /// - Complexity: O(rows × columns).
    mutating func recomputeNumeric(_ rows: [SyncedRow]) {
        numeric = specs.map { spec in
            var sawNumber = false
            for row in rows {
                if spec == .key {
                    guard integerKeyValue(row.key) != nil else { return false }
                    sawNumber = true
                    continue
                }
                guard let node = spec.node(in: row.value), !node.isNull else { continue }
                guard node.kind == .number else { return false }
                sawNumber = true
            }
            return sawNumber
        }
    }
}
