// The viewer driven in-process: keys, revisions and the clock in, the screen out.
import Foundation
import TableUI
import Testing
import ViewerCore

@Suite("The viewer in-process")
struct ViewerTests {
    static let players = """
        {"players": {
          "a": {"name": "Zed", "score": 5},
          "b": {"name": "Amy", "score": 50},
          "c": {"name": "Bob", "score": 20},
          "d": {"name": "Ann", "score": 35}
        }}
        """

    @Test("the rows of a location, its columns, and the status bar")
    func showsLocation() throws {
        let h = try ViewerHarness(memory: ViewerTests.players, path: "/players")
        let lines = h.lines
        #expect(lines[0].contains("key") && lines[0].contains("name") && lines[0].contains("score"))
        #expect(["a", "b", "c", "d"].map { h.line(ofKey: $0) } == [1, 2, 3, 4])
        #expect(h.selectedKey == "a")
        #expect(lines[22].contains("/players") && lines[22].contains("4 rows"))
    }

    @Test("s sorts by the column under the cursor; r reverses; a saved change is shown")
    func sortAndLive() throws {
        let h = try ViewerHarness(memory: ViewerTests.players, path: "/players")
        h.send(.tab, .tab, .character("s"))
        try h.waitUntil("score order") { _ in ["a", "c", "d", "b"].map { h.line(ofKey: $0) } == [1, 2, 3, 4] }
        h.send(.character("r"))
        try h.waitUntil("score order, descending") { _ in ["b", "d", "c", "a"].map { h.line(ofKey: $0) } == [1, 2, 3, 4] }
        try h.save(ViewerTests.players.replacingOccurrences(of: "\"score\": 5}", with: "\"score\": 99}"))
        try h.waitUntil("a at the top") { _ in h.line(ofKey: "a") == 1 }
    }

    @Test("y asks the terminal to copy the selected child's path; q stops the viewer")
    func effects() throws {
        let h = try ViewerHarness(memory: ViewerTests.players, path: "/players")
        h.send(.down, .character("y"))
        #expect(h.effects == [.copyToClipboard("/players/b")])
        #expect(h.viewer.isRunning)
        h.send(.character("q"))
        #expect(!h.viewer.isRunning)
    }

    @Test("the key table is the viewer's option: dispatch and the help screen both read it")
    func customKeyBindings() throws {
        let bindings = standardKeyBindings.filter { $0.action != .quit }
            + [KeyBinding("Z", [.character("Z")], .quit, "leave")]
        let h = try ViewerHarness(memory: ViewerTests.players, path: "/players") { $0.keyBindings = bindings }
        h.send(.character("q"))
        #expect(h.viewer.isRunning)
        h.send(.character("?"), .character("G"))
        #expect(h.screen.contains("leave"))
        h.send(.escape, .character("Z"))
        #expect(!h.viewer.isRunning)
    }
}
