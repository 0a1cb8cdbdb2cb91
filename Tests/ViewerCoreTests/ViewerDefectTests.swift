// The viewer defects a new user hit (issue 14), each driven in-process.
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import ViewerCore

@Suite("Viewer defects")
struct ViewerDefectTests {
    @Test("N rows of M counts children: null members of the location are not children")
    func nullsAreNotChildren() throws {
        let json = #"{"items": {"a": 1, "b": null, "c": 3, "d": null, "e": 5, "f": 6, "g": 7, "h": 8, ".priority": 1}}"#
        let h = try ViewerHarness(memory: json, rows: 5, path: "/items") { options in
            options.pageSize = 3
            options.query = ViewQuery(flags: Query(), pageSize: 3)
        }
        let screen = try h.waitUntil("the first page") { $0.contains("3 rows of ") }
        #expect(screen.contains("3 rows of 6"), "\(screen)")
    }

    @Test("f starts with an empty line (typing replaces the filter) and names the filter in force")
    func filterPromptStartsEmpty() throws {
        let json = #"{"p": {"a": {"name": "libssl"}, "b": {"name": "bash"}, "c": {"name": "libss2"}}}"#
        let h = try ViewerHarness(memory: json, path: "/p")
        h.send(.tab, .character("f"))
        h.type("libss*")
        h.send(.enter)
        try h.waitUntil("the prefix filter") { _ in h.line(ofKey: "b") == nil && h.line(ofKey: "a") != nil }
        h.send(.character("f"))
        // The label wraps at its words: the message area, read as one line.
        let prompt = h.messageArea
        #expect(prompt.contains(#"(now name starts with "libss")"#))
        #expect(!prompt.contains("empty clears: libss"), "prefilled: \(prompt)")
        h.type("bash")
        h.send(.enter)
        try h.waitUntil("only bash") { _ in h.line(ofKey: "b") != nil && h.line(ofKey: "a") == nil && h.line(ofKey: "c") == nil }
    }

