// The column keys: x hides, X shows again, > < resize, H L move; the key column stays on screen.
import FileStore
import JSONTree
import TableUI
import Testing
import ViewerCore

@Suite("The viewer's column keys")
struct ViewerColumnsTests {
    static let json = #"""
        {"p": {"a": {"name": "Ann", "score": 10, "kind": "cat"}, "b": {"name": "Bo", "score": 20, "kind": "dog"}}}
        """#

    /// The column titles in the header line, left to right.
    static func titles(_ h: ViewerHarness) -> [String] {
        h.lines[0].split(separator: " ").map { String($0).trimmingCharacters(in: "↑↓‹›") }.filter { !$0.isEmpty }
    }

    @Test("x hides the column under the cursor (a new child's member stays hidden), X lists them to show again where they were")
    func hideAndShow() throws {
        let h = try ViewerHarness(memory: Self.json, path: "/p")
        #expect(Self.titles(h) == ["key", "name", "score", "kind"])
        h.send(.character("x"))
        #expect(h.screen.contains("the key column cannot be hidden") && Self.titles(h).count == 4)
        h.send(.tab, .character("x"))
        #expect(Self.titles(h) == ["key", "score", "kind"] && h.screen.contains("hid name"))
        try h.save(#"{"p": {"a": {"name": "Ann", "score": 10, "kind": "cat"}, "c": {"name": "Cy", "score": 5, "kind": "cow"}}}"#)
        try h.waitUntil("c shown") { _ in h.line(ofKey: "c") != nil }
        #expect(Self.titles(h) == ["key", "score", "kind"] && !h.screen.contains("Cy"))

        h.send(.tab, .character("x"))
        #expect(Self.titles(h) == ["key", "score"])
        h.send(.character("X"))
        #expect(h.screen.contains("show column: 1 name  2 kind"))
        h.type("2")
        h.send(.enter)
        #expect(Self.titles(h) == ["key", "score", "kind"] && h.screen.contains("showing kind"))
        // Shown again where it was (issue 40 item 10), not at the end.
        h.send(.character("X"), .enter)
        #expect(Self.titles(h) == ["key", "name", "score", "kind"] && h.screen.contains("Cy"))
        h.send(.character("X"))
        #expect(h.screen.contains("no hidden columns"))
    }

    @Test("H and L move the column under the cursor (the cursor follows; the key stays first)")
    func move() throws {
        let h = try ViewerHarness(memory: Self.json, path: "/p")
        h.send(.tab, .character("L"))
        #expect(Self.titles(h) == ["key", "score", "name", "kind"])
        h.send(.character("L"), .character("L"))
        #expect(Self.titles(h) == ["key", "score", "kind", "name"])
        h.send(.character("H"), .character("H"), .character("H"))
        #expect(Self.titles(h) == ["key", "name", "score", "kind"])
        h.send(.backTab, .character("L"))
        #expect(h.screen.contains("the key column stays first") && Self.titles(h).first == "key")
    }

    @Test("> widens and < narrows the column under the cursor by 4 cells")
    func resize() throws {
        let h = try ViewerHarness(memory: Self.json, path: "/p")
        let line = try #require(h.line(ofKey: "a"))
        let before = try #require(h.canvas.column(of: "10", line: line))
        h.send(.tab, .character(">"))
        _ = h.lines
        #expect(h.canvas.column(of: "10", line: line) == before + 4)
        #expect(h.screen.contains("name: 8 cells wide"))
        h.send(.character("<"), .character("<"), .character("<"))
        #expect(h.screen.contains("name: 1 cell wide"))
        #expect(h.canvas.column(of: "10", line: line)! < before)
    }

    @Test("at 40 columns the key column stays on screen while the cursor scrolls the others")
    func frozenKeyColumn() throws {
        let long = String(repeating: "x", count: 30)
        let json = #"{"p": {"key1": {"a": "\#(long)", "b": "\#(long)", "c": "\#(long)", "d": "last"}}}"#
        let h = try ViewerHarness(memory: json, columns: 40, path: "/p")
        for _ in 0..<4 { h.send(.tab) }
        let lines = h.lines
        #expect(lines[0].hasPrefix("   key") || lines[0].hasPrefix("‹  key"))
        #expect(lines[0].contains("d") && lines[0].hasPrefix("‹"))
        let row = try #require(lines.first { $0.contains("last") })
        #expect(row.contains("key1"))
        // Back on the key column, the scroll is left alone: the key is there either way.
        h.send(.backTab, .backTab, .backTab, .backTab)
        #expect(h.lines.contains { $0.contains("key1") })
    }

    @Test("hiddenColumns (--columns -name) hides inferred columns from the start")
    func hiddenByOption() throws {
        let h = try ViewerHarness(memory: Self.json, path: "/p") { $0.hiddenColumns = [try! Path("score")] }
        #expect(Self.titles(h) == ["key", "name", "kind"])
        h.send(.character("X"))
        #expect(h.screen.contains("show column: 1 score"))
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        String(filter { !set.contains($0) })
    }
}
