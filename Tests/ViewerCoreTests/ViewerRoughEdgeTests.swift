// The rough edges a new user hit on real data (issue 40), each driven in-process.
import FileStore
import Foundation
import JSONTree
import LiveQuery
import RemoteStore
import TableUI
import Testing
import TestSupport
import ViewerCore

/// Five log lines of eleven fields each, then one cut short.
private let wideLog: String = {
    let fields = ["ts", "level", "service", "msg", "path", "status", "latency_ms", "pid", "host", "user", "trace_id"]
    let lines = (0..<5).map { n in
        "{" + fields.enumerated().map { i, field in "\"\(field)\":\"v\(n)-\(i)\"" }.joined(separator: ",") + "}\n"
    }
    return lines.joined() + "{\"level\": \"warn\", \"msg\": \"cut\n"
}()

/// Countries with twelve fields each, about 176 cells of columns in all.
private let countries: String = {
    let fields = ["flag", "name", "capital", "region", "subregion", "languages", "currency", "timezone", "tld", "calling",
                  "demonym", "visits"]
    let rows = (0..<8).map { n in
        "\"c\(n)\": {" + fields.map { "\"\($0)\": \"\($0.prefix(3))-\(n)-xxxxx\"" }.joined(separator: ", ") + "}"
    }
    return "{\"countries\": {" + rows.joined(separator: ", ") + "}}"
}()

@Suite("Viewer rough edges")
struct ViewerRoughEdgeTests {
    @Test("item 1: an invalid line shows its error across its row, whatever columns are scrolled to")
    func errorRowSpansTheRow() throws {
        let h = try ViewerHarness(wideLog, format: .jsonLines, rows: 35, columns: 120)
        var screen = try h.waitUntil("six rows") { $0.contains("6 rows") }
        let row = try #require(h.line(ofKey: "5"))
        #expect(h.lines[row].contains("⚠ invalid JSON at line 6, column"), "\(screen)")
        // Its marker is no column: the header holds the records' fields only.
        #expect(!h.lines[0].contains("$error"), "\(h.lines[0])")
        // Scrolled to the last column, the error is still there, after the key.
        for _ in 0..<10 { h.send(.tab) }
        screen = h.screen
        #expect(h.lines[row].contains("⚠ invalid JSON at line 6"), "\(screen)")
        #expect(h.lines[0].contains("trace_id"), "\(screen)")
    }

