// Issue 40's rough edges that are about the screen, in a real terminal: a log's bad line across
// its row, columns laid out again after a resize, and a status bar that keeps its numbers.
import Foundation
import Testing
import TestSupport

@Suite("Rough edges in the terminal")
struct ViewerRoughEdgeTerminalTests {
    @Test("items 1, 3, 10: a bad line's error spans its row; a resize shows the columns again; narrow, the count stays whole")
    func errorRowResizeAndStatusBar() throws {
        let folder = ScratchFolder()
        let file = folder.file("w.jsonl")
        let fields = ["ts", "level", "service", "msg", "path", "status", "latency_ms", "pid", "host", "user", "trace_id"]
        let lines = (0..<5).map { n in
            "{" + fields.enumerated().map { i, field in "\"\(field)\":\"value-\(n)-\(i)\"" }.joined(separator: ",") + "}\n"
        }
        try Data((lines.joined() + "{\"level\": \"warn\", \"msg\": \"cut\n").utf8).write(to: URL(fileURLWithPath: file))
        let session = try TmuxSession(viewer: try viewerCommand([file]), width: 120, height: 35)
        var screen = try session.waitFor("the rows and the error row") { $0.contains("6 rows") && $0.contains("⚠ invalid JSON at line 6, column") }

        // Scrolled to the last column, then wider: every column from the first.
        for _ in 0..<11 { try session.send("Tab") }
        screen = try session.waitFor("scrolled right") { $0.line(0).hasPrefix("‹") && $0.contains("trace_id") }
        try session.resize(width: 200, height: 35)
        screen = try session.waitFor("every column, the error row still shown") {
            !$0.line(0).hasPrefix("‹") && $0.line(0).contains("ts ") && $0.contains("trace_id") && $0.contains("⚠ invalid JSON at line 6, column")
        }

        // Narrow: the row count is never cut.
        try session.resize(width: 40, height: 12)
        screen = try session.waitFor("narrow") { $0.line(0).count <= 40 && $0.contains("6 rows") }
        let status = try #require(screen.lines.first { $0.contains("6 rows") })
        #expect(!status.contains("…") && status.contains("INVALID LINE"), "\(screen.text)")
        try session.send("q")
        try session.waitFor("the shell back", history: true) { $0.contains("EXITED 0") }
    }
}
