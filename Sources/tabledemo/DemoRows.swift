// The demo's rows: people with a city, a score and a note, some with text that must be
// sanitised (escape sequences, bidi overrides, tabs) and some wide (CJK, emoji).
import SeededRandom
import TableUI

struct DemoRow {
    var id: Int
    var name: String
    var city: String
    var score: Int
    var note: String
}

/// The rows, and the changes the demo makes to them (each returns the batch).
final class DemoRows: TableDataSource {
    private(set) var rows: [DemoRow] = []
    private var random: SplitMix64 // seeded, so a demo run (and its terminal test) is repeatable
    private var nextID = 1

    static let names = ["Ada", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "Edsger",
                        "Zoë", "José", "東京タワー", "🍣 sushi", "Ωmega", "evil\u{1b}[31mred", "rtl\u{202E}txet",
                        "tab\there", "👨‍👩‍👧 family", "Björk", "Søren"]
    static let cities = ["Paris", "Tōkyō", "Zürich", "Lagos", "Lima", "Oslo", "서울", "Reykjavík", "Nairobi", "Kraków"]
    static let notes = ["ok", "pending review", "needs a much longer explanation than fits", "⚠ check", "✓ done",
                        "line\nbreak", "naïve café", "—"]

    let columns = [
        TableColumn("#", numeric: true, minWidth: 3),
        TableColumn("name", minWidth: 8, maxWidth: 20),
        TableColumn("city", minWidth: 6, maxWidth: 12),
        TableColumn("score", numeric: true, minWidth: 5),
        TableColumn("note", minWidth: 10, maxWidth: 40),
    ]

    init(count: Int, seed: UInt64) {
        random = SplitMix64(seed: seed)
        rows = (0..<count).map { _ in makeRow() }
    }

    var numberOfRows: Int { rows.count }

    func cells(ofRow row: Int) -> [String] {
        let r = rows[row]
        return [String(r.id), r.name, r.city, String(r.score), r.note]
    }

    private func makeRow() -> DemoRow {
        defer { nextID += 1 }
        return DemoRow(id: nextID, name: DemoRows.names.randomElement(using: &random)!,
                       city: DemoRows.cities.randomElement(using: &random)!,
                       score: Int.random(in: 0..<1000, using: &self.random), note: DemoRows.notes.randomElement(using: &random)!)
    }

    /// Applies `change` and returns the batch from the old rows to the new ones.
    private func update(_ change: (inout [DemoRow]) -> Void) -> TableBatch {
        let old = rows
        change(&rows)
        let before = Dictionary(uniqueKeysWithValues: old.map { ($0.id, $0.score) })
        let notes = Dictionary(uniqueKeysWithValues: old.map { ($0.id, $0.note) })
        let after = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, ($0.score, $0.note)) })
        return TableBatch(from: old.map(\.id), to: rows.map(\.id)) { id in
            before[id] != after[id]?.0 || notes[id] != after[id]?.1
        }
    }

    func insert(at index: Int) -> TableBatch {
        update { $0.insert(makeRow(), at: min(max(0, index), $0.count)) }
    }

    func delete(at index: Int) -> TableBatch {
        update { if $0.indices.contains(index) { $0.remove(at: index) } }
    }

    func change(at index: Int, by delta: Int) -> TableBatch {
        update { if $0.indices.contains(index) { $0[index].score += delta } }
    }

    func move(from: Int, to: Int) -> TableBatch {
        update { r in
            guard r.indices.contains(from) else { return }
            let row = r.remove(at: from)
            r.insert(row, at: min(max(0, to), r.count))
        }
    }

    /// One to three random changes in one batch: inserts, deletes, score changes, moves.
    func randomBatch() -> TableBatch {
        update { r in
            for _ in 0..<Int.random(in: 1...3, using: &self.random) {
                switch Int.random(in: 0..<4, using: &self.random) {
                case 0: r.insert(makeRow(), at: Int.random(in: 0...r.count, using: &self.random))
                case 1 where r.count > 5: r.remove(at: Int.random(in: 0..<r.count, using: &self.random))
                case 2 where !r.isEmpty: r[Int.random(in: 0..<r.count, using: &self.random)].score += Int.random(in: -50...50, using: &self.random)
                default:
                    guard r.count > 1 else { continue }
                    let row = r.remove(at: Int.random(in: 0..<r.count, using: &self.random))
                    r.insert(row, at: Int.random(in: 0...r.count, using: &self.random))
                }
            }
        }
    }
}