    @Test("item 7: on a log, e, d, + and u are refused when pressed, the hints show a, and a's template has no $error")
    func logRefusesChangesAtOnce() throws {
        let h = try ViewerHarness(wideLog, format: .jsonLines, rows: 20, columns: 200) { $0.edit = true }
        var screen = try h.waitUntil("six rows") { $0.contains("6 rows") }
        let hints = h.lines[19]
        #expect(hints.contains("a add") && !hints.contains("e edit"), "\(hints)")
        h.send(.tab, .tab)
        for key in ["e", "d", "+", "u"] {
            h.send(.character(Character(key)))
            let line = h.lines[19]
            #expect(line.contains("data.jsonl is a log, only appended to: \(key) cannot change a line (a adds a line)"), "\(key): \(line)")
            #expect(!line.contains("(y/n)") && !line.contains(" = "), "\(key) opened a prompt: \(line)")
        }
        h.send(.character("a"))
        screen = h.screen
        let prompt = h.lines[19]
        #expect(prompt.hasPrefix("new child of / = {\"ts\":\"\""), "\(screen)")
        #expect(!prompt.contains("$error"), "\(prompt)")
        // A record holding the marker would read back as a bad line: refused.
        h.send(.character("\u{15}"))
        h.type(#"{"$error":{"line":1}}"#)
        h.send(.enter)
        #expect(h.lines[19].contains("not added: $error marks a line that is not JSON"), "\(h.screen)")
    }

    @Test("item 11: U and Ctrl-R redo what u undid, step by step, only while the value is the one u put back")
    func redoIsCompareAndSwap() throws {
        let h = try ViewerHarness(#"{"p": {"a": {"name": "Ann", "score": 10}, "b": {"name": "Bo", "score": 20}}}"#, path: "/p") { $0.edit = true }
        let score = { (key: String) in try ViewerEditTests.root(h).node(at: Path("/p/\(key)/score"))?.numberText }
        h.send(.tab, .tab, .character("+"))
        try h.waitForWrites()
        h.send(.character("+"))
        try h.waitForWrites()
        #expect(try score("a") == "12")
        h.send(.character("u"))
        try h.waitForWrites()
        h.send(.character("u"))
        try h.waitForWrites()
        #expect(try score("a") == "10")
        h.send(.character("U"))
        try h.waitForWrites()
        #expect(h.screen.contains("redone: /p/a/score is 11 again (1 more to redo)"), "\(h.screen)")
        #expect(try score("a") == "11")
        h.send(.character("\u{12}"))
        try h.waitForWrites()
        #expect(try score("a") == "12")
        h.send(.character("U"))
        try h.waitForWrites()
        #expect(h.screen.contains("nothing to redo"))
        // Redone steps undo again; a new write forgets what was undone.
        h.send(.character("u"))
        try h.waitForWrites()
        #expect(try score("a") == "11")
        h.send(.character("+"))
        try h.waitForWrites()
        h.send(.character("U"))
        try h.waitForWrites()
        #expect(h.screen.contains("nothing to redo"), "\(h.screen)")
        // Another writer's change since u stops the redo.
        h.send(.character("u"))
        try h.waitForWrites()
        #expect(try score("a") == "11")
        try h.save(#"{"p": {"a": {"name": "Ann", "score": 50}, "b": {"name": "Bo", "score": 20}}}"#)
        h.send(.character("U"))
        try h.waitForWrites()
        #expect(h.screen.contains("not redone: /p/a/score changed since u by another writer (now 50)"), "\(h.screen)")
        #expect(try score("a") == "50")
    }

    @Test("item 3: after a resize or x, columns scrolled off the left come back, as many as fit, the cursor in view")
    func columnsComeBackAfterResizeAndHide() throws {
        let h = try ViewerHarness(countries, rows: 20, columns: 120, path: "/countries")
        try h.waitUntil("the rows") { $0.contains("8 rows") }
        for _ in 0..<12 { h.send(.tab) }
        #expect(h.lines[0].hasPrefix("‹"), "\(h.lines[0])")
        #expect(h.lines[0].contains("visits"))
        // Wide enough for every column: all of them, from the first.
        h.canvas.resize(rows: 20, columns: 200)
        h.send(.resize)
        var header = h.lines[0]
        #expect(!header.hasPrefix("‹") && header.contains("flag") && header.contains("visits"), "\(header)")
        // 200 → 60 → 200: narrow shows the cursor's column, wide shows all again.
        h.canvas.resize(rows: 20, columns: 60)
        h.send(.resize)
        header = h.lines[0]
        #expect(header.hasPrefix("‹") && header.contains("visits"), "\(header)")
        h.canvas.resize(rows: 20, columns: 200)
        h.send(.resize)
        header = h.lines[0]
        #expect(!header.hasPrefix("‹") && header.contains("flag") && header.contains("visits"), "\(header)")
        // At 120 again, scrolled to the last column, x hides it: the cursor goes to the one
        // before, and the columns from the left are shown as far as it allows.
        h.canvas.resize(rows: 20, columns: 120)
        h.send(.resize)
        let before = h.lines[0].split(separator: " ").count
        h.send(.character("x"))
        header = h.lines[0]
        #expect(!header.contains("visits") && header.contains("demonym"), "\(header)")
        #expect(header.split(separator: " ").count >= before, "\(header)")
        h.send(.character("x"), .character("x"), .character("x"), .character("x"))
        header = h.lines[0]
        #expect(!header.hasPrefix("‹") && header.contains("flag"), "\(header)")
    }

    @Test("item 10: the status bar drops its least important parts first and never cuts a number; words for what happened")
    func statusBarKeepsNumbersAndSaysWhatHappened() throws {
        let h = try ViewerHarness(itemsJSON(250), rows: 15, columns: 60, path: "/items") { $0.edit = true }
        var status = String(try #require(try h.waitUntil("the first page") { $0.contains("rows") }.split(separator: "\n").dropLast().last))
        #expect(status.contains("200 rows of 250") && status.contains("rev 1") && !status.contains("…"), "\(status)")
        // Paused at 60 columns: both revisions stay whole (the badge shortens first).
        h.send(.character("p"))
        try h.save(itemsJSON(251))
        try h.save(itemsJSON(252))
        status = try #require(h.lines.dropLast().last)
        #expect(status.contains("rev 1 shown of 3") && status.contains("200 rows of 252") && status.contains("PAUSED"), "\(status)")
        #expect(!status.contains("…"), "\(status)")
        h.send(.character("p"))
        // A page more is no limit the user gave: the rows say how many are loaded.
        h.canvas.resize(rows: 15, columns: 120)
        h.send(.resize)
        for _ in 0..<30 { h.send(.pageDown) }
        status = String(try #require(try h.waitUntil("every row") { $0.contains("252 rows") }.split(separator: "\n").dropLast().last))
        #expect(!status.contains("first 400") && !status.contains("first 200"), "\(status)")

        // Esc clears a search's highlights.
        h.send(.character("/"))
        h.type("item 7")
        h.send(.enter)
        #expect(h.screen.contains("match 1 of"), "\(h.screen)")
        h.send(.escape)
        #expect(h.screen.contains("search cleared"), "\(h.screen)")

        // An object put back is said in words, not `{2}`.
        h.send(.character("g"), .character("d"), .character("y"))
        try h.waitForWrites()
        h.send(.character("u"))
        try h.waitForWrites()
        #expect(h.screen.contains("back to an object of 2 fields"), "\(h.screen)")
    }

    @Test("item 8: an edit prompt shows a change made under it, Ctrl-R reloads, and Enter is a compare-and-swap")
    func editPromptSeesConcurrentChange() throws {
        let json = { (n: Int) in "{\"p\": {\"a\": {\"n\": \(n)}, \"b\": {\"n\": 1}}}" }
        let h = try ViewerHarness(json(777), columns: 100, path: "/p") { $0.edit = true }
        let value = { try ViewerEditTests.root(h).node(at: Path("/p/a/n"))?.numberText }
        h.send(.tab, .character("e"))
        #expect(h.lines[23].hasPrefix("/p/a/n = 777"), "\(h.screen)")
        try h.save(json(888))
        var lines = h.lines
        #expect(lines[22].contains("/p/a/n is now 888 — Enter overwrites, Ctrl-R reloads"), "\(lines.joined(separator: "\n"))")
        #expect(lines[23].hasPrefix("/p/a/n = 777"))
        h.send(.character("\u{12}"))
        lines = h.lines
        #expect(lines[23].hasPrefix("/p/a/n = 888") && !lines[22].contains("is now"), "\(lines.joined(separator: "\n"))")
        // Seen, a change is overwritten by Enter.
        h.send(.backspace)
        h.type("9")
        try h.save(json(100))
        _ = h.lines
        h.send(.enter)
        try h.waitForWrites()
        #expect(try value() == "889")
        // Unseen (no frame drawn since), a change stops the write.
        h.send(.character("e"), .character("\u{15}"))
        h.type("5")
        _ = h.lines
        try h.save(json(321))
        h.send(.enter)
        try h.waitForWrites()
        #expect(try value() == "321")
        #expect(h.screen.contains("not written: /p/a/n changed to 321 just before Enter"), "\(h.screen)")
    }

    @Test("item 9: filter pitfalls are named: strings that look like numbers, exact case, a child path no child has, objects sorting as equal")
    func filterPitfallsAreNamed() throws {
        let json = #"{"p": {"a": {"code": "250", "name": "France", "meta": {"x": 1}}, "b": {"code": "33", "name": "Fiji", "meta": {"x": 2}}}}"#
        let h = try ViewerHarness(json, columns: 200, path: "/p") { options in
            options.query = ViewQuery(flags: try! Query().orderByChild(Path("vists")), pageSize: 200)
        }
        #expect(h.lines[23].contains(#"no child here has "vists", the order's child"#) && h.lines[23].contains("code, name, meta"),
                "\(h.screen)")
        h.send(.tab, .character("f"))
        let prompt = h.messageArea
        #expect(prompt.contains("exact and case-sensitive (/ finds any case)"), "\(prompt)")
        h.type("250")
        h.send(.enter)
        #expect(h.lines[23].contains(#"code holds strings, and 250 is not one (values of another type never match): f "250" finds the string"#),
                "\(h.screen)")
        h.send(.character("f"))
        h.type(#""250""#)
        h.send(.enter)
        try h.waitUntil("the string matched") { _ in h.line(ofKey: "a") != nil && h.line(ofKey: "b") == nil }
        h.send(.escape, .tab, .tab, .character("s"))
        #expect(h.lines[23].contains("every meta is an object, and objects sort as equal (the database's rule)"), "\(h.screen)")
    }

    @Test("item 4: a row that moves past the loaded rows is said to move (to row N), and the selected one is followed there")
    func rowMovedPastThePageIsFollowed() throws {
        let h = try ViewerHarness(itemsJSON(30), rows: 12, columns: 100, path: "/items") { options in
            options.animations = true
            options.pageSize = 20
            options.query = ViewQuery(flags: try! Query().orderByChild(Path("n")), pageSize: 20)
        }
        try h.waitUntil("the first page") { $0.contains("20 rows of 30") }
        h.send(.character("j"), .character("j"), .character("j"))
        #expect(h.selectedKey == "k0003")
        // Another row moves to the end: said, and the selection stays.
        try h.save(itemsJSON(30).replacingOccurrences(of: #""k0005": {"n": 5,"#, with: #""k0005": {"n": 1000,"#))
        var screen = try h.waitUntil("the move said") { $0.contains("/items/k0005 moved to row 30, past the rows loaded") }
        #expect(h.selectedKey == "k0003", "\(screen)")
        // Its row closes as a move down, saying where it went (not as a deletion).
        screen = h.screen
        let closing = try #require(h.lines.first { $0.contains("k0005") }, "\(screen)")
        #expect(closing.hasPrefix(" ↓") && closing.contains("moved to row 30"), "\(screen)")
        h.advance(5)
        // The selected row moves to the end: the rows up to it are loaded, and it stays selected.
        try h.save(itemsJSON(30).replacingOccurrences(of: #""k0005": {"n": 5,"#, with: #""k0005": {"n": 1000,"#)
            .replacingOccurrences(of: #""k0003": {"n": 3,"#, with: #""k0003": {"n": 2000,"#))
        screen = try h.waitUntil("followed") { $0.contains("/items/k0003 moved to row 30") && h.selectedKey == "k0003" }
        #expect(screen.contains("30 rows"), "\(screen)")
    }

    @Test("item 6: a lost server is said in words on one line (at 80 columns too: m shows the rest), cleared when back; an edit while offline is refused at once")
    func networkErrorsInWords() throws {
        let folder = ScratchFolder("viewer-offline")
        let file = folder.write("db.json", #"{"p": {"a": {"n": 1}, "b": {"n": 2}}}"#)
        let server = try ServedFile(file: file)
        let store = try RemoteStore(url: try DatabaseURL(parsing: server.url("/p")), credential: nil)
        defer { store.close() }
        let canvas = MemoryCanvas(rows: 10, columns: 120)
        var options = ViewerOptions(file: server.url("/p"), animations: false)
        options.edit = true
        let viewer = Viewer(options: options, store: store, canvas: canvas,
                            environment: ViewerEnvironment(clock: ViewerClock(now: { 1000 }, timeOfDay: { "12:00:00" })))
        defer { viewer.stop() }
        func wait(_ what: String, _ condition: ([String]) -> Bool) throws -> [String] {
            for _ in 0..<1000 {
                viewer.render()
                if condition(canvas.lines) { return canvas.lines }
                store.waitAndProcessChanges(timeoutMilliseconds: 10)
                viewer.tick()
            }
            Issue.record("\(what) never came:\n\(canvas.lines.joined(separator: "\n"))")
            throw HarnessTimeout()
        }
        _ = try wait("the rows") { $0.joined().contains("2 rows") }
        server.kill()
        var lines = try wait("refused") { $0[9].contains("server 127.0.0.1:\(server.port) unreachable (connection refused) — retrying in") }
        #expect(lines[9].contains(", try "), "\(lines[9])")
        #expect(!lines[9].contains("errno") && lines[8].contains("rows"), "\(lines.joined(separator: "\n"))")

        // Issue 49 item 8: at 80 columns it took two or three lines. The status bar stays on line
        // 8, so the message is one line, cut at a word; m shows all of it in a pane, m closes it.
        canvas.resize(rows: 10, columns: 80)
        viewer.handle(.resize)
        lines = try wait("one line at 80 columns") { $0[8].contains("rows") && $0[9].contains("unreachable") }
        let oneLine = String(lines[9].reversed().drop { $0 == " " }.reversed())
        #expect(oneLine.hasPrefix("server 127.0.0.1:\(server.port) unreachable") && oneLine.hasSuffix(" … m shows all"),
                "\(lines.joined(separator: "\n"))")
        viewer.handle(.character("m"))
        lines = try wait("the whole text in the pane") { lines in
            let pane = lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: " ")
            return pane.contains("── problem (m closes)") && pane.contains("unreachable (connection refused) — retrying in")
                && pane.contains("— showing revision 1")
        }
        viewer.handle(.character("m"))
        lines = try wait("the pane closed") { !$0.joined().contains("── problem") && $0[9].contains("unreachable") }
        canvas.resize(rows: 10, columns: 120)
        viewer.handle(.resize)
        viewer.handle(.tab)
        viewer.handle(.character("e"))
        lines = (viewer.render(), canvas.lines).1
        #expect(lines[9].contains("not connected: e does not write until the server is reached again (edits are not queued)"),
                "\(lines.joined(separator: "\n"))")
        viewer.handle(.character("j"))
        try server.start()
        lines = try wait("back online") { !$0[8].contains("OFFLINE") && $0[9].contains("? help") }
        #expect(!lines.joined().contains("unreachable"))
    }

    @Test("item 5: a filter's status says how many children it selects, and G goes to the last of them")
    func filterCountAndTheRealEnd() throws {
        let members = (0..<600).map { i in
            "\"k\(String(1000 + i).dropFirst())\": {\"region\": \"\(i % 3 == 0 ? "Asia" : "Europe")\", \"n\": \(i)}"
        }
        let h = try ViewerHarness("{\"c\": {" + members.joined(separator: ", ") + "}}", rows: 12, columns: 120, path: "/c") { options in
            options.pageSize = 50
            options.query = ViewQuery(flags: Query(), pageSize: 50)
        }
        try h.waitUntil("the first page") { $0.contains("50 rows of 600") }
        h.send(.tab, .character("f"))
        h.type("Asia")
        h.send(.enter)
        var screen = try h.waitUntil("the filter's count") { $0.contains("50 of 200 matching rows of 600") }
        h.send(.character("G"))
        screen = try h.waitUntil("the last match") { $0.contains("200 matching rows of 600") && h.selectedKey == "k597" }
        #expect(!screen.contains("of 200 matching"), "\(screen)")
        // Flags' bounds are counted the same way.
        let bounded = try ViewerHarness("{\"c\": {" + members.joined(separator: ", ") + "}}", rows: 12, columns: 120, path: "/c") { options in
            options.pageSize = 50
            options.query = ViewQuery(flags: try! Query().orderByChild(Path("n")).startAt(100), pageSize: 50)
        }
        try bounded.waitUntil("the bound's count") { $0.contains("50 of 500 matching rows of 600") }
    }
}
