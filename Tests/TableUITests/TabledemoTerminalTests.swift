import Foundation
import Testing
import TestSupport
@testable import TableUI

/// The demo in a real terminal (tmux): what it draws, its keys, resizes, and the terminal
/// put back when it quits or is killed.
@Suite(.serialized) struct TabledemoTerminalTests {
    func start(_ name: String, _ arguments: String = "--rows 60 --interval 0 --seed 1",
               width: Int = 100, height: Int = 30) throws -> TmuxSession {
        let demo = try builtProduct("tabledemo")
        let session = try TmuxSession(name, width: width, height: height, command: "\(shellQuoted(demo)) \(arguments)")
        try session.waitForScreen("the table") { $0.last { !$0.isEmpty }?.hasPrefix("row 1/60") ?? false }
        return session
    }

    /// The line showing the selection glyph.
    func selectedLine(_ screen: [String]) -> Int? { screen.firstIndex { $0.hasPrefix("▶") } }

    @Test func drawsHeaderRowsAndSanitisedText() throws {
        let tmux = try start("draw")
        let screen = try tmux.screen()
        #expect(screen[0].hasPrefix("     #  name"))
        #expect(screen[0].contains("score  note"))
        #expect(screen[1].hasPrefix("▶    1  "))
        #expect(screen[2].hasPrefix("     2  "))
        // An escape sequence in a cell shows as text instead of colouring the terminal.
        #expect(screen.contains { $0.contains("evil\\x1b[31mred") })
        #expect(screen.contains { $0.contains("tab\\there") })
        #expect(screen.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 } })
        // Wide names (東京タワー, 🍣, 👨) do not push the columns after them out of line.
        let cityColumn = try #require(screen[0].range(of: "city")).lowerBound
        let headerCells = displayWidth(screen[0][..<cityColumn])
        let cities = ["Paris", "Tōkyō", "Zürich", "Lagos", "Lima", "Oslo", "서울", "Reykjavík", "Nairobi", "Kraków"]
        var checked = 0
        for line in screen.dropFirst() {
            guard let city = cities.compactMap({ line.range(of: "  " + $0) }).first else { continue }
            #expect(displayWidth(line[..<city.lowerBound]) + 2 == headerCells, "misaligned: \(line)")
            checked += 1
        }
        #expect(checked >= 20)
        #expect(screen.contains { $0.contains("東京タワー") } && screen.contains { $0.contains("🍣 sushi") })
    }

    @Test func keysMoveTheSelection() throws {
        let tmux = try start("keys")
        try tmux.send("j", "j", "Down")
        try tmux.waitForScreen("row 4") { $0.contains { $0.hasPrefix("row 4/60") } }
        #expect(selectedLine(try tmux.screen()) == 4)
        try tmux.send("G")
        let end = try tmux.waitForScreen("the last row") { $0.contains { $0.hasPrefix("row 60/60") } }
        #expect(selectedLine(end) == 28)
        #expect(end[28].hasPrefix("▶   60  "))
        try tmux.send("PageUp")
        try tmux.waitForScreen("a page up") { $0.contains { $0.hasPrefix("row 32/60") } }
        try tmux.send("g")
        let top = try tmux.waitForScreen("the first row") { $0.contains { $0.hasPrefix("row 1/60") } }
        #expect(selectedLine(top) == 1)
    }

    /// Mouse reports as the terminal sends them (X10 encoding: ESC [ M, button + 32,
    /// column + 33, line + 33), typed into the pane once the program has turned mouse
    /// reporting on; a click's press and release arrive in one write, as from a terminal.
    @Test func clickSelectsAndWheelScrolls() throws {
        let tmux = try start("mouse")
        try tmux.waitForMode("mouse reporting on", "#{mouse_standard_flag}", "1")
        // Press at column 10, line 5, then release.
        try tmux.run(["send-keys", "-H", "1b", "5b", "4d", "20", "2b", "26", "1b", "5b", "4d", "23", "2b", "26"])
        let clicked = try tmux.waitForScreen("the clicked row selected") { $0.contains { $0.hasPrefix("row 5/60") } }
        #expect(selectedLine(clicked) == 5)
        try tmux.run(["send-keys", "-H", "1b", "5b", "4d", "61", "2b", "26"])  // wheel down
        let scrolled = try tmux.waitForScreen("three lines scrolled") { $0.count > 1 && $0[1].hasPrefix("     4  ") }
        #expect(selectedLine(scrolled) == 2)  // the selection stays on its row
    }

