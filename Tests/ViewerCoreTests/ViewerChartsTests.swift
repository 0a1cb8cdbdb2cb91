// Chart sheets in-process: a histogram, a scatter and a time series kept live equal the same
// chart drawn from scratch on the final data; bad input opens nothing; E writes SVG.
import JSONTree
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("Chart sheets")
struct ViewerChartsTests {
    /// Players with a score and a level; p0 and p1 hold the extremes, so a chart's scales stay
    /// the same whatever the others become.
    static func players(_ rows: [(score: Double, level: Double, team: String)]) -> String {
        "{\"players\": {" + rows.enumerated().map { i, r in
            "\"p\(i)\": {\"score\": \(r.score), \"level\": \(r.level), \"team\": \"\(r.team)\"}"
        }.joined(separator: ", ") + "}}"
    }

    static func randomPlayers(_ rng: inout SplitMix64, count: Int) -> [(score: Double, level: Double, team: String)] {
        // The teams stay (a legend's order is its first frequencies, kept while live).
        [(0, 0, "red"), (100, 50, "blue")] + (2..<count).map { i in
            (Double(rng.int(1...99)), Double(rng.int(1...49)), ["red", "blue", "gold"][i % 3])
        }
    }

    /// The chart's lines (above the status bar).
    static func chart(_ h: ViewerHarness) -> [String] { Array(h.lines.prefix(h.canvas.size.rows - 2)) }

    static func cursor(to title: String, _ h: ViewerHarness) {
        for _ in 0..<6 where ViewerKeysTests.cursorTitle(h) != title { h.send(.right) }
    }

    /// Opens a chart with `keys` (and an answer to its prompt) on the score column.
    static func open(_ h: ViewerHarness, _ key: Character, answer: String? = nil) {
        cursor(to: "score", h)
        h.send(.character(key))
        if let answer {
            h.type(answer)
            h.send(.enter)
        }
    }

    /// A live chart after random edits equals the chart opened on the final data.
    /// - Parameter counts: how many players each revision has (rows come and go when it varies).
    static func liveEqualsScratch(_ key: Character, answer: String? = nil, seed: UInt64, title: String,
                                  counts: ClosedRange<Int> = 30...30) throws {
        var rng = SplitMix64(seed: seed)
        let live = try ViewerHarness(memory: players(randomPlayers(&rng, count: rng.int(counts))), rows: 20, columns: 90, path: "/players")
        open(live, key, answer: answer)
        try live.waitUntil(title) { $0.contains(title) }
        var final = ""
        for _ in 0..<6 {
            final = players(randomPlayers(&rng, count: rng.int(counts)))
            try live.save(final)
        }
        let scratch = try ViewerHarness(memory: final, rows: 20, columns: 90, path: "/players")
        open(scratch, key, answer: answer)
        try scratch.waitUntil(title) { $0.contains(title) }
        #expect(chart(live) == chart(scratch), "live:\n\(chart(live).joined(separator: "\n"))\nscratch:\n\(chart(scratch).joined(separator: "\n"))")
    }

    @Test("# draws a histogram of the column; after random edits it equals one drawn from scratch")
    func histogramLiveEqualsScratch() throws {
        try Self.liveEqualsScratch("#", seed: 51, title: "score histogram")
    }

    @Test(". asks for a second column and draws a scatter; after random edits it equals one drawn from scratch")
    func scatterLiveEqualsScratch() throws {
        try Self.liveEqualsScratch(".", answer: "level team", seed: 52, title: "level against score by team")
    }

    @Test("a scatter whose rows come and go (each row's point in a slot that follows it) equals one drawn from scratch")
    func scatterWithRowsComingAndGoingEqualsScratch() throws {
        for seed: UInt64 in [54, 55, 56] {
            try Self.liveEqualsScratch(".", answer: "level", seed: seed, title: "level against score", counts: 12...40)
        }
    }

    @Test("one moved point redraws a cell or two, not the chart")
    func scatterMovesOnePointInPlace() throws {
        var rng = SplitMix64(seed: 53)
        var rows = Self.randomPlayers(&rng, count: 30)
        let h = try ViewerHarness(memory: Self.players(rows), rows: 20, columns: 90, path: "/players")
        Self.open(h, ".", answer: "level")
        try h.waitUntil("the scatter") { $0.contains("level against score") }
        h.canvas.clearOperations()
        rows[5] = (rows[5].score < 50 ? 90 : 10, rows[5].level, rows[5].team)
        try h.save(Self.players(rows))
        h.viewer.render()
        let chartCells = h.canvas.operations.reduce(0) { n, op in
            if case .draw(let line, _, let text) = op, line < 18 { return n + text.count }
            return n
        }
        #expect(chartCells > 0 && chartCells <= 4, "\(h.canvas.operations)")
    }

