// A frequency sheet in a real terminal while another process edits the file: its counts change in place.
import Foundation
import Testing
import TestSupport

@Suite("Sheets in a terminal")
struct ViewerSheetsTerminalTests {
    @Test("a frequency sheet's counts and order change as `synctable set` edits the file; q closes it, q quits")
    func frequencySheetFollowsAnotherWriter() throws {
        let folder = ScratchFolder()
        let file = folder.file("teams.json")
        let teams = ["p1": "red", "p2": "red", "p3": "red", "p4": "blue", "p5": "blue", "p6": "gold"]
        let members = teams.sorted { $0.key < $1.key }.map { #""\#($0.key)": {"team": "\#($0.value)", "score": 1}"# }
        try save("{\"players\": {\n  " + members.joined(separator: ",\n  ") + "\n}}\n", to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players", "--columns", "team,score"]))
        try session.waitFor("the table") { $0.hasRows(inOrder: ["p1", "p6"]) }
        try session.send("Right", "F")
        try session.waitFor("red 3, blue 2, gold 1") { screen in
            screen.contains("/players › team frequency · 3 rows") && screen.hasRows(inOrder: ["red", "blue", "gold"])
                && screen.line(screen.line(ofKey: "red")!).contains(" 3 ") && screen.line(screen.line(ofKey: "gold")!).contains(" 1 ")
        }
        // Another process moves p1 from red to gold: three counts of two, tied, in value order.
        let set = try runProgram(try synctableBinary(), ["set", file, "/players/p1/team", "\"gold\""])
        #expect(set.status == 0, "\(set.errors)")
        try session.waitFor("blue, gold, red: 2 each") { screen in
            screen.hasRows(inOrder: ["blue", "gold", "red"])
                && ["blue", "gold", "red"].allSatisfy { screen.line(screen.line(ofKey: $0)!).contains(" 2 ") }
        }
        // A new value: its row appears; the sheet stays the frequency table.
        let again = try runProgram(try synctableBinary(), ["set", file, "/players/p6/team", "\"teal\""])
        #expect(again.status == 0, "\(again.errors)")
        try session.waitFor("teal's row") { $0.line(ofKey: "teal") != nil && $0.contains("· 4 rows") }
        try session.send("q")
        try session.waitFor("the table again") { $0.hasRows(inOrder: ["p1", "p6"]) && !$0.contains("frequency") }
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }

    @Test("a histogram's bars change in place as `synctable set` edits the file; q goes back to the table")
    func histogramFollowsAnotherWriter() throws {
        let folder = ScratchFolder()
        let file = folder.file("scores.json")
        // Two clusters between fixed ends: 4 scores near 10, 2 near 90.
        let scores = ["p0": 0, "p1": 10, "p2": 11, "p3": 12, "p4": 13, "p5": 90, "p6": 91, "p7": 100]
        let members = scores.sorted { $0.key < $1.key }.map { #""\#($0.key)": {"score": \#($0.value)}"# }
        try save("{\"players\": {\n  " + members.joined(separator: ",\n  ") + "\n}}\n", to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]))
        try session.waitFor("the table") { $0.hasRows(inOrder: ["p0", "p7"]) }
        try session.send("Right", "#")
        /// The counts at the bars' ends, top to bottom.
        func counts(_ screen: Screen) -> [String] {
            screen.lines.compactMap { line -> String? in
                guard line.contains("│"), let bar = line.lastIndex(where: { "█▉▊▋▌▍▎▏".contains($0) }) else { return nil }
                return line[line.index(after: bar)...].trimmingCharacters(in: .whitespaces)
            }
        }
        try session.waitFor("4 near 10, 2 near 90") { screen in
            screen.contains("/players › score histogram") && counts(screen).contains("4") && counts(screen).contains("2")
        }
        // Another process moves p1 from 10 to 92: one count moves from one bar to the other.
        let set = try runProgram(try synctableBinary(), ["set", file, "/players/p1/score", "92"])
        #expect(set.status == 0, "\(set.errors)")
        try session.waitFor("3 and 3") { screen in counts(screen).filter { $0 == "3" }.count == 2 && !counts(screen).contains("4") }
        try session.send("q")
        try session.waitFor("the table again") { $0.hasRows(inOrder: ["p0", "p7"]) && !$0.contains("histogram") }
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }
}
