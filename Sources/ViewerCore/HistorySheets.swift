// The history as sheets: the change log (every kept change, newest first) and one row's timeline.
import JSONTree
import LiveQuery
import SyncedArray
import TableUI

/// The recent changes of the rows, newest first, one row per changed child per revision:
/// time, revision, event, key, and the changed fields with old → new values. Live: each new
/// revision's changes arrive at the top as one batch. Enter goes to that revision with that
/// row selected.
final class ChangeLogSheet: FeedSheet {
    let history: RevisionHistory
    /// Enter: the viewer shows revision `sequence` with `key` selected (or says why it cannot).
    private let go: (_ sequence: Int, _ key: String) -> String?
    private var entries: [(sequence: Int, change: Int)] = []
    var onBatch: ((BatchDiff) -> Void)?
    private(set) lazy var feed = SheetFeed.revisions(of: history) { [unowned self] in refresh() }

    init(history: RevisionHistory, go: @escaping (_ sequence: Int, _ key: String) -> String?) {
        self.history = history
        self.go = go
    }

    var title: String { "change log" }
    var columns: [TableColumn] {
        [TableColumn("time"), TableColumn("rev", numeric: true), TableColumn("event"), TableColumn("key", maxWidth: 24),
         TableColumn("change", maxWidth: 80)]
    }
    var rowCount: Int { entries.count }

    func willStart() {
        entries = currentEntries()
        onBatch?(BatchDiff(oldCount: 0, newCount: entries.count, deletes: [], inserts: Array(entries.indices), moves: [], reloads: []))
    }

    private func currentEntries() -> [(sequence: Int, change: Int)] {
        var result = [(sequence: Int, change: Int)]()
        for sequence in stride(from: history.lastSequence, through: history.firstSequence, by: -1) {
            guard let record = history.record(sequence) else { continue }
            for c in record.changes.indices { result.append((sequence, c)) }
        }
        return result
    }

    private func refresh() {
        let old = (0..<entries.count).map(key(ofRow:))
        entries = currentEntries()
        onBatch?(BatchDiff(from: old, to: (0..<entries.count).map(key(ofRow:))))
    }

    private func entry(_ i: Int) -> (record: RevisionRecord, change: ChildChange)? {
        guard entries.indices.contains(i), let record = history.record(entries[i].sequence) else { return nil }
        return (record, record.changes[entries[i].change])
    }

    func cells(ofRow i: Int) -> [String] {
        guard let (record, change) = entry(i) else { return [] }
        return [localTimeWithMilliseconds(record.time), String(record.revision), change.kind.rawValue, change.key, changeText(change)]
    }

    func value(ofRow i: Int) -> JSON {
        guard let (record, _) = entry(i) else { return .null }
        let line = record.jsonLine(entries[i].change)
        return (try? JSONDocument(parsing: line).root.json) ?? .null
    }

    func key(ofRow i: Int) -> String { "\(entries[i].sequence)/\(entries[i].change)" }

    func open(row i: Int) -> SheetOpening {
        guard let (record, change) = entry(i) else { return .message("no such change") }
        let refusal = go(entries[i].sequence, change.key)
        return .message(refusal ?? "rev \(record.revision): \(change.key) \(change.kind.rawValue)")
    }
}

/// One child's history: each kept revision that changed it, newest first, with the values it
/// had after; the title shows each numeric column's values over time as a sparkline.
final class TimelineSheet: FeedSheet {
    let history: RevisionHistory
    let key: String
    private let specs: [ColumnSpec]
    private let present: () -> JSONNode?
    private var entries: [(sequence: Int, record: RevisionRecord, change: ChildChange, value: JSON?)] = []
    private(set) lazy var feed = SheetFeed.revisions(of: history) { [unowned self] in refresh() }
    private let go: (_ sequence: Int, _ key: String) -> String?
    var onBatch: ((BatchDiff) -> Void)?

    init(history: RevisionHistory, key: String, specs: [ColumnSpec], present: @escaping () -> JSONNode?,
         go: @escaping (_ sequence: Int, _ key: String) -> String?) {
        self.history = history
        self.key = key
        self.specs = specs.filter { if case .member = $0 { true } else { $0 == .value } }
        self.present = present
        self.go = go
    }

    /// The most values a title's sparkline shows (the newest): the title stays whole however
    /// many revisions the row has.
    static let trendLength = 12

    var title: String {
        let trends = specs.compactMap { spec -> String? in
            let values = entries.reversed().map { $0.value.flatMap { value in node(spec, value)?.doubleValue } }
            // A column that never changed has no trend to show.
            let numbers = values.compactMap { $0 }
            guard let first = numbers.first, numbers.contains(where: { $0 != first }) || values.contains(where: { $0 == nil })
            else { return nil }
            return "\(spec.title) \(sparkline(Array(values.suffix(Self.trendLength))))"
        }
        return "timeline of \(key)" + (trends.isEmpty ? "" : " · " + trends.joined(separator: " · "))
    }