    @Test func insertAndDeleteAboveKeepTheSelectedRowOnItsLine() throws {
        let tmux = try start("anchor")
        for _ in 0..<15 { try tmux.send("j") }
        let before = try tmux.waitForScreen("row 16") { $0.contains { $0.hasPrefix("row 16/60") } }
        let line = try #require(selectedLine(before))
        let selected = before[line]
        try tmux.send("i")  // a new row at the top, above the selection
        let after = try tmux.waitForScreen("the inserted row") { $0.contains { $0.hasPrefix("row 17/61 #16") } }
        #expect(selectedLine(after) == line)
        #expect(after[line] == selected)
        try tmux.send("d")  // delete the selected row: its neighbour takes its line once it closes
        let deleted = try tmux.waitForScreen("the neighbour selected") { screen in
            screen.contains { $0.hasPrefix("row 17/60 #17") } && selectedLine(screen) == line
                && screen[line].hasPrefix("▶   17")
        }
        #expect(!deleted.contains { $0.hasPrefix("    16 ") || $0.hasPrefix("▶   16 ") })
    }

    @Test func resizeRelaysOutAndTooSmallSaysSo() throws {
        let tmux = try start("resize")
        for _ in 0..<5 { try tmux.send("j") }
        try tmux.waitForScreen("row 6") { $0.contains { $0.hasPrefix("row 6/60") } }
        try tmux.run(["resize-window", "-x", "40", "-y", "12"])
        let small = try tmux.waitForScreen("the narrow layout") { screen in
            screen.count >= 12 && screen[11].hasPrefix("row 6/60") && screen[0].hasSuffix("›")
        }
        #expect(small[6].hasPrefix("▶    6  "))
        #expect(small.allSatisfy { $0.count <= 40 })
        try tmux.run(["resize-window", "-x", "8", "-y", "2"])
        try tmux.waitForScreen("the too-small message") { $0.first?.hasPrefix("termina") ?? false }
        #expect(try tmux.screen().allSatisfy { !$0.hasPrefix("exit=") })
        try tmux.run(["resize-window", "-x", "100", "-y", "30"])
        let back = try tmux.waitForScreen("the full table again") { $0.contains { $0.hasPrefix("row 6/60") } }
        #expect(back[6].hasPrefix("▶    6  "))  // the too-small interlude did not move it
    }

    /// Alternate screen, cursor shown, mouse reporting, keypad mode.
    let terminalModes = "#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{keypad_cursor_flag}"

    @Test func quitRestoresTheTerminal() throws {
        let tmux = try start("quit")
        #expect(try tmux.format(terminalModes) == "1 0 1 1")  // while the table runs
        try tmux.send("q")
        #expect(try tmux.waitForExit() == "0")
        #expect(try tmux.format(terminalModes) == "0 1 0 0")
    }

    /// Mouse reporting is button events only (1000, not 1002 drag or 1003 any-motion), so
    /// the terminal can still select text with the mouse where it allows, in SGR encoding
    /// (1006) where the terminal description has it (xterm's does; tmux's and screen's, X10).
    @Test func mouseReportingIsButtonEventsInSGR() throws {
        let demo = try builtProduct("tabledemo")
        let tmux = try TmuxSession("mouse-modes", width: 100, height: 30,
                                   command: "TERM=xterm-256color \(shellQuoted(demo)) --rows 60 --interval 0 --seed 1")
        try tmux.waitForScreen("the table") { $0.contains { $0.hasPrefix("row 1/60") } }
        #expect(try tmux.format("#{mouse_standard_flag} #{mouse_button_flag} #{mouse_all_flag} #{mouse_sgr_flag}") == "1 0 0 1")
    }

