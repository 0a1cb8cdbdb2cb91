import Testing
import TableUI
import TestSupport

/// The one screen cache: a view draws its whole picture every frame, and only the cells that
/// differ from what the terminal shows are written — yet the terminal always ends up showing
/// exactly the picture, whatever came before (wide characters, line shifts, a forgotten screen).
@Suite struct ScreenCanvasTests {
    @Test func drawingWhatIsShownWritesNothingAndOneChangedCellWritesOneCell() {
        let canvas = MemoryCanvas(rows: 3, columns: 20)
        let screen = ScreenCanvas(canvas)
        screen.draw("score 41 points", line: 1, column: 0, style: .plain)
        canvas.clearOperations()
        screen.draw("score 41 points", line: 1, column: 0, style: .plain)
        #expect(canvas.operations.isEmpty)
        screen.draw("score 42 points", line: 1, column: 0, style: .plain)
        #expect(canvas.operations == [.draw(line: 1, column: 7, text: "2")])
        canvas.clearOperations()
        screen.draw("score 42 points", line: 1, column: 0, style: CellStyle(.bold))
        #expect(canvas.operations == [.draw(line: 1, column: 0, text: "score 42 points")], "a new style is a change")
    }

    @Test func lineShiftsMoveWhatTheScreenKnows() {
        let canvas = MemoryCanvas(rows: 5, columns: 10)
        let screen = ScreenCanvas(canvas)
        for line in 0..<5 { screen.draw("line \(line)    ", line: line, column: 0, style: .plain) }
        canvas.clearOperations()
        screen.deleteLines(1, at: 1, regionEnd: 4)
        for (line, text) in ["line 0", "line 2", "line 3", "new", "line 4"].enumerated() {
            screen.draw(text.padding(toLength: 10, withPad: " ", startingAt: 0), line: line, column: 0, style: .plain)
        }
        #expect(canvas.operations == [.deleteLines(count: 1, at: 1, regionEnd: 4), .draw(line: 3, column: 0, text: "new")])
    }

    @Test func forgettingWritesEveryCellAgain() {
        let canvas = MemoryCanvas(rows: 2, columns: 6)
        let screen = ScreenCanvas(canvas)
        screen.draw("abcdef", line: 0, column: 0, style: .plain)
        screen.forget()
        canvas.clearOperations()
        screen.draw("abcdef", line: 0, column: 0, style: .plain)
        #expect(canvas.operations == [.draw(line: 0, column: 0, text: "abcdef")])
    }

    /// Random frames of whole lines (wide characters, styles, shifts, forgets) drawn through
    /// the screen leave the terminal showing what the frame drawn on a blank canvas shows.
    @Test func theTerminalShowsEachFrameWhateverCameBefore() {
        let pieces = ["a", "bc", "界", "日本", " ", "x界y", "──", "é"]
        let styles = [CellStyle.plain, CellStyle(.bold), CellStyle(.reverse, foreground: 2)]
        forEachSeed(30) { seed, rng in
            let (rows, columns) = (rng.int(2...6), rng.int(4...16))
            let canvas = MemoryCanvas(rows: rows, columns: columns)
            let screen = ScreenCanvas(canvas)
            var shown = [[(String, CellStyle)]](repeating: [], count: rows)
            for step in 0..<40 {
                if rng.chance(0.15), rows > 1 {
                    let start = rng.int(0..<(rows - 1)), end = rng.int((start + 1)...rows), n = rng.int(1...(end - start))
                    if rng.chance(0.5) { screen.insertLines(n, at: start, regionEnd: end) } else { screen.deleteLines(n, at: start, regionEnd: end) }
                }
                if rng.chance(0.05) { screen.forget() }
                for line in 0..<rows where rng.chance(0.6) || step == 0 {
                    var runs: [(String, CellStyle)] = []
                    var width = 0
                    while true {
                        let piece = rng.pick(pieces)
                        guard width + displayWidth(piece) <= columns else { break }
                        runs.append((piece, rng.pick(styles)))
                        width += displayWidth(piece)
                    }
                    runs.append((String(repeating: " ", count: columns - width), .plain))
                    shown[line] = runs
                }
                // A frame draws every line whole.
                let fresh = MemoryCanvas(rows: rows, columns: columns)
                for (line, runs) in shown.enumerated() {
                    var x = 0
                    for (text, style) in runs {
                        screen.draw(text, line: line, column: x, style: style)
                        fresh.draw(text, line: line, column: x, style: style)
                        x += displayWidth(text)
                    }
                }
                #expect(canvas.cells == fresh.cells, "seed \(seed) step \(step)\n\(canvas.lines)\n\(fresh.lines)")
                #expect(canvas.violations.isEmpty, "seed \(seed): \(canvas.violations)")
            }
        }
    }
}
