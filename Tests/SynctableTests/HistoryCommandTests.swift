// The history as a user sees it: `synctable history` printing each changed child with its old
// and new values, and the viewer's time machine in a real terminal.
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite struct HistoryCommandTests {
    /// The JSON of a line printed by `synctable history`.
    static func parsed(_ line: String) throws -> JSONNode {
        try JSONDocument(parsing: line).root
    }

    @Test func historyPrintsEachChangedChildWithItsOldAndNewValues() throws {
        let folder = ScratchFolder()
        let file = folder.file("scores.json")
        try save(leaderboard([("a", 0), ("b", 50)]), to: file, style: .rename)
        let process = try ChildProcess([try synctableBinary(), "history", file, "--path", "/players",
                                        "--order-by-child", "score", "--follow"])
        // Edits until the command, once it has read the file, reports one.
        var score = 0
        var first: String?
        while first == nil && score < 60 {
            score += 1
            try save(leaderboard([("a", score), ("b", 50)]), to: file, style: .rename)
            first = process.readLine(seconds: 0.25)
        }
        let line = try Self.parsed(try #require(first, "no line after \(score) edits: \(process.standardError())"))
        #expect(line[key: "event"]?.stringValue == "changed" && line[key: "key"]?.stringValue == "a")
        let field = try #require(line[key: "fields"]?[index: 0])
        #expect(field[key: "path"]?.stringValue == "score")
        let old = try #require(field[key: "old"]?.doubleValue), new = try #require(field[key: "new"]?.doubleValue)
        #expect(old < new && new <= Double(score), "\(first!)")
        #expect(line[key: "time"]?.stringValue?.hasSuffix("Z") == true && line[key: "revision"]?.doubleValue != nil)
        while process.readLine(seconds: 0.3) != nil {}

        // One revision: b removed, c added, a changed and moved past b's old place.
        try save(leaderboard([("a", 99), ("c", 7)]), to: file, style: .rename)
        var lines = [JSONNode]()
        while lines.count < 3, let next = process.readLine(seconds: 10) { lines.append(try Self.parsed(next)) }
        let byKey = Dictionary(uniqueKeysWithValues: lines.compactMap { l in l[key: "key"]?.stringValue.map { ($0, l) } })
        #expect(byKey["b"]?[key: "event"]?.stringValue == "removed" && byKey["b"]?[key: "old"]?[key: "score"]?.doubleValue == 50)
        #expect(byKey["c"]?[key: "event"]?.stringValue == "added" && byKey["c"]?[key: "new"]?[key: "score"]?.doubleValue == 7)
        #expect(byKey["a"]?[key: "fields"]?[index: 0]?[key: "new"]?.doubleValue == 99)
        #expect(Set(lines.compactMap { $0[key: "revision"]?.doubleValue }).count == 1, "one revision")
        process.signal(SIGTERM)
        #expect(process.wait() == 0)
    }

    @Test func theTimeMachineStepsBackToTheTenthEditAndReturns() throws {
        let folder = ScratchFolder()
        let file = folder.file("scores.json")
        try save(leaderboard([("a", 0), ("b", 500)]), to: file, style: .rename)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]), width: 100, height: 12)
        try session.waitFor("the table") { $0.line(ofKey: "a") != nil && $0.contains("rev 1") }
        // A writer makes 30 edits, each seen as a revision of its own.
        for edit in 1...30 {
            try save(leaderboard([("a", edit * 10), ("b", 500)]), to: file, style: .rename)
            try session.waitFor("edit \(edit)") { $0.contains("rev \(edit + 1) at") }
        }
        // Back to the 10th edit (revision 11): 20 steps.
        try session.type(String(repeating: "[", count: 20))
        let past = try session.waitFor("the 10th edit, its change held") {
            $0.contains("HISTORY rev 11 of 31") && $0.contains("90 → 100") && $0.contains("20 newer")
        }
        let row = try #require(past.line(ofKey: "a").map { past.line($0) })
        #expect(Array(row).dropFirst().first == "*", "the changed row is marked: \(row)")
        try session.type("P")
        let present = try session.waitFor("the present") { !$0.contains("HISTORY") && $0.contains("300") }
        #expect(!present.contains("→"))
        try session.send("q")
        try session.waitFor("exit", history: true) { $0.contains("EXITED 0") }
    }
}