    var columns: [TableColumn] {
        [TableColumn("time"), TableColumn("rev", numeric: true), TableColumn("event")] + specs.map { spec in
            let values = entries.compactMap { $0.value.flatMap { node(spec, $0) } }.filter { $0 != .null }
            return TableColumn(spec.title, numeric: !values.isEmpty && values.allSatisfy { if case .number = $0 { true } else { false } })
        }
    }
    var rowCount: Int { entries.count }

    func willStart() {
        entries = history.timeline(ofKey: key, value: present()).reversed()
        onBatch?(BatchDiff(oldCount: 0, newCount: entries.count, deletes: [], inserts: Array(entries.indices), moves: [], reloads: []))
    }

    private func refresh() {
        let old = (0..<entries.count).map(key(ofRow:))
        entries = history.timeline(ofKey: key, value: present()).reversed()
        onBatch?(BatchDiff(from: old, to: (0..<entries.count).map(key(ofRow:))))
    }

    private func node(_ spec: ColumnSpec, _ value: JSON) -> JSON? {
        switch spec {
        case .member(let path): value[path: path]
        case .value: value
        default: nil
        }
    }

    func cells(ofRow i: Int) -> [String] {
        let e = entries[i]
        let values = specs.map { spec in e.value.flatMap { node(spec, $0) }.map(shownCell) ?? "" }
        return [localTimeWithMilliseconds(e.record.time), String(e.record.revision), e.change.kind.rawValue] + values
    }

    func value(ofRow i: Int) -> JSON { entries[i].value ?? .null }

    func key(ofRow i: Int) -> String { String(entries[i].sequence) }

    func open(row i: Int) -> SheetOpening {
        let refusal = go(entries[i].sequence, key)
        return .message(refusal ?? "rev \(entries[i].record.revision): \(key)")
    }
}

extension ViewerAction {
    public static let changeLog = Self("changeLog"), timeline = Self("timeline")
}

extension ChangeLogSheet: SheetOpener {
    static let opening = ViewerAction.changeLog
    static let bindings: [(after: ViewerAction, binding: KeyBinding)] = [
        (.rowChangeNext, KeyBinding("C", [.character("C")], .changeLog,
                                    "history: the change log, newest first (Enter: that revision, that row selected)")),
    ]

    /// `C`: the change log as a sheet.
    static func open(from children: ChildrenSheet) -> StackOpening {
        guard let history = children.array?.history else { return .said }
        history.loadAllEarlier()
        return .table(ChangeLogSheet(history: history) { [unowned children] sequence, key in
            children.goToRevision(sequence, selecting: key)
        })
    }
}

extension TimelineSheet: SheetOpener {
    static let opening = ViewerAction.timeline
    static let bindings: [(after: ViewerAction, binding: KeyBinding)] = [
        (.changeLog, KeyBinding("T", [.character("T")], .timeline,
                                "history: the selected row's timeline, each revision that changed it (numbers as sparklines)")),
    ]

    /// `T`: the selected row's timeline as a sheet.
    static func open(from children: ChildrenSheet) -> StackOpening {
        guard let history = children.array?.history, let (key, _) = children.selectedChild else { return .said }
        history.loadAllEarlier()
        let present: () -> JSONNode? = { [unowned children] in
            children.array.flatMap { a in a.index(ofKey: key).map { a[$0].value } }
        }
        return .table(TimelineSheet(history: history, key: key, specs: children.rows.columnSet.specs, present: present) {
            [unowned children] sequence, key in children.goToRevision(sequence, selecting: key)
        })
    }
}

/// A field's change in a log line: `score 10 → 42`, `tags (missing) → [2]`.
func changeText(_ change: ChildChange) -> String {
    switch change.kind {
    case .added: return change.value.flatMap(jsonText).map { "new " + $0 } ?? "new"
    case .removed: return change.value.flatMap(jsonText).map { "was " + $0 } ?? "removed"
    case .moved: return "row \(change.oldIndex! + 1) → \(change.newIndex! + 1)"
    case .changed:
        let fields = change.fields.map { f in
            (f.path.isEmpty ? "" : f.pathText + " ") + (f.old.flatMap(jsonText) ?? "(missing)") + " → " + (f.new.flatMap(jsonText) ?? "(missing)")
        }
        return fields.joined(separator: ", ") + (change.isMoved ? " (moved)" : "")
    }
}

/// A value as the table's cells show it, from JSON bytes.
private func jsonText(_ bytes: [UInt8]) -> String? {
    (try? JSONDocument(parsing: bytes)).map { cellText($0.root) }
}

/// A constructed value as a table cell.
private func shownCell(_ value: JSON) -> String {
    cellText(JSONDocument(value).root)
}
