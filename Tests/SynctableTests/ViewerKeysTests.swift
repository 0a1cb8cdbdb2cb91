// The viewer's keys in a real terminal: the query keys, paging, pausing, moving between
// locations, the JSON pane and copying a path.
import Foundation
import Testing

@Suite("The viewer's keys")
struct ViewerKeysTests {
    /// Four players whose names and scores order differently.
    static let players = """
        {"players": {
          "a": {"name": "Zed", "score": 5},
          "b": {"name": "Amy", "score": 50},
          "c": {"name": "Bob", "score": 20},
          "d": {"name": "Ann", "score": 35}
        }}
        """

    @Test("s sorts by the column under the cursor, S by key, r reverses, / filters (a value or a prefix), Esc clears")
    func queryKeys() throws {
        let folder = try ScratchFolder()
        let file = folder.file("players.json")
        try save(ViewerKeysTests.players, to: file, style: .inPlace)
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players"]))
        try session.waitFor("key order") { $0.hasRows(inOrder: ["a", "b", "c", "d"]) && $0.contains("[key]") }

        try session.send("Tab")
        try session.waitFor("the cursor on name") { $0.contains("[name]") }
        try session.send("s")
        var screen = try session.waitFor("name order") { $0.hasRows(inOrder: ["b", "d", "c", "a"]) && $0.contains("by name") }
        #expect(screen.contains("[name↑]"))

        try session.send("r")
        screen = try session.waitFor("name order, reversed") { $0.hasRows(inOrder: ["a", "c", "d", "b"]) }
        #expect(screen.contains("by name descending, last 200"))
        #expect(screen.contains("[name↓]"))

        try session.send("Tab", "/")
        try session.waitFor("the filter prompt") { $0.contains("filter score =") }
        try session.type("35")
        try session.send("Enter")
        screen = try session.waitFor("only d") { screen in
            screen.line(ofKey: "d") != nil && ["a", "b", "c"].allSatisfy { screen.line(ofKey: $0) == nil }
        }
        #expect(screen.contains("score = 35"))

        try session.send("Escape")
        try session.waitFor("every row by score, descending") { $0.hasRows(inOrder: ["b", "d", "c", "a"]) && !$0.contains("score = 35") }

        try session.send("S")
        try session.waitFor("key order, descending") { $0.hasRows(inOrder: ["d", "c", "b", "a"]) && $0.contains("by key descending") }

        try session.send("BTab", "/")
        try session.waitFor("the filter prompt on name") { $0.contains("filter name =") }
        try session.type("A*")
        try session.send("Enter")
        screen = try session.waitFor("names starting with A") {
            $0.hasRows(inOrder: ["d", "b"]) && $0.line(ofKey: "a") == nil && $0.line(ofKey: "c") == nil
        }
        #expect(screen.contains(#"name starting with "A""#))
    }

    @Test("near the end of a paged window the next page loads")
    func paging() throws {
        let folder = try ScratchFolder()
        let file = folder.file("pages.json")
        try save(leaderboard((0..<12).map { (String(format: "k%02d", $0), $0) }), to: file, style: .inPlace)
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players", "--page-size", "5"]))
        // The screen holds more rows than a page, so the first page is already "near the end".
        try session.waitFor("every page") { $0.hasRows(inOrder: ["k00", "k05", "k11"]) && $0.contains("12 rows ·") }

        let small = try TerminalSession(try viewerCommand([file, "--path", "/players", "--page-size", "5"]), height: 6)
        // 6 lines: header, 3 rows, status bar, message line.
        let first = try small.waitFor("the first page") { $0.line(ofKey: "k00") != nil && $0.contains("5 rows of 12") }
        #expect(first.contains("first 5"))
        try small.send("G")
        try small.waitFor("the second page") { $0.contains("10 rows of 12") }
        try small.send("G")
        try small.waitFor("the last page") { $0.contains("12 rows") && !$0.contains("of 12") && $0.selectedKey != nil }
    }

