// A computed column in a real terminal: = adds it, s sorts by it, and it follows another process's
// edit; the configuration file and --order-by-computed give one at the start.
import Foundation
import Testing
import TestSupport

@Suite("The viewer's computed columns in a terminal")
struct ViewerComputedTerminalTests {
    static func players(dScore: Int) -> String {
        """
        {"players": {
          "a": {"score": 10, "level": 5},
          "b": {"score": 9, "level": 3},
          "c": {"score": 12, "level": 12},
          "d": {"score": \(dScore), "level": 4}
        }}
        """
    }

    @Test("= adds a computed column, s sorts by it, and a row moves when another process changes its value")
    func computedColumnSortsAndFollows() throws {
        let folder = ScratchFolder()
        let file = folder.file("players.json")
        try save(Self.players(dScore: 2), to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players", "--no-animation"]))
        try session.waitFor("key order") { $0.hasRows(inOrder: ["a", "b", "c", "d"]) }

        try session.send("=")
        try session.waitFor("the prompt") { $0.contains("computed column") }
        try session.type("ratio = .score / .level")
        try session.send("Enter")
        // One condition for the header and the cells: a capture can fall between two writes of one frame.
        try session.waitFor("the ratio column with d's ratio") { screen in
            screen.line(0).contains("ratio") && screen.line(ofKey: "d").map { screen.lines[$0].contains("0.5") } == true
        }

        // The cursor is on the new column: s orders by it (d 0.5, c 1, a 2, b 3).
        try session.send("s")
        try session.waitFor("rows by ratio") { $0.hasRows(inOrder: ["d", "c", "a", "b"]) && $0.contains("by ratio") }

        // Another process saves the file: d's ratio is now the highest, so d moves to the end.
        try save(Self.players(dScore: 40), to: file, style: .rename)
        try session.waitFor("d moved last, its ratio 10") { screen in
            screen.hasRows(inOrder: ["c", "a", "b", "d"]) && screen.line(ofKey: "d").map { screen.lines[$0].contains("10") } == true
        }
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }

    /// Issue 52: an expression outside the native subset (`map`) runs on libjq; `s` shows the
    /// rows with a value in order, and the one it fails on after them, counted.
    @Test("= adds a column computed with map (libjq), and s sorts by it, the row without a value last")
    func libjqColumnSorts() throws {
        let folder = ScratchFolder()
        let file = folder.file("tags.json")
        try save(#"{"p": {"a": {"tags": ["ab", "ac", "b"]}, "b": {"tags": ["a1"]}, "c": {"n": 1}, "d": {"tags": ["ax", "ay", "az"]}}}"#,
                 to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/p", "--no-animation"]))
        try session.waitFor("key order") { $0.hasRows(inOrder: ["a", "b", "c", "d"]) }
        try session.send("=")
        try session.waitFor("the prompt") { $0.contains("computed column") }
        try session.type(#"na = .tags | map(select(startswith("a"))) | length"#)
        try session.send("Enter")
        try session.waitFor("the column, run by jq") { $0.line(0).contains("na") && $0.contains("run jq") }
        try session.send("s")
        try session.waitFor("rows by na, c last") { screen in
            screen.hasRows(inOrder: ["b", "a", "d", "c"]) && screen.contains("by na, 1 without a value last")
                && screen.line(ofKey: "c").map { screen.lines[$0].contains("⚠ Cannot iterate over null") } == true
        }
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }

    @Test("a computed column from the configuration file, ordered by --order-by-computed NAME from the start")
    func configuredColumnOrderedFromTheCommandLine() throws {
        let folder = ScratchFolder()
        let file = folder.file("players.json")
        try save(Self.players(dScore: 2), to: file, style: .inPlace)
        try FileManager.default.createDirectory(atPath: folder.file("xdg/synctable"), withIntermediateDirectories: true)
        _ = folder.write("xdg/synctable/config.json", #"{"flags": {"computed": ["ratio = .score / .level"]}}"#)
        let session = try TmuxSession(viewer: try viewerCommand(
            [file, "--path", "/players", "--no-animation", "--order-by-computed", "ratio"],
            environment: ["XDG_CONFIG_HOME": folder.file("xdg")]))
        // d 0.5, c 1, a 2, b 3: the header shows the column as the sort column.
        try session.waitFor("rows by ratio") { screen in
            screen.hasRows(inOrder: ["d", "c", "a", "b"]) && screen.line(0).contains("ratio↑") && screen.contains("by ratio")
        }
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }
}
