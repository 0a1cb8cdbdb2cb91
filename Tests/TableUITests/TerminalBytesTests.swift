import Testing
import TestSupport

/// Bytes really written to a terminal (ncurses with the xterm-256color description, on a
/// pseudo-terminal), as `tabledemo --measure` counts them.
@Suite struct TerminalBytesTests {
    @Test func oneInsertedRowCostsAtMostARowPlus100Bytes() throws {
        let demo = try builtProduct("tabledemo")
        let result = try runProgram(demo, ["--measure"])
        let (status, output) = (result.status, result.output)
        #expect(status == 0)
        var figures: [String: [String: Int]] = [:]
        for line in output.split(separator: "\n") {
            var fields: [String: Int] = [:]
            for pair in line.split(separator: " ") {
                let kv = pair.split(separator: "=")
                if kv.count == 2, let v = Int(kv[1]) { fields[String(kv[0])] = v }
            }
            if let name = fields.keys.first(where: { $0.hasSuffix("_bytes") && $0 != "animation_bytes" }) {
                figures[String(name.dropLast("_bytes".count))] = fields
            }
        }
        let insert = try #require(figures["insert"], "no insert line in:\n\(output)")
        let width = try #require(insert["row_width"])
        let bytes = try #require(insert["insert_bytes"])
        #expect(width == 100)
        #expect(bytes <= width + 100, "one inserted row wrote \(bytes) bytes")
        #expect(bytes >= 30, "the inserted row's text must be written: \(bytes) bytes")  // "201  Margaret … ok"
        // A fading row redraws only itself: each frame under a row and its colours.
        let fade = try #require(insert["animation_bytes"])
        let frames = try #require(insert["frames"])
        #expect(frames == 3 && fade <= frames * (width + 100))
        for name in ["change", "move", "delete"] {
            let f = try #require(figures[name], "no \(name) line in:\n\(output)")
            #expect((f["\(name)_bytes"] ?? .max) <= 2 * width + 100, "\(name) wrote \(f["\(name)_bytes"] ?? -1) bytes")
        }
        let paint = try #require(figures["full_paint"])
        #expect((paint["full_paint_bytes"] ?? 0) > 10 * bytes)  // the insert is far cheaper than a repaint
    }
}
