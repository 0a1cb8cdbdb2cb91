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
}
