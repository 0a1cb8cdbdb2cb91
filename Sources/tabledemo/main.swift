// tabledemo: the table widget alone, on rows that change on a timer.
//
//   tabledemo [--rows N] [--interval SECONDS] [--seed N] [--no-animations] [--slow-motion FACTOR]
//   tabledemo --measure     bytes written to a real terminal (a pty) per change, one line each
//
// Keys: j/k or ↓/↑ move, PgUp/PgDn, g/G first/last, h/l or ←/→ columns, i insert at the
// top, d delete the selected row, c change its score, m move it to the top, p pause the
// timer, a toggle animations, q quit.
#if canImport(Glibc)
import Glibc
#endif
import TableUI

struct DemoOptions {
    var rows = 60
    var interval = 1.0
    var seed: UInt64 = 1
    var animations = true
    /// Animations last this many times longer (a test reads a frame without racing it).
    var slowMotion = 1.0
    var measure = false

    static func parse(_ args: [String]) -> DemoOptions {
        var o = DemoOptions()
        var i = 1
        func value(_ flag: String) -> String {
            guard i + 1 < args.count else { fail("\(flag) needs a value") }
            i += 1
            return args[i]
        }
        while i < args.count {
            let flag = args[i]
            switch flag {
            case "--rows":
                guard let n = Int(value(flag)), n >= 0 else { fail("--rows takes a number of rows (0 or more)") }
                o.rows = n
            case "--interval":
                guard let s = Double(value(flag)), s >= 0 else { fail("--interval takes seconds (0 turns the timer off)") }
                o.interval = s
            case "--seed":
                guard let n = UInt64(value(flag)) else { fail("--seed takes a non-negative integer") }
                o.seed = n
            case "--no-animations": o.animations = false
            case "--slow-motion":
                guard let f = Double(value(flag)), f >= 1 else { fail("--slow-motion takes a factor of 1 or more") }
                o.slowMotion = f
            case "--measure": o.measure = true
            case "--verbose": break  // read by --measure
            case "-h", "--help":
                print("usage: tabledemo [--rows N] [--interval SECONDS] [--seed N] [--no-animations] [--slow-motion FACTOR] | --measure")
                exit(0)
            default: fail("unknown option '\(flag)' (see --help)")
            }
            i += 1
        }
        return o
    }
}

/// Writes to standard error (unbuffered, so it shows even when the terminal is restored later).
func writeError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    writeError("tabledemo: \(message)\n")
    exit(2)
}

/// The demo's screen: the table above a status line.
func runDemo(_ options: DemoOptions) throws(TerminalError) {
    // The program's own choice, process-wide: a signal that ends it puts the terminal back.
    Terminal.restoreOnFatalSignals()
    let terminal = try Terminal()
    defer { terminal.restore() }
    let rows = DemoRows(count: options.rows, seed: options.seed)
    var settings = TableSettings(theme: terminal.theme)
    settings.animationsEnabled = options.animations
    settings.insertDuration *= options.slowMotion
    settings.deleteDuration *= options.slowMotion
    settings.reloadDuration *= options.slowMotion
    settings.moveDuration *= options.slowMotion
    let table = TableView(dataSource: rows, settings: settings)
    let canvas = terminal.canvas
    var paused = options.interval == 0
    var nextChange = TableClock.now() + options.interval
    var message = ""

    func apply(_ batch: TableBatch) {
        do {
            try table.performBatchUpdates(batch)
        } catch {
            message = "batch rejected: \(error)"
        }
    }

    var running = true
    while running {
        let size = canvas.size
        let statusLine = size.rows >= 4 ? size.rows - 1 : nil
        table.render(into: canvas, lines: 0..<(statusLine ?? size.rows))
        if let statusLine {
            let selected = table.state.selection.map { "row \($0 + 1)/\(table.rowCount) #\(rows.cells(ofRow: $0)[0])" }
                ?? "row 0/\(table.rowCount)"
            let text = message.isEmpty
                ? "\(selected)\(paused ? " (paused)" : "") · i insert · d delete · c change · m move · p pause · q quit"
                : message
            canvas.draw(fit(sanitize(text), width: size.columns), line: statusLine, column: 0, style: CellStyle(.dim))
        }
        canvas.flush()

        let now = TableClock.now()
        let deadlines = [table.nextDeadline, paused ? nil : nextChange].compactMap { $0 }
        // At most a second: a resize signal landing just before poll is then seen soon.
        let wait = min(1.0, max(0, (deadlines.min() ?? now + 1) - now))
        var fds = [pollfd(fd: terminal.inputFD, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, Int32((wait * 1000).rounded(.up)))

        while running, let key = terminal.readKey() {
            message = ""
            if table.handle(key) { continue }
            let selection = table.state.selection ?? 0
            switch key {
            case .character("q"), .character("Q"): running = false
            case .character("j"): table.moveSelection(by: 1)
            case .character("k"): table.moveSelection(by: -1)
            case .character("g"): table.selectFirst()
            case .character("G"): table.selectLast()
            case .character("h"): table.scrollColumns(by: -1)
            case .character("l"): table.scrollColumns(by: 1)
            case .character("i"): apply(rows.insert(at: 0))
            case .character("d"): apply(rows.delete(at: selection))
            case .character("c"): apply(rows.change(at: selection, by: 7))
            case .character("m"): apply(rows.move(from: selection, to: 0))
            case .character("p"):
                paused.toggle()
                nextChange = TableClock.now() + options.interval
            case .character("a"):
                table.finishAnimations()
                table.settings.animationsEnabled.toggle()
            case .character("\u{0C}"):  // Ctrl-L: clear the screen and draw it all again
                terminal.repaintFully()
                table.invalidate()
            default: break
            }
        }
        let later = TableClock.now()
        if !paused && options.interval > 0 && later >= nextChange {
            apply(rows.randomBatch())
            nextChange = later + options.interval
        }
        table.tick(now: later)
    }
}

let options = DemoOptions.parse(CommandLine.arguments)
do {
    if options.measure {
        try measureBytes()
    } else {
        try runDemo(options)
    }
} catch {
    writeError("tabledemo: \(error)\n")
    exit(1)
}