    @Test("p pauses live updates (a badge counts what waits) and applies them as one batch when resumed")
    func pause() throws {
        let folder = try ScratchFolder()
        let file = folder.file("paused.json")
        try save(leaderboard([("a", 1), ("b", 2)]), to: file, style: .inPlace)
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players", "--order-by-child", "score"]))
        try session.waitFor("the rows") { $0.hasRows(inOrder: ["a", "b"]) }
        try session.send("p")
        try session.waitFor("the badge") { $0.contains("PAUSED: 0 waiting") }

        try save(leaderboard([("a", 1), ("b", 2), ("z", 0)]), to: file, style: .rename)
        var screen = try session.waitFor("one waiting") { $0.contains("PAUSED: 1 waiting") }
        #expect(screen.line(ofKey: "z") == nil)
        try save(leaderboard([("a", 3), ("b", 2), ("z", 0)]), to: file, style: .inPlace)
        screen = try session.waitFor("two waiting") { $0.contains("PAUSED: 2 waiting") }
        #expect(screen.hasRows(inOrder: ["a", "b"]))

        try session.send("p")
        screen = try session.waitFor("both changes") { $0.hasRows(inOrder: ["z", "b", "a"]) && !$0.contains("PAUSED") }
    }

    @Test("Enter opens a child, Backspace goes back to it; v shows its JSON; y copies its path")
    func locations() throws {
        let folder = try ScratchFolder()
        let file = folder.file("nested.json")
        try save(#"{"players": {"a": {"name": "Ann", "score": 7, "tags": ["red", "blue"]}, "b": {"name": "Bo", "score": 9}}}"#,
                 to: file, style: .inPlace)
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players"]))
        try session.waitFor("the players") { $0.hasRows(inOrder: ["a", "b"]) }

        try session.send("Enter")
        var screen = try session.waitFor("a's members") { $0.hasRows(inOrder: ["name", "score", "tags"]) && $0.contains("/players/a ") }
        #expect(screen.contains("[2]"))
        try session.send("j", "j", "Enter")
        screen = try session.waitFor("the tags") { $0.hasRows(inOrder: ["0", "1"]) && $0.contains("/players/a/tags") }
        #expect(screen.contains("red") && screen.contains("blue"))

        try session.send("BSpace")
        screen = try session.waitFor("back at a, tags selected") { $0.selectedKey == "tags" && $0.contains("/players/a ") }
        try session.send("h")
        screen = try session.waitFor("back at the players, a selected") { $0.selectedKey == "a" && $0.contains("/players ·") }

        try session.send("v")
        screen = try session.waitFor("the JSON pane") { $0.contains("── /players/a") && $0.contains(#""name": "Ann","#) }
        #expect(screen.contains(#""red","#))
        try session.send("v")
        try session.waitFor("the pane closed") { !$0.contains("── /players/a") }

        try session.send("j", "y")
        try session.waitFor("the copied path") { $0.contains("copied /players/b") }
        // tmux (set-clipboard on) keeps what OSC 52 set as its newest paste buffer.
        #expect(try session.tmux(["show-buffer"]) == "/players/b")
    }

    @Test("Ctrl-L clears what another program wrote over the screen and draws the table again")
    func ctrlLRepaints() throws {
        let folder = try ScratchFolder()
        let file = folder.file("players.json")
        try save(ViewerKeysTests.players, to: file, style: .inPlace)
        let session = try TerminalSession(try viewerCommand([file, "--path", "/players"]))
        try session.waitFor("key order") { $0.hasRows(inOrder: ["a", "b", "c", "d"]) }

        // Another program writes straight to the terminal, behind ncurses' back.
        let tty = try session.tmux(["display-message", "-p", "#{pane_tty}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let scribble = try #require(FileHandle(forWritingAtPath: tty))
        scribble.write(Data("\u{1B}[3;1HSCRIBBLED-OVER\u{1B}[5;10HSCRIBBLED-OVER".utf8))
        try scribble.close()
        try session.waitFor("the scribbles") { $0.contains("SCRIBBLED-OVER") }

        try session.send("C-l")
        // (The screen is blank for a moment between the clear and the redraw.)
        try session.waitFor("the table, clean") { screen in
            !screen.contains("SCRIBBLED-OVER") && screen.hasRows(inOrder: ["a", "b", "c", "d"])
                && screen.contains("Zed") && screen.contains("Ann")
        }
    }
}
