// The viewer on a growing JSON Lines file, in-process: it follows appends like `tail -f` while
// the newest row is selected, pauses when the selection moves up, and G follows again.
import FileStore
import StoreInterface
import Glibc
import JSONTree
import LiveQuery
import TableUI
import Testing
import TestSupport
import ViewerCore

/// Appends `text` to the file at `path` with one write, as a logger's `>>` does.
private func append(_ text: String, to path: String) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    precondition(fd >= 0, "cannot open \(path)")
    let bytes = Array(text.utf8)
    precondition(write(fd, bytes, bytes.count) == bytes.count, "short append to \(path)")
    close(fd)
}

@Suite("The viewer follows a log")
struct ViewerFollowTests {
    @Test("a JSON Lines file opens at its newest line and follows appends; moving up pauses, G follows again; a truncation starts over")
    func followsAppendsLikeTailF() throws {
        let lines = (0..<40).map { "{\"n\":\($0),\"level\":\"info\"}\n" }.joined()
        let h = try ViewerHarness(lines, format: .jsonLines, rows: 12, columns: 100) { options in
            options.query.showTail()  // as `synctable view` does for a log
        }
        var screen = try h.waitUntil("the newest line selected") { $0.contains("FOLLOWING") && h.selectedKey == "39" }
        #expect(h.line(ofKey: "0") == nil)  // the start of the log is above the screen
        #expect(!screen.contains("descending"))  // a tail is shown oldest first, the newest at the bottom

        // An append is selected as it arrives.
        append("{\"n\":40,\"level\":\"error\"}\n", to: h.file)
        try h.waitUntil("line 40 followed") { $0.contains("FOLLOWING") && h.selectedKey == "40" }
        #expect(h.hasRows(inOrder: ["38", "39", "40"]))

        // Moving up pauses: new lines come in below, the selection stays.
        h.send(.character("k"), .character("k"))
        screen = try h.waitUntil("paused at row 38") { $0.contains("paused at row 38") }
        #expect(h.selectedKey == "38")
        #expect(!screen.contains("FOLLOWING"))
        append("{oops\n", to: h.file)
        append("{\"n\":42}\n", to: h.file)
        screen = try h.waitUntil("the bad line counted") { $0.contains("1 INVALID LINE") && $0.contains("43 rows") }
        #expect(h.selectedKey == "38")
        #expect(screen.contains("paused at row 38"))

        // G follows again, and the bad line shows its error in its row.
        h.send(.character("G"))
        screen = try h.waitUntil("following again") { $0.contains("FOLLOWING") && h.selectedKey == "42" }
        #expect(screen.contains("invalid JSON at line 42, column 2"))
        append("{\"n\":43}\n", to: h.file)
        try h.waitUntil("line 43 followed") { _ in h.selectedKey == "43" }

        // Truncated in place (copytruncate): the list starts over, and says so.
        writeFileInPlace(h.file, Array("{\"n\":0,\"level\":\"new\"}\n".utf8))
        screen = try h.waitUntil("started over") { $0.contains("STARTED OVER: the file was cut short") && $0.contains("1 row") }
        #expect(h.selectedKey == "0")
        #expect(screen.contains("new"))
    }

