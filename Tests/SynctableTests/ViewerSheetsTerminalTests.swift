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
}
