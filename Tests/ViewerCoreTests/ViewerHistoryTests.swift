// The time machine, in-process: stepping back through the revisions of a file another writer
// edits, the changes of each marked and held, writes off in the past, and back to the present.
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("The time machine")
struct ViewerHistoryTests {
    static func leaderboard(_ players: [(String, Int)]) -> String { ViewerKeysTests.leaderboard(players) }

    /// The marker column (second character) of the line showing `key`.
    static func marker(_ h: ViewerHarness, _ key: String) -> Character? {
        guard let line = h.line(ofKey: key) else { return nil }
        return Array(h.lines[line]).dropFirst().first
    }

    @Test("the time machine says who wrote each revision: this viewer's edit, another writer's save", arguments: [false, true])
    func tellsWhoWroteEachRevision(inMemory: Bool) throws {
        let json = #"{"players": {"a": {"name": "Ann", "score": 10}, "b": {"name": "Bo", "score": 20}}}"#
        let h = inMemory ? try ViewerHarness(memory: json, columns: 120, path: "/players") { $0.edit = true }
            : try ViewerHarness(json, columns: 120, path: "/players") { $0.edit = true }
        try h.save(#"{"players": {"a": {"name": "Ann", "score": 10}, "b": {"name": "Bo", "score": 21}}}"#)  // rev 2: another writer
        h.send(.tab, .tab, .character("+"))                                                                   // rev 3: this viewer
        try h.waitForWrites()
        try h.waitUntil("a's score 11") { _ in h.lines.first { $0.contains("Ann") }?.contains("11") == true }
        try h.save(#"{"players": {"a": {"name": "Ann", "score": 11}, "b": {"name": "Bo", "score": 22}}}"#)  // rev 4: another writer
        h.send(.character("["))
        #expect(h.screen.contains("HISTORY rev 3 of 4") && h.screen.contains("by this viewer"), "\(h.screen)")
        h.send(.character("["))
        #expect(h.screen.contains("HISTORY rev 2 of 4") && h.screen.contains("by other process"), "\(h.screen)")
    }

    @Test("[ steps back with each revision's changes marked and held, ] forward, P returns; the present is counted meanwhile; writes are off")
    func stepsBackAndForward() throws {
        let h = try ViewerHarness(memory: Self.leaderboard([("a", 10), ("b", 20), ("c", 30)]), columns: 120, path: "/players") { options in
            options.query = ViewQuery(flags: try! Query().orderByChild(Path("score")), pageSize: 200)
        }
        try h.save(Self.leaderboard([("a", 10), ("b", 25), ("c", 30)]))             // rev 2: b changed
        try h.save(Self.leaderboard([("a", 10), ("b", 25), ("c", 30), ("d", 5)]))   // rev 3: d added
        try h.save(Self.leaderboard([("a", 10), ("b", 25), ("d", 5)]))             // rev 4: c removed
        try h.save(Self.leaderboard([("a", 40), ("b", 25), ("d", 5)]))             // rev 5: a changed, moved
        try h.waitUntil("the present") { _ in h.hasRows(inOrder: ["d", "b", "a"]) }
        h.send(.character("g"), .character("j"))
        #expect(h.selectedKey == "b")

        h.send(.character("["))
        var screen = h.screen
        #expect(screen.contains("HISTORY rev 4 of 5") && screen.contains("1 changed") && screen.contains("1 newer"), "\(screen)")
        #expect(h.hasRows(inOrder: ["d", "a", "b", "c"]) && Self.marker(h, "c") == "-", "c removed in rev 4, held:\n\(screen)")
        h.advance(5)
        #expect(Self.marker(h, "c") == "-", "the mark is held")
        #expect(h.selectedKey == "b")

        h.send(.character("["))
        #expect(h.screen.contains("HISTORY rev 3 of 5") && h.hasRows(inOrder: ["d", "a", "b", "c"]) && Self.marker(h, "d") == "+")

        h.send(.character("["))
        screen = h.screen
        #expect(screen.contains("HISTORY rev 2 of 5") && h.line(ofKey: "d") == nil, "\(screen)")
        #expect(screen.contains("20 → 25") && Self.marker(h, "b") == "*", "b's old and new score:\n\(screen)")
        #expect(h.selectedKey == "b")

        // Nothing older than the first revision seen.
        h.send(.character("["))
        h.send(.character("["))
        #expect(h.screen.contains("no older revision kept"))

        // Writes are off in the past, and say why.
        h.send(.character("+"))
        #expect(h.screen.contains("in the past (HISTORY)"))

        // The present goes on: a new revision is counted, not shown.
        try h.save(Self.leaderboard([("a", 40), ("b", 25), ("d", 5), ("e", 50)]))   // rev 6
        screen = h.screen
        #expect(screen.contains("HISTORY rev 1 of 6") && screen.contains("5 newer") && h.line(ofKey: "e") == nil, "\(screen)")

        h.send(.character("]"), .character("]"))
        #expect(h.screen.contains("HISTORY rev 3 of 6"))

        h.send(.character("P"))
        screen = h.screen
        #expect(!screen.contains("HISTORY") && h.hasRows(inOrder: ["d", "b", "a", "e"]), "\(screen)")
        #expect(h.selectedKey == "b")
    }

    @Test("{ and } go to the previous and next revision that changed the selected row")
    func jumpsBetweenChangesOfTheSelectedRow() throws {
        let h = try ViewerHarness(memory: Self.leaderboard([("a", 1), ("b", 1)]), columns: 120, path: "/players")
        try h.save(Self.leaderboard([("a", 2), ("b", 1)]))   // rev 2: a
        try h.save(Self.leaderboard([("a", 2), ("b", 2)]))   // rev 3: b
        try h.save(Self.leaderboard([("a", 3), ("b", 2)]))   // rev 4: a
        try h.save(Self.leaderboard([("a", 3), ("b", 3)]))   // rev 5: b
        try h.waitUntil("the present") { $0.contains("rev 5") }
        #expect(h.selectedKey == "a")
        h.send(.character("{"))
        #expect(h.screen.contains("HISTORY rev 4 of 5") && h.screen.contains("2 → 3"))
        h.send(.character("{"))
        #expect(h.screen.contains("HISTORY rev 2 of 5") && h.screen.contains("1 → 2"))
        h.send(.character("{"))
        #expect(h.screen.contains("no earlier change of a kept"))
        h.send(.character("}"))
        #expect(h.screen.contains("HISTORY rev 4 of 5"))
        h.send(.character("}"))
        #expect(!h.screen.contains("HISTORY"))
    }
}

@Suite("The history's reach")
struct ViewerHistoryReachTests {
    static func leaderboard(_ players: [(String, Int)]) -> String { ViewerKeysTests.leaderboard(players) }

    /// The status bar (the line above the message line).
    static func status(_ h: ViewerHarness) -> String { h.lines.dropLast().last ?? "" }

    @Test("the status bar says how far back the history reaches; a sort or a filter keeps it, [ shows the past under the new query, and what cannot be shown is said")
    func reachSurvivesSortAndFilter() throws {
        let h = try ViewerHarness(memory: Self.leaderboard([("a", 10), ("b", 20), ("c", 30)]), columns: 120, path: "/players")
        #expect(!Self.status(h).contains(" revs"), "nothing kept yet: \(Self.status(h))")
        try h.save(Self.leaderboard([("a", 10), ("b", 25), ("c", 30)]))   // rev 2: b
        try h.save(Self.leaderboard([("a", 40), ("b", 25), ("c", 30)]))   // rev 3: a
        try h.waitUntil("rev 3") { $0.contains("rev 3") }
        var status = Self.status(h)
        var screen = h.screen
        #expect(status.contains("history 2 revs since "), "\(status)")

        // Sorted by score: the history stays, and the past is shown in the new order.
        h.send(.tab, .tab, .character("s"))
        try h.waitUntil("score order") { _ in h.hasRows(inOrder: ["b", "c", "a"]) }
        status = Self.status(h)
        #expect(status.contains("by score") && status.contains("history 2 revs since "), "\(status)")
        h.send(.character("["))
        #expect(h.screen.contains("HISTORY rev 2 of 3") && h.hasRows(inOrder: ["a", "b", "c"]), "\(h.screen)")
        #expect(h.screen.contains("20 → 25"), "b's change marked in the new order:\n\(h.screen)")
        h.send(.character("["))
        #expect(h.screen.contains("HISTORY rev 1 of 3") && h.hasRows(inOrder: ["a", "b", "c"]), "\(h.screen)")
        h.send(.character("P"))

        // Filtered: the past shows only the children that passed the filter then.
        h.send(.character("w"))
        h.type(".score >= 30")
        h.send(.enter)
        try h.waitUntil("filtered") { _ in h.hasRows(inOrder: ["c", "a"]) && h.line(ofKey: "b") == nil }
        status = Self.status(h)
        #expect(status.contains("history 2 revs") || status.contains("↶2 ") && !status.contains(" of 2"), "\(status)")
        h.send(.character("["))
        #expect(h.screen.contains("HISTORY rev 2 of 3") && h.hasRows(inOrder: ["c"]) && h.line(ofKey: "b") == nil, "\(h.screen)")
        h.send(.character("P"))

        // The filter cleared: the filtered rows cannot give the unfiltered past, and the status bar says so.
        try h.save(Self.leaderboard([("a", 45), ("b", 25), ("c", 30)]))   // rev 4, under the filter
        try h.waitUntil("rev 4") { $0.contains("rev 4") }
        h.send(.escape)
        try h.waitUntil("every row") { _ in h.hasRows(inOrder: ["b", "c", "a"]) }
        status = Self.status(h)
        #expect(status.contains("history 3 revs, none for this query"), "\(status)")
        try h.save(Self.leaderboard([("a", 45), ("b", 35), ("c", 30)]))   // rev 5
        try h.waitUntil("rev 5") { $0.contains("rev 5") }
        status = Self.status(h)
        #expect(status.contains("history 1 of 4 revs for this query since "), "\(status)")
        h.send(.character("["))
        #expect(h.screen.contains("HISTORY rev 4 of 5") && h.hasRows(inOrder: ["b", "c", "a"]), "\(h.screen)")
        h.send(.character("["))
        #expect(h.screen.contains("the 3 older revisions were kept under another sort, filter or page"), "\(h.screen)")

        // The change log still lists them; Enter on one says why the table cannot show it.
        h.send(.character("P"), .character("C"), .character("G"), .enter)
        screen = h.screen
        #expect(screen.contains("HISTORY rev 4 of 5") && screen.contains("cannot be shown under this one: rev 4 is as far back"), "\(screen)")

        // Narrow: the reach shortens to its arrow, then goes before the revision's time; numbers stay whole.
        h.send(.character("P"))
        h.canvas.resize(rows: 24, columns: 72)
        h.send(.resize)
        status = Self.status(h)
        #expect(status.contains("↶1 of 4") && status.contains("3 rows") && !status.contains("…"), "\(status)")
        #expect(status.contains("rev 5 at "), "\(status)")
        h.canvas.resize(rows: 24, columns: 60)
        h.send(.resize)
        status = Self.status(h)
        #expect(!status.contains("↶") && status.contains("3 rows") && status.contains("rev 5 at ") && !status.contains("…"), "\(status)")
    }
}
