// The change log and a row's timeline as sheets, in-process: what they list agrees with the
// edits made, they follow new revisions, and Enter goes to the revision.
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("The history's sheets")
struct ViewerHistorySheetsTests {
    static func leaderboard(_ players: [(String, Int)]) -> String { ViewerKeysTests.leaderboard(players) }

    @Test("C lists every change newest first and follows new ones; Enter shows that revision with that row selected")
    func changeLog() throws {
        let h = try ViewerHarness(memory: Self.leaderboard([("a", 10), ("b", 20)]), columns: 120, path: "/players")
        try h.save(Self.leaderboard([("a", 15), ("b", 20)]))             // rev 2
        try h.save(Self.leaderboard([("a", 15), ("b", 20), ("c", 7)]))   // rev 3
        try h.waitUntil("rev 3") { $0.contains("rev 3") }
        h.send(.character("C"))
        var lines = h.lines
        let added = try #require(lines.firstIndex { $0.contains("added") && $0.contains(" c ") })
        let changed = try #require(lines.firstIndex { $0.contains("changed") && $0.contains("score 10 → 15") })
        #expect(added < changed, "newest first:\n\(lines.joined(separator: "\n"))")

        // Live: the next revision's change arrives at the top.
        try h.save(Self.leaderboard([("a", 15), ("b", 21), ("c", 7)]))  // rev 4
        lines = h.lines
        let newest = try #require(lines.firstIndex { $0.contains("score 20 → 21") })
        #expect(newest < (lines.firstIndex { $0.contains("added") } ?? 0), "\(lines.joined(separator: "\n"))")

        // Enter on "a changed": revision 2, a selected, the change marked.
        while h.lines.firstIndex(where: { $0.hasPrefix("▶") && $0.contains("score 10 → 15") }) == nil { h.send(.character("j")) }
        h.send(.enter)
        let screen = h.screen
        #expect(screen.contains("HISTORY rev 2 of 4") && h.selectedKey == "a" && screen.contains("10 → 15"), "\(screen)")
    }

    @Test("T lists each revision that changed the selected row with its values, and their trend")
    func timeline() throws {
        let h = try ViewerHarness(memory: Self.leaderboard([("a", 1), ("b", 5)]), columns: 120, path: "/players")
        for (i, score) in [3, 2, 8].enumerated() {
            try h.save(Self.leaderboard([("a", score), ("b", 5 + i + 1)]))
        }
        try h.waitUntil("rev 4") { $0.contains("rev 4") }
        #expect(h.selectedKey == "a")
        h.send(.character("T"))
        let screen = h.screen
        #expect(screen.contains("timeline of a") && screen.contains("score ▂▁█"), "\(screen)")
        // Newest first: each row's last cell is the score it had after that revision.
        let scores = h.lines.filter { $0.contains(" changed ") }.compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(scores == ["8", "2", "3"], "\(screen)")
    }

    @Test("a timeline of 150 revisions keeps its title and its sparklines; a column that never changed has none")
    func longTimelineKeepsItsTitle() throws {
        let h = try ViewerHarness(memory: #"{"players": {"a": {"score": 0, "level": 7}}}"#, columns: 120, path: "/players")
        for i in 1...150 {
            try h.save(#"{"players": {"a": {"score": \#(i % 9), "level": 7, "tick": \#(i)}}}"#)
        }
        h.send(.character("T"))
        let status = try h.waitUntil("the timeline") { $0.contains("timeline of a") }.split(separator: "\n").first { $0.contains("timeline of a") } ?? ""
        #expect(status.contains("score ") && status.contains("tick ") && !status.contains("level "), "\(status)")
    }
}