    @Test(arguments: [("TERM", 15), ("SEGV", 11), ("HUP", 1), ("INT", 2)])
    func fatalSignalsRestoreTheTerminal(signal: String, number: Int) throws {
        let tmux = try start("signal-\(signal)")
        try runProgram("/bin/kill", ["-\(signal)", "\(try tmux.programPID())"])
        #expect(try tmux.waitForExit() == "\(128 + number)")  // died of the signal, after restoring
        #expect(try tmux.format(terminalModes) == "0 1 0 0")
    }

    /// The SGR parameters of every escape sequence in a `capture-pane -e` screen.
    func sgrParameters(_ screen: [String]) -> [[Int]] {
        var out: [[Int]] = []
        for line in screen {
            var rest = Substring(line)
            while let start = rest.range(of: "\u{1b}[") {
                rest = rest[start.upperBound...]
                guard let end = rest.firstIndex(of: "m") else { break }
                out.append(rest[..<end].split(separator: ";").compactMap { Int($0) })
                rest = rest[rest.index(after: end)...]
            }
        }
        return out
    }

    /// A colour parameter (39 and 49, "default colour", are not a colour).
    func isColour(_ p: Int) -> Bool { ((30...48).contains(p) && p != 39) || (90...107).contains(p) }

    @Test(arguments: [false, true])
    func noColorShowsAttributesInsteadOfColours(noColor: Bool) throws {
        let demo = try builtProduct("tabledemo")
        let env = noColor ? "NO_COLOR=1 " : ""
        // In slow motion, the flash lasts a minute: the screen is read during it, not raced.
        let tmux = try TmuxSession("no-color-\(noColor)", width: 100, height: 30,
                                   command: "\(env)\(shellQuoted(demo)) --rows 60 --interval 0 --seed 1 --slow-motion 50")
        try tmux.waitForScreen("the table") { $0.contains { $0.hasPrefix("row 1/60") } }
        try tmux.send("c")  // the selected row's score changes: it flashes, the cell marked
        try tmux.waitForScreen("the changed row") { $0.count > 1 && $0[1].hasPrefix("▶*") }
        let styled = try tmux.run(["capture-pane", "-p", "-e"]).split(separator: "\n").map(String.init)
        let parameters = sgrParameters(styled).flatMap { $0 }
        #expect(parameters.contains(1) && parameters.contains(4))  // bold, underline (header, changed cell)
        if noColor {
            #expect(!parameters.contains(where: isColour), "colour codes with NO_COLOR: \(parameters)")
        } else {
            #expect(parameters.contains(where: isColour))
        }
        try tmux.send("q")
        #expect(try tmux.waitForExit() == "0")
    }

    @Test func timerChangesRowsWhileKeysStillWork() throws {
        let demo = try builtProduct("tabledemo")
        let tmux = try TmuxSession("timer", width: 100, height: 30, command: "\(shellQuoted(demo)) --rows 60 --interval 0.03 --seed 3")
        var counts = Set<String>()
        let deadline = Date().addingTimeInterval(10)
        while counts.count < 3 && Date() < deadline {
            if let status = try tmux.screen().last(where: { !$0.isEmpty }), status.hasPrefix("row ") {
                counts.insert(String(status.split(separator: " ")[1].split(separator: "/")[1]))
            }
            usleep(50_000)
        }
        #expect(counts.count >= 3, "the row count never changed: \(counts)")
        try tmux.send("p", "G")
        try tmux.waitForScreen("paused at the last row") { screen in
            guard let status = screen.last(where: { !$0.isEmpty }), status.contains("(paused)") else { return false }
            let parts = status.split(separator: " ")[1].split(separator: "/")
            return parts.count == 2 && parts[0] == parts[1]
        }
        try tmux.send("q")
        #expect(try tmux.waitForExit() == "0")
    }
}
