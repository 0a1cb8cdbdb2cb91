import JSONTree
import LiveQuery
@testable import LiveViews
import Testing
import TestSupport

@Suite struct StatisticsViewTests {
    let players = Path(keys: ["players"])
    let columns = [Path(keys: ["team"]), Path(keys: ["score"]), Path(keys: ["tag"]), Path(keys: ["m", "v"])]
    /// A computed column: twice a child's `score` (or `v`) when it is a number, else no value.
    static func doubled(_ member: String) -> ChildValue {
        ChildValue(text: ".\(member) * 2") { value, tape in
            guard tape.kind(value) == .object,
                  let n = Array(member.utf8).withUnsafeBufferPointer({ tape.member(of: value, named: $0) }), tape.kind(n) == .number
            else { return nil }
            return .number(JSONNumber(tape.number(n) * 2))
        }
    }

    /// Equal counts and order statistics; sums and deviations within rounding.
    func differences(_ a: ColumnStatistics, _ b: ColumnStatistics) -> [String] {
        var out = [String]()
        let counts = [a.missing, a.nulls, a.bools, a.numbers, a.strings, a.objects, a.arrays, a.distinct]
        let wanted = [b.missing, b.nulls, b.bools, b.numbers, b.strings, b.objects, b.arrays, b.distinct]
        if counts != wanted { out.append("counts \(counts) want \(wanted)") }
        if a.min != b.min || a.max != b.max || a.median != b.median { out.append("min/max/median \([a.min, a.max, a.median]) want \([b.min, b.max, b.median])") }
        if a.shortest != b.shortest || a.longest != b.longest { out.append("lengths \([a.shortest, a.longest]) want \([b.shortest, b.longest])") }
        for (name, x, y) in [("sum", a.sum, b.sum), ("mean", a.mean, b.mean), ("sd", a.standardDeviation, b.standardDeviation)] {
            switch (x, y) {
            case (nil, nil): break
            case let (x?, y?) where abs(x - y) <= 1e-9 * max(1, abs(y)): break
            default: out.append("\(name) \(String(describing: x)) want \(String(describing: y))")
            }
        }
        return out
    }

    @Test func liveStatisticsEqualStatisticsFromScratch() throws {
        // The paths, and a computed column read the same way.
        let all = columns.map(StatisticsView.Column.path) + [.computed(Self.doubled("score"))]
        try forEachSeed(25) { seed, rng in
            let view = StatisticsView(all)
            try followRandomEdits(&rng, steps: 25, start: { view.apply(WindowChange.initial($0)) }) { step, change in
                let before = view.rows
                let batch = view.apply(change)
                let scratch = StatisticsView.statistics(of: change.new, all)
                let problems = zip(view.rows, scratch).flatMap { differences($0, $1).map { "\($0)" } }
                #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
                // Only rows whose statistics changed are reloaded, and each of those is.
                let changed = zip(before, view.rows).enumerated().filter { !differences($0.element.0, $0.element.1).isEmpty }.map(\.offset)
                #expect(Set(changed).isSubset(of: Set(batch.reloads.map(\.to))), "seed \(seed) step \(step)")
                #expect(batch.oldCount == all.count && batch.newCount == all.count && batch.moves.isEmpty)
                return problems.isEmpty
            }
        }
    }

    /// Issue 52: a column of distinct numbers and a null says as many distinct values as numbers;
    /// the null is counted under nulls. A column mostly of strings counts its strings.
    @Test func distinctCountsValuesOfTheColumnsKind() throws {
        let children: [(key: String, value: JSON)] = [
            ("a", ["v": 1, "t": "x"]), ("b", ["v": 2, "t": "x"]), ("c", ["v": .null, "t": 3]), ("d", ["v": 2, "t": "y"]), ("e", ["v": 3.5]),
        ]
        let window = Window(query: Query(), path: players, document: try document(children))
        let view = StatisticsView(columns: [Path(keys: ["v"]), Path(keys: ["t"])])
        view.apply(WindowChange.initial(window))
        #expect(view[0].distinct == 3 && view[0].nulls == 1)
        #expect(view[1].distinct == 2 && view[1].missing == 1 && view[1].numbers == 1)
    }

    @Test func aColumnOfNumbersAndStrings() throws {
        let children: [(key: String, value: JSON)] = [
            ("a", ["v": 4]), ("b", ["v": 1]), ("c", ["v": "hello"]), ("d", ["v": 7]), ("e", ["w": 1]), ("f", ["v": "hé"]), ("g", ["v": 4]),
        ]
        let window = Window(query: Query(), path: players, document: try document(children))
        let view = StatisticsView(columns: [Path(keys: ["v"])])
        view.apply(WindowChange.initial(window))
        let s = view[0]
        // Distinct values of the column's kind: numbers (4, 1, 7), not the strings or the missing one.
        #expect(s.numbers == 4 && s.strings == 2 && s.missing == 1 && s.distinct == 3)
        #expect(s.min == 1 && s.max == 7 && s.sum == 16 && s.mean == 4 && s.median == 4)
        #expect(abs(s.standardDeviation! - 6.0.squareRoot()) < 1e-12)  // sample: 18 / 3
        #expect(s.shortest == 2 && s.longest == 5)
        // A computed column: its values, not the child's (a child without a number has none).
        let computed = StatisticsView([.computed(Self.doubled("v"))])
        computed.apply(WindowChange.initial(window))
        let c = computed[0]
        #expect(c.numbers == 4 && c.missing == 3 && c.objects == 0 && c.sum == 32 && c.max == 14 && c.median == 8)
    }
}
