// `tabledemo --measure`: what the table really writes to a terminal. ncurses runs with a
// real terminfo entry (xterm-256color) on a pseudo-terminal; the bytes are counted on the
// other side. Each figure is one line, `name=value` pairs, for tests and the benchmark.
import CNcursesw
#if canImport(Glibc)
import Glibc
#endif
import TableUI

struct MeasureError: Error, CustomStringConvertible {
    let description: String
}

/// A pseudo-terminal whose output side is read and counted.
final class PtyCounter {
    let controller: Int32
    let terminal: Int32
    private var markers = 0
    private var pending: [UInt8] = []

    init(rows: Int, columns: Int) throws(MeasureError) {
        var c: Int32 = -1
        var t: Int32 = -1
        guard cn_openpty(&c, &t, UInt16(rows), UInt16(columns)) == 0 else {
            throw MeasureError(description: "cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        controller = c
        terminal = t
        // Raw: bytes pass unchanged (no newline translation), so the count is what ncurses wrote.
        var mode = termios()
        tcgetattr(t, &mode)
        cfmakeraw(&mode)
        tcsetattr(t, TCSANOW, &mode)
    }

    deinit {
        close(controller)
        close(terminal)
    }

    /// The bytes written to the terminal side since the last call (a marker written after
    /// them tells where they end).
    func take() throws(MeasureError) -> [UInt8] {
        markers += 1
        let marker = Array("@@measure-\(markers)@@".utf8)
        _ = marker.withUnsafeBytes { write(terminal, $0.baseAddress, $0.count) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = find(marker, in: pending) {
                let bytes = Array(pending[..<end])
                pending.removeFirst(end + marker.count)
                return bytes
            }
            var fds = [pollfd(fd: controller, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 5000) > 0 else { throw MeasureError(description: "the pseudo-terminal went quiet") }
            let n = read(controller, &buffer, buffer.count)
            guard n > 0 else { throw MeasureError(description: "reading the pseudo-terminal failed") }
            pending += buffer[..<n]
        }
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }
}

/// Prints, for a full table of 40 rows on a 100-column xterm-256color terminal: the bytes
/// of the frame showing one inserted row (with its bound, a row's width + 100), one changed
/// cell, one move and one delete, each with the bytes of its later animation frames; and
/// the bytes of the first full paint.
func measureBytes(verbose: Bool = CommandLine.arguments.contains("--verbose")) throws {
    let lines = 41
    let width = 100
    let pty = try PtyCounter(rows: lines, columns: width)
    unsetenv("LINES")
    unsetenv("COLUMNS")
    let terminal = try Terminal(Terminal.Options(term: "xterm-256color", inputFD: pty.terminal, outputFD: pty.terminal,
                                                 colors: true))
    defer { terminal.restore() }
    let canvas = terminal.canvas
    guard canvas.size == CanvasSize(rows: lines, columns: width) else {
        throw MeasureError(description: "the terminal is \(canvas.size.columns)×\(canvas.size.rows), not \(width)×\(lines)")
    }
    _ = try pty.take()

    let rows = DemoRows(count: 200, seed: 7)
    let table = TableView(dataSource: rows, settings: TableSettings(theme: terminal.theme))
    var clock = 1000.0

    func frame(_ label: String) throws -> Int {
        table.render(into: canvas)
        canvas.flush()
        let bytes = try pty.take()
        if verbose { writeError("\(label): \(bytes.count) bytes: \(visible(bytes))\n") }
        return bytes.count
    }
    /// Runs the animations to their end at their deadlines; the bytes of those frames.
    func animate(_ label: String) throws -> (bytes: Int, frames: Int) {
        var total = 0
        var frames = 0
        while let deadline = table.nextDeadline {
            clock = deadline
            table.tick(now: clock)
            total += try frame("\(label) frame \(frames + 1)")
            frames += 1
        }
        return (total, frames)
    }
    func change(_ name: String, _ batch: TableBatch) throws {
        clock += 10
        try table.performBatchUpdates(batch, now: clock)
        let first = try frame(name)
        let rest = try animate(name)
        let bound = name == "insert" ? " bound=\(width + 100)" : ""
        print("\(name)_bytes=\(first) row_width=\(width)\(bound) animation_bytes=\(rest.bytes) frames=\(rest.frames)")
    }

    let paint = try frame("full paint")
    try change("insert", rows.insert(at: 20))
    try change("change", rows.change(at: 10, by: 5))
    try change("move", rows.move(from: 5, to: 30))
    try change("delete", rows.delete(at: 25))
    print("full_paint_bytes=\(paint) lines=\(lines) row_width=\(width)")
}

/// Bytes with escapes made visible, for `--verbose`.
private func visible(_ bytes: [UInt8]) -> String {
    var out = ""
    for b in bytes {
        switch b {
        case 0x1B: out += "\\e"
        case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(b))
        default: out += "\\x" + String(b, radix: 16)
        }
    }
    return out
}
