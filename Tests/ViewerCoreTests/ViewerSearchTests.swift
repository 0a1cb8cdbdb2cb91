// `/` search with n/N over every child of a location, and `f`, the range filter.
import FileStore
import JSONTree
import LiveQuery
import TableUI
import Testing
import ViewerCore

@Suite("The viewer's search and filter keys")
struct ViewerSearchTests {
    @Test("/ finds a text past the loaded pages of 100,000 children (off the loop thread), n/N step and wrap")
    func searchAcrossPages() throws {
        let h = try ViewerHarness(memory: itemsJSON(100_000, digits: 6), rows: 20, columns: 100, path: "/items")
        try h.waitUntil("the first page") { $0.contains("200 rows of 100000") }

        // "item 5000" is in k005000 and k050000…k050009: 11 children, ten of them far past page 1.
        h.send(.character("/"))
        #expect(h.screen.contains("search"))
        h.type("item 5000")
        h.send(.enter)
        var screen = try h.waitUntil("the first match") { _ in h.selectedKey == "k005000" }
        #expect(screen.contains(#"match 1 of 11 for "item 5000""#))
        h.send(.character("n"))
        screen = try h.waitUntil("the second match, on page 251") { _ in h.selectedKey == "k050000" }
        #expect(screen.contains("match 2 of 11"))
        #expect(screen.contains("rows of 100000"))
        h.send(.character("N"))
        try h.waitUntil("back to the first") { _ in h.selectedKey == "k005000" }
        #expect(h.screen.contains("match 1 of 11"))
        // Before the first match, N wraps to the last.
        h.send(.character("N"))
        screen = try h.waitUntil("the last match") { _ in h.selectedKey == "k050009" }
        #expect(screen.contains("match 11 of 11") && screen.contains("wrapped to the bottom"))
        h.send(.character("n"))
        screen = try h.waitUntil("wrapped to the first") { _ in h.selectedKey == "k005000" }
        #expect(screen.contains("match 1 of 11") && screen.contains("wrapped to the top"))

        // A text in no child says so and leaves the selection where it was.
        h.send(.character("/"))
        h.type("nowhere")
        h.send(.enter)
        screen = try h.waitUntil("no match") { $0.contains("no match for") }
        #expect(h.selectedKey == "k005000")
    }

    /// Names in three cases, plus one in a column that is not first.
    static let plants = #"""
        {"p": {"a": {"name": "Orchid", "kind": "flower"}, "b": {"name": "orchard", "kind": "place"},
               "c": {"name": "ORCA", "kind": "whale"}, "d": {"name": "fern", "kind": "Orchestra"}}}
        """#

    @Test("smart case: lower case ignores case, an upper-case letter makes it exact; \\v is a regex; matches are highlighted")
    func smartCaseAndRegex() throws {
        let h = try ViewerHarness(memory: Self.plants, path: "/p") { $0.columns = [try! Path("name"), try! Path("kind")] }
        func find(_ text: String) {
            h.send(.character("/"))
            h.type(text)
            h.send(.enter)
        }
        find("orch")
        #expect(h.screen.contains(#"match 1 of 3 for "orch" (any case)"#) && h.selectedKey == "a")
        // The matching cell is highlighted, a cell that does not match is not.
        let line = try #require(h.line(ofKey: "a"))
        let nameColumn = try #require(h.canvas.column(of: "Orchid", line: line))
        #expect(h.canvas.style(line: line, column: nameColumn).attributes.contains(.underline))
        let other = try #require(h.line(ofKey: "c"))
        let orca = try #require(h.canvas.column(of: "ORCA", line: other))
        #expect(!h.canvas.style(line: other, column: orca).attributes.contains(.underline))

        h.send(.character("n"), .character("n"))
        #expect(h.selectedKey == "d" && h.screen.contains("match 3 of 3"))
        // The match in the kind column puts the column cursor there.
        #expect(h.screen.contains("kind"))

        find("Orch")
        #expect(h.screen.contains(#"for "Orch""#) && h.screen.contains("of 2"))
        find("\\vor(ch|ca)$")
        // A regular expression runs off the loop thread: its match lands on a later tick.
        try h.waitUntil("the regex's match") { $0.contains("match") && $0.contains("of 1 for /or(ch|ca)$/ (any case)") }
        #expect(h.selectedKey == "c")
        find("\\v(")
        #expect(h.screen.contains("not a regular expression"))
        find("ORCH")
        #expect(h.screen.contains(#"no match for "ORCH""#))

        // An empty search clears it: no highlight, n says there is no search.
        find("orch")
        find("")
        #expect(h.screen.contains("search cleared"))
        #expect(!h.canvas.style(line: line, column: nameColumn).attributes.contains(.underline))
        h.send(.character("n"))
        #expect(h.screen.contains("no search yet"))
    }

    /// Issue 43 item 9: `\v(a|aa)*b` over forty `a`s froze the viewer past every key.
    @Test("a regular expression that backtracks without end runs off the loop: the keys stay live and Esc stops it",
          .timeLimit(.minutes(1)))
    func catastrophicRegexLeavesTheKeysLive() throws {
        let a = String(repeating: "a", count: 40)
        let members = [#""k00": {"s": "x"}"#] + (1...9).map { #""k0\#($0)": {"s": "\#(a)"}"# }
        let h = try ViewerHarness(memory: "{\"p\": {" + members.joined(separator: ", ") + "}}", path: "/p")
        h.send(.character("/"))
        h.type("\\v(a|aa)*b")
        h.send(.enter)
        #expect(h.screen.contains("searching 10 children"))
        h.send(.character("j"))
        #expect(h.selectedKey == "k01")
        h.send(.escape)
        #expect(h.screen.contains("search stopped"))
        #expect(!h.viewer.interrupt())
    }

    @Test("f filters the column: a value, text*, >= 10, < 5, 10..20, and the prompt says what it means")
    func rangeFilter() throws {
        let json = #"{"s": {"a": {"v": 3}, "b": {"v": 10}, "c": {"v": 15}, "d": {"v": 20}, "e": {"v": 25}}}"#
        let h = try ViewerHarness(memory: json, path: "/s")
        func filter(_ text: String) {
            h.send(.tab, .character("f"))
            h.send(.character("\u{15}"))
            h.type(text)
            h.send(.enter)
            h.send(.backTab)
        }
        func keys() -> [String] { ["a", "b", "c", "d", "e"].filter { h.line(ofKey: $0) != nil } }
        filter(">= 10")
        try h.waitUntil { _ in keys() == ["b", "c", "d", "e"] }
        #expect(h.screen.contains("v >= 10"))
        filter("< 10")
        try h.waitUntil { _ in keys() == ["a"] }
        filter("10..20")
        try h.waitUntil { _ in keys() == ["b", "c", "d"] }
        #expect(h.screen.contains("v >= 10, <= 20"))
        h.send(.tab, .character("f"))
        // The prompt's label wraps at its words below the status bar.
        let prompt = h.messageArea
        #expect(prompt.contains("(now v >= 10, <= 20)") && prompt.contains(">= 10, < 5, 10..20"), "\(prompt)")
        h.send(.escape, .backTab)
        filter("> 10")
        try h.waitUntil { _ in keys() == ["c", "d", "e"] }
        filter("15")
        try h.waitUntil { _ in keys() == ["c"] }
        #expect(h.screen.contains("v = 15"))
        filter("")
        try h.waitUntil { _ in keys() == ["a", "b", "c", "d", "e"] }
    }
}