    @Test("Enter on a cell of the scatter opens the rows under it")
    func scatterEnterOpensTheRows() throws {
        let h = try ViewerHarness(memory: Self.players([(0, 0, "a"), (100, 50, "b"), (100, 50, "c")]), rows: 20, columns: 90, path: "/players")
        Self.open(h, ".", answer: "level")
        try h.waitUntil("the scatter") { $0.contains("level against score") }
        // The cursor starts in the middle; the plot's top right cell (under the legend line)
        // holds p1 and p2.
        for _ in 0..<20 { h.send(.up) }
        h.send(.down)
        for _ in 0..<100 { h.send(.right) }
        h.send(.enter)
        let screen = try h.waitUntil("the rows") { _ in h.line(ofKey: "p1") != nil }
        #expect(h.line(ofKey: "p2") != nil && h.line(ofKey: "p0") == nil && screen.contains("2 rows"), "\(screen)")
        h.send(.character("q"))
        #expect(h.screen.contains("level against score"))
    }

    @Test("a column without numbers, or with one, opens no chart and says why in one line; a mixed one says how many it left out")
    func badInput() throws {
        let h = try ViewerHarness(memory: #"{"p": {"a": {"score": "x", "n": 1}, "b": {"score": "y", "n": "z"}}}"#, rows: 20, columns: 90, path: "/p")
        Self.open(h, "#")
        #expect(h.messageArea.contains("score holds no numbers: nothing to chart") && !h.screen.contains("› score histogram"))
        Self.cursor(to: "n", h)
        h.send(.character("#"))
        #expect(h.messageArea.contains("n holds only one number: a histogram needs two") && !h.screen.contains("› n histogram"))
        let mixed = try ViewerHarness(memory: #"{"p": {"a": {"score": 1}, "b": {"score": 2}, "c": {"score": "x"}}}"#, rows: 20, columns: 90, path: "/p")
        Self.open(mixed, "#")
        let screen = try mixed.waitUntil("the histogram") { $0.contains("score histogram") }
        #expect(screen.contains("1 row of score not a number: left out") && screen.contains("2 values"), "\(screen)")
    }

    @Test("@ charts the selected row's values over the kept revisions, live; [ moves the time machine's mark")
    func timeSeriesFollowsTheHistory() throws {
        let h = try ViewerHarness(memory: Self.players([(1, 0, "a"), (2, 0, "b")]), rows: 20, columns: 90, path: "/players")
        for score in [5.0, 3, 8] {
            h.now += 1
            try h.save(Self.players([(score, 0, "a"), (2, 0, "b")]))
        }
        Self.open(h, "@")
        var screen = try h.waitUntil("the series") { $0.contains("score of p0 over time") }
        #expect(screen.contains("3 values"), "\(screen)")
        try h.save(Self.players([(9, 0, "a"), (2, 0, "b")]))
        screen = try h.waitUntil("a fourth value") { $0.contains("4 values") }
        // The time machine's position is a bold column of the plot (none in the present).
        func markedCells() -> Int {
            _ = h.lines
            return (1..<h.canvas.size.rows - 2).reduce(0) { n, line in
                n + (0..<h.canvas.size.columns).filter { h.canvas.style(line: line, column: $0).attributes.contains(.bold) }.count
            }
        }
        let present = Self.chart(h)
        #expect(markedCells() == 0)
        h.send(.character("["))
        #expect(h.screen.contains("HISTORY") && markedCells() > 0, "\(h.screen)")
        h.send(.character("P"))
        #expect(Self.chart(h) == present && markedCells() == 0)
    }

    @Test("E on a chart writes SVG")
    func exportsSVG() throws {
        let h = try ViewerHarness(memory: Self.players([(0, 0, "a"), (100, 50, "b"), (40, 10, "c")]), rows: 20, columns: 90, path: "/players")
        Self.open(h, "#")
        try h.waitUntil("the histogram") { $0.contains("score histogram") }
        let file = h.folder.file("chart.svg")
        h.send(.character("E"))
        h.type(file)
        h.send(.enter)
        let svg = h.folder.read("chart.svg")
        #expect(svg.hasPrefix("<svg") || svg.contains("<svg"), "\(h.messageArea)")
        #expect(svg.contains("class=\"bar\"") && h.screen.contains("wrote the score histogram"), "\(h.screen)")
    }
}
