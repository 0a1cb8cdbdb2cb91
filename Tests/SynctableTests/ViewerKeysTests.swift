// The viewer's keys that need a real terminal (the others are tested in-process in
// ViewerCoreTests): Ctrl-L repainting what another program wrote over the screen.
import Foundation
import Testing
import TestSupport

@Suite("The viewer's keys")
struct ViewerKeysTests {
    /// Four players whose names and scores order differently.
    static let players = """
        {"players": {
          "a": {"name": "Zed", "score": 5},
          "b": {"name": "Amy", "score": 50},
          "c": {"name": "Bob", "score": 20},
          "d": {"name": "Ann", "score": 35}
        }}
        """

    @Test("Ctrl-L clears what another program wrote over the screen and draws the table again")
    func ctrlLRepaints() throws {
        let folder = ScratchFolder()
        let file = folder.file("players.json")
        try save(ViewerKeysTests.players, to: file, style: .inPlace)
        let session = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players"]))
        try session.waitFor("key order") { $0.hasRows(inOrder: ["a", "b", "c", "d"]) }

        // Another program writes straight to the terminal, behind ncurses' back.
        let tty = try session.tmux(["display-message", "-p", "#{pane_tty}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let scribble = try #require(FileHandle(forWritingAtPath: tty))
        scribble.write(Data("\u{1B}[3;1HSCRIBBLED-OVER\u{1B}[5;10HSCRIBBLED-OVER".utf8))
        try scribble.close()
        try session.waitFor("the scribbles") { $0.contains("SCRIBBLED-OVER") }

        try session.send("C-l")
        // (The screen is blank for a moment between the clear and the redraw.)
        try session.waitFor("the table, clean") { screen in
            !screen.contains("SCRIBBLED-OVER") && screen.hasRows(inOrder: ["a", "b", "c", "d"])
                && screen.contains("Zed") && screen.contains("Ann")
        }
    }
}