    // Issue 49 item 6: after STARTED OVER the old file's inferred columns stayed.
    @Test("a log that started over gets its columns inferred afresh, keeping the ones given, hidden or moved by hand that it still has")
    func startedOverInfersColumnsAfresh() throws {
        let old = (0..<3).map { "{\"alpha\":\($0),\"beta\":\"b\($0)\",\"gamma\":\"g\($0)\",\"omega\":\"o\($0)\"}\n" }.joined()
        let h = try ViewerHarness(old, format: .jsonLines, rows: 12, columns: 100) { $0.query.showTail() }
        try h.waitUntil("the rows") { _ in h.selectedKey == "2" }
        #expect(ViewerSheetsTests.headerTitles(h) == ["key", "alpha", "beta", "gamma", "omega"])
        // By hand: beta hidden, gamma moved left, to be first.
        for _ in 0..<4 where ViewerKeysTests.cursorTitle(h) != "beta" { h.send(.right) }
        h.send(.character("x"))
        for _ in 0..<4 where ViewerKeysTests.cursorTitle(h) != "gamma" { h.send(.right) }
        h.send(.character("H"))
        #expect(ViewerSheetsTests.headerTitles(h) == ["key", "gamma", "alpha", "omega"])

        // A new file takes its place: gamma and beta are still there, alpha and omega are not.
        try h.save((0..<2).map { "{\"delta\":\($0),\"beta\":\"b\($0)\",\"gamma\":\"g\($0)\"}\n" }.joined())
        try h.waitUntil("started over") { $0.contains("STARTED OVER") && $0.contains("2 rows") }
        #expect(ViewerSheetsTests.headerTitles(h) == ["key", "gamma", "delta"], "\(h.screen)")

        // Columns given by --columns: those the new file has stay, in their order; no others come.
        let given = try ViewerHarness(old, format: .jsonLines, rows: 12, columns: 100) { options in
            options.query.showTail()
            options.columns = [try! Path("omega"), try! Path("gamma"), try! Path("alpha")]
        }
        try given.waitUntil("the rows") { _ in given.selectedKey == "2" }
        #expect(ViewerSheetsTests.headerTitles(given) == ["key", "omega", "gamma", "alpha"])
        try given.save("{\"delta\":0,\"gamma\":\"g0\",\"alpha\":5}\n")
        try given.waitUntil("started over") { $0.contains("STARTED OVER") && $0.contains("1 row") }
        #expect(ViewerSheetsTests.headerTitles(given) == ["key", "gamma", "alpha"], "\(given.screen)")
    }

    // Issue 49 item 4: "200 rows of 1000 · READING OLDER LINES" while the whole file was read.
    @Test("while only a large log's newest lines are in and the whole file is read, the status says so and states no total")
    func countingLinesStatesNoTotal() throws {
        let h = try ViewerHarness(memory: itemsJSON(50), rows: 12, columns: 100, path: "/items") { options in
            options.query = ViewQuery(flags: Query(), pageSize: 20)
            options.query.showTail()
        }
        // The status bar is the line above the message line.
        func status() -> String { h.lines[h.lines.count - 2] }
        #expect(status().contains("20 rows of 50 ·"), "\(status())")
        // What the file store says while the rest of the file is read after its newest lines.
        var lines = LinesStatus()
        lines.records = 50
        lines.isPartial = true
        h.store.hub.status.lines = lines
        h.store.hub.deliverStatusIfChanged()
        #expect(status().contains("20 rows of ≥ 50 · counting lines…") && !status().contains("OLDER"), "\(status())")
        // The whole file is in: its total, stated.
        lines.isPartial = false
        h.store.hub.status.lines = lines
        h.store.hub.deliverStatusIfChanged()
        #expect(status().contains("20 rows of 50 ·") && !status().contains("≥") && !status().contains("counting"), "\(status())")
    }

    @Test("a large log opens at its newest lines and follows from there; / reads the older lines, which move nothing")
    func olderLinesAreReadWhenNeeded() throws {
        let lines = (0..<300).map { "{\"n\":\($0)}\n" }.joined()
        let h = try ViewerHarness(lines, format: .jsonLines, rows: 12, columns: 100,
                                  newestFirst: FileStore.NewestFirst(records: 20, minimumBytes: 1000, onlyNewest: true)) { options in
            options.query.showTail()
            options.pageSize = 5
        }
        var screen = try h.waitUntil("the newest lines") { $0.contains("FOLLOWING") && h.selectedKey == "299" }
        #expect(screen.contains("of 300 lines"), "\(screen)")
        let read = { h.store.currentRevision?.root.elements.filter { !$0.isNull }.count ?? 0 }
        #expect(read() < 300)
        append("{\"n\":300}\n", to: h.file)
        screen = try h.waitUntil("an append followed") { $0.contains("of 301 lines") && h.selectedKey == "300" }

        // A search needs every line: they are read while it is typed, and the rows stay.
        h.send(.character("/"))
        screen = try h.waitUntil("every line read") { _ in read() == 301 }
        #expect(h.store.status.lines?.olderUnread == false)
        h.send(.escape)
        screen = try h.waitUntil("the table as before") { !$0.contains("lines") && h.selectedKey == "300" }
        #expect(screen.contains("FOLLOWING"))
        #expect(h.hasRows(inOrder: ["296", "297", "298", "299", "300"]))
    }

