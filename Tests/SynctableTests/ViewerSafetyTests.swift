// Text from the file never reaches the terminal raw; bad starts end with a message and status 2.
import Foundation
import Testing
import TestSupport

@Suite("The viewer's safety")
struct ViewerSafetyTests {
    @Test("escape sequences, bidi overrides and other controls in the file show as visible escapes")
    func untrustedTextIsEscaped() throws {
        let folder = ScratchFolder()
        let file = folder.file("hostile.json")
        let json = #"""
            {"players": {
              "m": {"name": "\u001b[31mRED\u001b[0m", "note": "\u202eevil"},
              "n": {"name": "line\nbreak\u0007", "note": "c1\u0085x"},
              "o\u001b]0;title\u0007": {"name": "key with OSC", "note": "\u2066iso\u2069"}
            }}
            """#
        try save(json, to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]))
        let screen = try session.waitFor("the hostile rows") { $0.contains("key with OSC") }
        for shown in [#"\x1b[31mRED\x1b[0m"#, #"\u202eevil"#, #"line\nbreak\x07"#, #"c1\u0085x"#, #"o\x1b]0;title\x07"#,
                      #"\u2066iso\u2069"#] {
            #expect(screen.contains(shown), "\(shown) is not shown escaped:\n\(screen.text)")
        }
        // Nothing turned the text red or set the window title.
        let styled = try session.tmux(["capture-pane", "-p", "-e"])
        #expect(!styled.contains("\u{1B}[31mRED"))
        #expect(try session.tmux(["display-message", "-p", "#{pane_title}"]) != "title\n")
    }

    @Test("an unreadable file, a bad query or flag, and a terminal that cannot be used end with a message and status 2")
    func startupErrors() throws {
        let binary = try synctableBinary()
        let folder = ScratchFolder()
        let file = folder.file("ok.json")
        try save(#"{"a": 1}"#, to: file, style: .inPlace)
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"

        let cases: [(arguments: [String], environment: [String: String], message: String)] = [
            ([folder.path], environment, "is a directory, not a JSON file"),
            ([file, "--order-by-key", "--order-by-value"], environment, "--order-by-value: a query has one ordering"),
            ([file, "--limit-to-first", "0"], environment, "--limit-to-first: must be a positive integer"),
            ([file, "--path", "/a/~2"], environment, "--path: invalid path"),
            ([file, "--columns", "name,,score"], environment, "--columns: an empty column name"),
            ([file, "--page-size=-1"], environment, "--page-size must be 0 or more"),
            ([file, "--limit-to-last", "many"], environment, "--limit-to-last"),
            ([file, "--no-such-flag"], environment, "--no-such-flag"),
            ([file], environment, "standard input is not a terminal"),
            ([file], environment.filter { $0.key != "TERM" }, "TERM is not set"),
        ]
        for c in cases {
            let result = try runProgram(binary, c.arguments, environment: c.environment)
            #expect(result.status == 2, "\(c.arguments): status \(result.status), stderr: \(result.errors)")
            #expect(result.errors.contains(c.message), "\(c.arguments): stderr was: \(result.errors)")
        }
    }

    @Test("an unknown terminal type, or one that cannot move the cursor, is refused inside a real terminal, with status 2",
          arguments: [("no-such-terminal-type", "unknown terminal type 'no-such-terminal-type'"),
                      ("dumb", "terminal type 'dumb' cannot move the cursor")])
    func unusableTerminalType(term: String, message: String) throws {
        let folder = ScratchFolder()
        let file = folder.file("ok.json")
        try save(#"{"a": 1}"#, to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file], environment: ["TERM": term]))
        let screen = try session.waitFor("the refusal", history: true) { $0.contains("EXITED 2") }
        #expect(screen.lines.joined().contains(message), "\(screen.text)")
    }

    // Issue 47 items 9 and 10: a filter nested 7,000 deep at `w` crashed the viewer and left
    // the terminal raw; a filter whose pattern backtracks held it at "reading…", deaf to q.
    @Test("a filter nested too deep is refused at its place, and q quits while a costly pattern filters")
    func deepAndCostlyFiltersLeaveTheViewerAnswering() throws {
        let folder = ScratchFolder(underTmp: true)
        let file = folder.file("names.json")
        try save(#"{"players": {"a": {"name": "\#(String(repeating: "a", count: 40))b"}, "b": {"name": "aaa"}}}"#, to: file, style: .inPlace)
        let costly = #".name | test("^(a+)+$")"#

        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]))
        try session.waitFor("the rows") { $0.line(ofKey: "a") != nil && $0.line(ofKey: "b") != nil }
        try session.send("w")
        try session.waitFor("the prompt") { $0.contains("where (jq)") }
        try session.type(String(repeating: "(", count: 7000))
        try session.send("Enter")
        try session.waitFor("the refusal") { $0.contains("1:258: the expression nests deeper than 256 levels") }
        try session.send("w")
        try session.waitFor("the prompt") { $0.contains("where (jq)") }
        try session.type(costly)
        try session.send("Enter")
        try session.waitFor("only b") { $0.line(ofKey: "b") != nil && $0.line(ofKey: "a") == nil }
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }

        let started = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players", "--where", costly]))
        try started.waitFor("only b") { $0.line(ofKey: "b") != nil && $0.line(ofKey: "a") == nil }
        try started.send("q")
        try started.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }

    // Issue 47 item 10: a jq program that never ends (libjq has no time bound) held the loop at
    // "reading…", and q went unread; keys typed while the loop works are kept, not lost.
    @Test("q quits while a jq program that never ends holds the viewer")
    func qQuitsAViewerHeldByAnEndlessProgram() throws {
        let folder = ScratchFolder(underTmp: true)
        let file = folder.file("names.json")
        try save(#"{"players": {"a": {"name": "ann"}}}"#, to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players", "--where", "last(range(1e15)) > 0"]))
        try session.waitFor("the read under way") { $0.contains("reading") }
        try session.send("j", "q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }

    // Issue 13 item 2: `y` put the raw bytes of a hostile key on the clipboard.
    @Test("y refuses to copy a path holding control characters, and says so")
    func yRefusesControlCharacters() throws {
        let folder = ScratchFolder()
        let file = folder.file("hostile.json")
        try save(#"{"players": {"\u001b]0;PWNED\u0007k1\n\u001b[201~x": {"name": "hostile"}, "a": {"name": "Ann"}}}"#,
                 to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]))
        try session.waitFor("the rows") { $0.contains("hostile") && $0.contains("Ann") }
        try session.send("G", "y")
        try session.waitFor("a's path copied") { $0.contains("copied /players/a") }
        #expect(try session.tmux(["show-buffer"]) == "/players/a")
        try session.send("g", "y")
        let screen = try session.waitFor("the refusal") { $0.contains("not copied") }
        #expect(screen.contains(#"/players/\x1b]0;PWNED\x07k1\n\x1b[201~0x holds control"#), "\(screen.text)")
        // The clipboard still holds what was copied before.
        #expect(try session.tmux(["show-buffer"]) == "/players/a")
    }

    // Issue 13 item 3: file names from the command line were printed raw in messages.
    @Test("messages print file names with their control characters escaped")
    func messagesEscapeFileNames() throws {
        let binary = try synctableBinary()
        let folder = ScratchFolder()
        let hostile = folder.file("\u{1B}]0;x\u{07}.json")
        for arguments in [["validate", hostile], ["list", hostile], ["set", hostile, "/a", "1"]] {
            let result = try runProgram(binary, arguments)
            #expect(result.status != 0)
            #expect(!result.errors.contains("\u{1B}") && !result.errors.contains("\u{07}"), "\(arguments[0]): \(result.errors.debugDescription)")
            #expect(result.errors.contains(#"\x1b]0;x\x07.json"#), "\(arguments[0]): \(result.errors.debugDescription)")
        }
        try save("{\n  \"a\": [1,\n", to: hostile, style: .inPlace)
        let invalid = try runProgram(binary, ["validate", hostile])
        #expect(invalid.status == 1)
        #expect(!invalid.errors.contains("\u{1B}") && invalid.errors.contains(#"\x1b]0;x\x07.json:3:"#), "\(invalid.errors.debugDescription)")
    }
}
