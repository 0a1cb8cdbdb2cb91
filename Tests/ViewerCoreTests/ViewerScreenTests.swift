// The one screen cache: every sheet draws through the viewer's `ScreenCanvas`, so a change
// writes only the cells it changed, and whatever sheets came and went the terminal shows what a
// full repaint would.
import TableUI
import Testing
import TestSupport
import ViewerCore

@Suite("The one screen")
struct ViewerScreenTests {
    /// The draws since the operations were cleared, as (line, text).
    static func draws(_ h: ViewerHarness) -> [(line: Int, text: String)] {
        h.canvas.operations.compactMap { op in
            if case .draw(let line, _, let text) = op { return (line, text) }
            return nil
        }
    }

    /// Ctrl-L forgets the screen and repaints every cell: when the screen knew what the terminal
    /// showed, the repaint changes nothing.
    static func expectRepaintChangesNothing(_ h: ViewerHarness, _ step: String) {
        _ = h.lines
        let before = h.canvas.cells
        h.canvas.clearOperations()
        h.send(.character("\u{0C}"))
        _ = h.lines
        #expect(!draws(h).isEmpty, "\(step): the repaint wrote nothing")
        #expect(h.canvas.cells == before, "\(step): the terminal showed something else than a repaint:\n\(h.screen)")
    }

    @Test("a one-cell change writes that cell, not its line; a frame without a change writes nothing")
    func oneCellChangeWritesOneCell() throws {
        let players = { (b: Int) in #"{"a": {"score": 10}, "b": {"score": \#(b)}, "c": {"score": 30}}"# }
        let h = try ViewerHarness(memory: players(20), rows: 12, columns: 60)
        _ = h.lines
        h.canvas.clearOperations()
        h.viewer.render()
        #expect(Self.draws(h).isEmpty, "\(h.canvas.operations)")
        try h.save(players(21))
        h.canvas.clearOperations()
        let screen = h.lines
        guard let line = screen.firstIndex(where: { $0.contains(" b ") }) else {
            Issue.record("no row b:\n\(screen.joined(separator: "\n"))")
            return
        }
        #expect(screen[line].contains("21"))
        let written = Self.draws(h).filter { $0.line == line }.reduce(0) { $0 + $1.text.count }
        #expect(written == 1, "\(h.canvas.operations)")
    }

    @Test("charts, derived sheets and the table stepping under a chart all draw through one screen: a repaint changes nothing")
    func everySheetDrawsThroughTheOneScreen() throws {
        let h = try ViewerHarness(memory: ViewerChartsTests.players([(1, 0, "a"), (2, 0, "b"), (7, 3, "a")]),
                                  rows: 20, columns: 90, path: "/players")
        for score in [5.0, 3, 8] {
            h.now += 1
            try h.save(ViewerChartsTests.players([(score, 0, "a"), (2, 0, "b"), (7, 3, "a")]))
        }
        Self.expectRepaintChangesNothing(h, "the table")
        ViewerChartsTests.open(h, "#")
        try h.waitUntil("the histogram") { $0.contains("score histogram") }
        Self.expectRepaintChangesNothing(h, "the histogram")
        try h.save(ViewerChartsTests.players([(9, 0, "a"), (2, 0, "b"), (7, 3, "a")]))
        Self.expectRepaintChangesNothing(h, "the histogram after an edit")
        h.send(.character("q"))
        Self.expectRepaintChangesNothing(h, "the table again")
        ViewerChartsTests.open(h, "@")
        try h.waitUntil("the series") { $0.contains("score of p0 over time") }
        h.send(.character("["), .character("["))
        Self.expectRepaintChangesNothing(h, "the series, back in time")
        h.send(.character("q"), .character("P"))
        Self.expectRepaintChangesNothing(h, "the table, back in the present")
    }
}