    @Test("paused, the status bar shows the revision on screen and the one waiting")
    func pausedRevisions() throws {
        let h = try ViewerHarness(memory: #"{"p": {"a": 1}}"#, columns: 140, path: "/p")
        try h.waitUntil("rev 1") { $0.contains("rev 1 at 12:00:00") }
        h.send(.character("p"))
        try h.save(#"{"p": {"a": 2}}"#)
        try h.save(#"{"p": {"a": 3}}"#)
        try h.waitUntil("both revisions") { $0.contains("rev 1 shown, rev 3 waiting") }
        #expect(h.lines[1].contains(" 1 "))
        h.send(.character("p"))
        try h.waitUntil("rev 3 shown") { $0.contains("rev 3 at") && !$0.contains("waiting") }
    }

    @Test("a's template gives each column an empty value of the kind the rows hold")
    func addTemplateKinds() throws {
        let json = #"{"p": {"a": {"name": "x", "n": 1, "ok": true, "tags": ["t"], "meta": {"k": 1}}}}"#
        let h = try ViewerHarness(memory: json, columns: 160, path: "/p") { $0.edit = true }
        h.send(.character("a"))
        let prompt = h.lines[23]
        #expect(prompt.contains(#"{"name":"","n":0,"ok":false,"tags":[],"meta":{}}"#), "\(prompt)")
    }

    @Test("a column given by name that no child has is named in the message line")
    func unknownColumnIsWarned() throws {
        let json = #"{"p": {"a": {"name": "x", "score": 1}}}"#
        let h = try ViewerHarness(memory: json, path: "/p") { $0.columns = [try! Path("name"), try! Path("scroe")] }
        let screen = try h.waitUntil("the warning") { $0.contains("no child here has \"scroe\" (--columns)") }
        #expect(!screen.contains("\"name\" (--columns)"))
    }
}

@Suite("Viewer defects: the selection stays on screen")
struct SelectionOnScreenTests {
    @Test("after a sort over a large location (rows evaluated off the loop thread) the selected row is on screen",
          arguments: [0, 150])
    func selectionAfterSort(startRow: Int) throws {
        let (text, _) = ViewerLargeLocationTests.collection(60_000)
        let h = try ViewerHarness(memory: text, rows: 20, columns: 120, path: "/items") { $0.animations = true }
        try h.waitUntil("the first page") { $0.contains("· 200 rows of 60000") }
        for _ in 0..<startRow { h.viewer.handle(.down) }
        h.send(.tab, .character("s"))
        try h.waitUntil("rows by name") { $0.contains("by name") && !$0.contains("UPDATING") }
        // The rows' animations run their course.
        for _ in 0..<30 { h.advance(0.1) }
        #expect(h.selectedKey != nil, "no row marked as selected:\n\(h.screen)")
    }

    @Test("after r replaces every row of the page, the selected row is on screen, during the animations and after")
    func selectionAfterEveryRowReplaced() throws {
        let h = try ViewerHarness(memory: itemsJSON(500), rows: 12, path: "/items") { $0.animations = true }
        for _ in 0..<3 { h.viewer.handle(.down) }
        h.send(.character("r"))
        try h.waitUntil("by key, descending") { $0.contains("descending") }
        #expect(h.selectedKey != nil, "no row marked as selected:\n\(h.screen)")
        for _ in 0..<30 { h.advance(0.1) }
        #expect(h.selectedKey != nil, "no row marked as selected:\n\(h.screen)")
    }
}

@Suite("Viewer defects: cut text")
struct CutTextTests {
    @Test("a long key is shown whole when the screen has room (the key column gets the spare width first)")
    func longKeyUsesSpareWidth() throws {
        let json = #"{"p": {"google-cloud-cli-app-engine-java": {"v": "1.0", "arch": "all"}, "bash": {"v": "5.2", "arch": "amd64"}}}"#
        let h = try ViewerHarness(memory: json, columns: 120, path: "/p")
        #expect(h.screen.contains("google-cloud-cli-app-engine-java "), "\(h.screen)")
    }

    @Test("a number is never shown as a prefix of its digits, however narrow the screen")
    func numbersAreNeverCut() throws {
        let json = #"{"p": {"a": {"name": "the long name of a performance", "start": 1372701600000}}}"#
        for width in [40, 44, 48, 60] {
            let h = try ViewerHarness(memory: json, columns: width, path: "/p") { $0.columns = [try! Path("name"), try! Path("start")] }
            let row = try #require(h.lines.first { $0.contains("the long") })
            // Whole, in scientific notation, or not there: never digits cut with an ellipsis.
            let cutNumbers = row.split(separator: " ").filter { $0.hasSuffix("…") && $0.first?.isNumber == true }
            #expect(cutNumbers.isEmpty, "at \(width): \(row)")
            #expect(row.contains("1372701600000") || row.contains("e12") || !row.contains("137"), "at \(width): \(row)")
        }
    }
}

@Suite("Viewer defects: help and the JSON pane")
struct HelpAndPaneTests {
    // Issue 49 item 7: the help cut long descriptions (Esc, =) with "…" at 140 columns.
    @Test("? wraps a long description at its words onto lines indented under it, never cut", arguments: [60, 100, 140])
    func helpWrapsLongDescriptions(width: Int) throws {
        let h = try ViewerHarness(memory: #"{"a": 1}"#, rows: 200, columns: width)
        h.send(.character("?"))
        let lines = h.lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }
        // (A line cut to the width ends in "…"; I's description has one of its own, inside.)
        #expect(!lines.contains { $0.hasSuffix("…") }, "\(lines.joined(separator: "\n"))")
        let labelWidth = standardKeyBindings.map { $0.label.count }.max() ?? 0
        let indent = String(repeating: " ", count: 2 + labelWidth + 3)
        var wrapped = 0
        for binding in standardKeyBindings {
            let head = "  " + binding.label + String(repeating: " ", count: labelWidth - binding.label.count) + "   "
            guard let first = lines.firstIndex(where: { $0.hasPrefix(head) }) else {
                Issue.record("no help line for \(binding.label)")
                continue
            }
            // The description: its first line, then the lines indented under it.
            var text = String(lines[first].dropFirst(head.count))
            var next = first + 1
            while next < lines.count, lines[next].hasPrefix(indent), lines[next].dropFirst(indent.count).first != " " {
                text += " " + lines[next].dropFirst(indent.count)
                next += 1
                wrapped += 1
            }
            #expect(text == binding.help, "\(binding.label) at \(width) columns")
        }
        #expect(wrapped > 0, "a description as long as Esc's wraps at \(width) columns")
    }

    @Test("? at 60×15 scrolls to its last line, says how to close, and only q, Esc or ? close it")
    func helpScrolls() throws {
        let h = try ViewerHarness(memory: #"{"a": 1}"#, rows: 15, columns: 60)
        h.send(.character("?"))
        var screen = h.screen
        #expect(screen.contains("q, Esc or ? closes"))
        #expect(screen.contains("more below"))
        #expect(!screen.contains("Mouse: the wheel scrolls"))
        h.send(.character("x"), .character("s"))
        #expect(h.screen.contains("synctable — keys"), "another key closed the help")
        // Enough pages for the whole help, whatever keys it lists.
        for _ in 0..<12 { h.send(.pageDown) }
        screen = h.screen
        #expect(screen.contains("Mouse: the wheel scrolls") && screen.contains("quit"))
        #expect(!screen.contains("more below"))
        h.send(.character("k"))
        #expect(h.screen.contains("more below"))
        h.send(.character("q"))
        screen = h.screen
        #expect(!screen.contains("synctable — keys") && h.viewer.isRunning)
        #expect(h.line(ofKey: "a") != nil)
    }

    @Test("the JSON pane wraps long values and scrolls with its own keys (V to focus it)")
    func paneWrapsAndScrolls() throws {
        let long = (0..<30).map { "word\($0)" }.joined(separator: " ")
        let members = (0..<40).map { "\"m\($0)\": \($0)" }.joined(separator: ", ")
        let json = "{\"p\": {\"a\": {\"text\": \"\(long)\", \(members)}, \"b\": {\"text\": \"short\"}}}"
        let h = try ViewerHarness(memory: json, rows: 24, columns: 60, path: "/p")
        h.send(.character("v"))
        var screen = h.screen
        // The whole long string is on screen, wrapped, not cut.
        #expect(screen.contains("word0") && screen.contains("word29"), "\(screen)")
        #expect(screen.contains("more below"))
        #expect(!screen.contains("\"m39\": 39"))
        // Unfocused, j moves the table; focused (V), it scrolls the pane.
        h.send(.character("V"))
        for _ in 0..<60 { h.viewer.handle(.character("j")) }
        screen = h.screen
        #expect(screen.contains("\"m39\": 39") && !screen.contains("more below"), "\(screen)")
        #expect(h.selectedKey == "a")
        h.send(.escape, .character("j"))
        #expect(h.selectedKey == "b")
        #expect(h.screen.contains("── /p/b") && h.screen.contains("\"short\""))
    }
}
