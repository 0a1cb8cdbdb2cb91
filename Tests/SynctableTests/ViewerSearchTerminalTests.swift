// `/` search in a real terminal on a live file: the matching rows move between n presses.
import Foundation
import Testing
import TestSupport

@Suite("Search in the terminal")
struct ViewerSearchTerminalTests {
    /// 26 players a…z with scores 10, 20, …; c, h and p are "Gold …".
    static func players(_ scoreOfH: Int) -> String {
        let members = (0..<26).map { i -> String in
            let key = String(UnicodeScalar(UInt8(97 + i)))
            let gold = ["c", "h", "p"].contains(key)
            let score = key == "h" ? scoreOfH : (i + 1) * 10
            return #""\#(key)": {"name": "\#(gold ? "Gold" : "Plain") \#(key)", "score": \#(score)}"#
        }
        return "{\"players\": {\n  " + members.joined(separator: ",\n  ") + "\n}}\n"
    }

    @Test("/ finds the matches, and n after a save steps through them in the file's new order")
    func searchOnALiveFile() throws {
        let folder = ScratchFolder()
        let file = folder.file("players.json")
        try save(Self.players(80), to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players", "--order-by-child", "score"]))
        try session.waitFor("the first rows") { $0.hasRows(inOrder: ["a", "b", "c"]) }

        try session.type("/gold")
        try session.send("Enter")
        try session.waitFor("the first match") { $0.selectedKey == "c" && $0.contains("match 1 of 3 for \"gold\" (any case)") }

        // h (a match after c) moves to the top, above c: n searches the new revision and goes on from c.
        try save(Self.players(5), to: file, style: .rename)
        try session.waitFor("h at the top, c still selected") { $0.hasRows(inOrder: ["h", "a", "b", "c"]) && $0.selectedKey == "c" }
        try session.send("n")
        try session.waitFor("the match after c in the new order") { $0.selectedKey == "p" && $0.contains("match 3 of 3") }
        try session.send("n")
        try session.waitFor("wrapped to h, now first") { $0.selectedKey == "h" && $0.contains("match 1 of 3") && $0.contains("wrapped to the top") }
        try session.send("N")
        try session.waitFor("wrapped back to p") { $0.selectedKey == "p" && $0.contains("match 3 of 3") && $0.contains("wrapped to the bottom") }
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }

    /// Issue 43 item 9: `\v(a|aa)*b` over forty `a`s froze the screen past q, Ctrl-C and SIGTERM.
    @Test("a regular expression that backtracks without end leaves the keys live: Ctrl-C stops it, SIGTERM restores the terminal")
    func catastrophicRegexKeepsTheViewerLive() throws {
        let folder = ScratchFolder(underTmp: true)
        let file = folder.file("hostile.json")
        // Each `a` cell costs the search its time per text (half a second): 30 of them keep it running.
        let a = String(repeating: "a", count: 40)
        let members = [#""k00": {"s": "x"}"#] + (1...30).map { #""k\#($0 < 10 ? "0" : "")\#($0)": {"s": "\#(a)"}"# }
        try save("{" + members.joined(separator: ", ") + "}", to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file]))
        try session.waitFor("the table") { $0.line(ofKey: "k01") != nil }
        try session.type("/\\v(a|aa)*b")
        try session.send("Enter")
        try session.waitFor("the search running") { $0.contains("searching 31 children") }
        try session.send("j")
        try session.waitFor("the keys still live") { $0.selectedKey == "k01" }
        try session.send("C-c")
        try session.waitFor("the search stopped, the viewer still there") { $0.contains("search stopped") && $0.line(ofKey: "k00") != nil }
        try session.send("n")
        try session.waitFor("the search running again") { $0.contains("searching 31 children") }
        let shell = try session.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        let viewer = try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
        #expect(kill(viewer, SIGTERM) == 0)
        let screen = try session.waitFor("the shell back after SIGTERM", seconds: 5, history: true) { $0.contains("EXITED 143") }
        #expect(!screen.contains("k01"), "the table is still on screen:\n\(screen.text)")
        #expect(try session.tmux(["display-message", "-p", "#{alternate_on}"]).hasPrefix("0"))
    }
}
