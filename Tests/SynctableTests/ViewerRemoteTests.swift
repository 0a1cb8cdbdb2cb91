// The viewer on a database URL (`synctable serve` in another process), in a real terminal:
// the same table as on the file, edits from elsewhere, writes from the keys, a server restart.
import Foundation
import JSONTree
import Testing
import TestSupport

@Suite("The viewer on a database URL")
struct ViewerRemoteTests {
    @Test("follows the served file, writes with its keys, says OFFLINE while the server is down and catches up when it is back")
    func followsWritesAndReconnects() throws {
        let folder = ScratchFolder()
        let file = folder.file("board.json")
        try save(leaderboard([("a", 10), ("b", 20), ("c", 30)]), to: file, style: .inPlace)
        let server = try ServedFile(file: file)
        let url = server.url("/players")
        let local = try TmuxSession(viewer: try viewerCommand([file, "--path", "/players", "--order-by-child", "score", "--no-animation"]))
        let remote = try TmuxSession(viewer: try viewerCommand([url, "--order-by-child", "score", "--no-animation", "--edit"]))
        try remote.waitFor("the rows by score") { $0.hasRows(inOrder: ["a", "b", "c"]) }
        try local.waitFor("the rows by score") { $0.hasRows(inOrder: ["a", "b", "c"]) }
        // The same table as the file's, apart from the status bar's name of the source.
        let remoteRows = try tableRows(remote), localRows = try tableRows(local)
        #expect(remoteRows == localRows, "URL:\n\(remoteRows.joined(separator: "\n"))\nfile:\n\(localRows.joined(separator: "\n"))")

        // Another process edits the file: the row moves on the remote screen.
        try save(leaderboard([("a", 40), ("b", 20), ("c", 30)]), to: file, style: .rename)
        try remote.waitFor("a moved to the end") { $0.hasRows(inOrder: ["b", "c", "a"]) }

        // A key writes through the URL: + on the score of the selected row (a, which the
        // selection followed to the end).
        try remote.send("Tab", "Tab", "+")
        waitForFile(file, "a's score 41") { number($0, "/players/a/score") == 41 }
        try remote.waitFor("the write's message") { $0.contains("/a/score +1: 40 → 41") }

        server.kill()
        try remote.waitFor("the OFFLINE badge, the table kept") {
            $0.contains("OFFLINE") && $0.hasRows(inOrder: ["b", "c", "a"])
        }
        try save(leaderboard([("a", 41), ("b", 20), ("c", 30), ("d", 5)]), to: file, style: .inPlace)
        try server.start()
        try remote.waitFor("back online with the row added meanwhile") {
            !$0.contains("OFFLINE") && $0.hasRows(inOrder: ["d", "b", "c", "a"])
        }
        try remote.send("q")
        try remote.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }

    @Test("a refused token says UNAUTHORIZED and never shows the token")
    func refusedToken() throws {
        let folder = ScratchFolder()
        let file = folder.file("board.json")
        try save(leaderboard([("a", 1)]), to: file, style: .inPlace)
        let server = try ServedFile(file: file, arguments: ["--auth-token", "the-right-one"])
        let session = try TmuxSession(viewer: try viewerCommand([server.url("/players"), "--auth-token", "not-the-right-one"]))
        let screen = try session.waitFor("the UNAUTHORIZED badge") { $0.contains("UNAUTHORIZED") }
        #expect(!screen.text.contains("not-the-right-one"))
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }
}

/// The table's lines on screen (the header and rows, above the status bar), trailing blanks trimmed.
private func tableRows(_ session: TmuxSession) throws -> [String] {
    try session.screen().prefix { !$0.contains(" · rev ") }.map { String($0.reversed().drop { $0 == " " }.reversed()) }
}