    @Test("a search typed before a large log's older lines are read finds a match among them")
    func searchWaitsForTheOlderLines() throws {
        let lines = (0..<300).map { $0 == 5 ? "{\"n\":\"needle\"}\n" : "{\"n\":\($0)}\n" }.joined()
        let h = try ViewerHarness(lines, format: .jsonLines, rows: 12, columns: 100,
                                  newestFirst: FileStore.NewestFirst(records: 20, minimumBytes: 1000, onlyNewest: true)) { options in
            options.query.showTail()
            options.pageSize = 5
        }
        try h.waitUntil("the newest lines") { $0.contains("FOLLOWING") && h.selectedKey == "299" }
        // At once, before the older lines can have been read: they are read for the search,
        // which runs once they are and lands on the only match, an older line.
        h.send(.character("/"))
        h.type("needle")
        h.send(.enter)
        let screen = try h.waitUntil("the match among the older lines") { $0.contains("match 1 of 1") && h.selectedKey == "5" }
        #expect(screen.contains("needle"), "\(screen)")
    }

    @Test("a tail keeps the newest at the bottom; r leaves it (first rows), r again shows the newest first, neither following")
    func reverseLeavesTheTail() throws {
        let lines = (0..<5).map { "{\"n\":\($0)}\n" }.joined()
        let h = try ViewerHarness(lines, format: .jsonLines, rows: 12, columns: 100) { options in
            options.query.showTail()
        }
        try h.waitUntil("the tail") { $0.contains("FOLLOWING") && h.selectedKey == "4" }
        #expect(h.hasRows(inOrder: ["0", "1", "2", "3", "4"]))
        h.send(.character("r"))
        var screen = try h.waitUntil("the first rows") { !$0.contains("FOLLOWING") && h.hasRows(inOrder: ["0", "1", "2", "3", "4"]) }
        #expect(!screen.contains("descending"))
        h.send(.character("r"))
        screen = try h.waitUntil("newest first") { _ in h.hasRows(inOrder: ["4", "3", "2", "1", "0"]) }
        #expect(!screen.contains("FOLLOWING"))
        #expect(screen.contains("descending"))
    }

    @Test("a adds a line to a log with one append; + says, wrapped and whole, that a log is only appended to")
    func writesToALogAppendOrAreRefused() throws {
        let h = try ViewerHarness("{\"n\":0}\n{\"n\":1}\n", format: .jsonLines, rows: 12, columns: 60) { options in
            options.query.showTail()
            options.edit = true
        }
        try h.waitUntil("the tail") { _ in h.selectedKey == "1" }
        h.send(.character("a"))
        h.send(.character("\u{15}"))
        h.type(#"{"n": 2}"#)
        h.send(.enter)
        try h.waitUntil("the new line, followed") { $0.contains("added /2") && h.selectedKey == "2" }
        #expect(readFileText(h.file) == "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n")
        h.send(.tab, .character("+"))
        // Refused when pressed (issue 40 item 7); longer than the screen is wide, it wraps at its
        // words onto more lines, never cut.
        let refusal = "data.jsonl is a log, only appended to: + cannot change a line (a adds a line)"
        try h.waitUntil("the whole refusal") { _ in
            h.messageArea == refusal && !h.lines.contains { $0.hasPrefix(refusal) }
        }
        #expect(readFileText(h.file) == "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n")
    }
}
