// The table widget: bytes written to a real terminal per change (tabledemo --measure, ncurses
// with xterm-256color on a pseudo-terminal), and the time to apply a batch and render a frame.
import Foundation
import TableUI

func runTableBenchmarks(_ report: Report, _ options: BenchOptions) {
    measureTerminalBytes(report, options)
    measureFrameTime(report, options)
}

/// Runs `tabledemo --measure` (built next to this benchmark) and reports its byte counts.
private func measureTerminalBytes(_ report: Report, _ options: BenchOptions) {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    let candidates = [here + "/tabledemo", options.root + "/.build/release/tabledemo"]
    guard let demo = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        printError("tabledemo is not built (swift build -c release --product tabledemo); skipping terminal bytes")
        return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: demo)
    process.arguments = ["--measure"]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch {
        printError("cannot run \(demo): \(error)")
        return
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    for line in output.split(separator: "\n") {
        var fields: [String: Int] = [:]
        var name = ""
        for pair in line.split(separator: " ") {
            let kv = pair.split(separator: "=")
            guard kv.count == 2, let value = Int(kv[1]) else { continue }
            fields[String(kv[0])] = value
            if name.isEmpty { name = String(kv[0]) }
        }
        guard name.hasSuffix("_bytes"), let bytes = fields[name], let width = fields["row_width"] else { continue }
        let what = String(name.dropLast("_bytes".count)).replacingOccurrences(of: "_", with: " ")
        var figure = Figure(name: "terminal bytes: \(what) (40 rows × \(width) columns)", unit: "bytes",
                            synctable: Stats([Double(bytes)]), target: "-")
        if what == "insert" {
            figure.target = "≤ \(width + 100) (a row's width + 100)"
            figure.met = bytes <= width + 100
        }
        if let fade = fields["animation_bytes"], let frames = fields["frames"] {
            figure.note = "then \(fade) bytes over \(frames) animation frames"
        }
        report.add(figure)
    }
}

/// Applying a one-row batch and rendering the frame (into a canvas that only counts, so
/// the figure is the widget's own work).
private func measureFrameTime(_ report: Report, _ options: BenchOptions) {
    let rows = BenchRows(count: options.quick ? 1_000 : 100_000)
    let table = TableView(dataSource: rows, settings: TableSettings(theme: .standard(colors: .extended)))
    let canvas = CountingCanvas(rows: 41, columns: 100)
    table.render(into: canvas)
    var clock = 0.0
    let runs = options.quick ? 20 : 400
    let stats = timeRuns(runs) {
        clock += 10
        rows.insert(at: 20)
        try? table.performBatchUpdates(TableBatch(oldCount: rows.count - 1, inserts: [20]), now: clock)
        table.render(into: canvas)
        rows.delete(at: 20)
        try? table.performBatchUpdates(TableBatch(oldCount: rows.count + 1, deletes: [20]), now: clock + 5)
        table.tick(now: clock + 6)
        table.render(into: canvas)
    }
    let micros = Stats([stats.min, stats.median, stats.max].map { $0 / 2 * 1e6 })  // two frames per run
    report.add(Figure(name: "table frame: one-row batch + render (\(rows.count) rows, 40×100)", unit: "µs",
                      synctable: micros, target: "≤ 1000 µs",
                      met: micros.median <= 1000, note: "insert and delete frames, averaged"))
}

/// A canvas that draws nothing.
private final class CountingCanvas: Canvas {
    let size: CanvasSize
    var calls = 0
    init(rows: Int, columns: Int) { size = CanvasSize(rows: rows, columns: columns) }
    func draw(_ text: String, line: Int, column: Int, style: CellStyle) { calls += 1 }
    func clearToEndOfLine(line: Int, column: Int) { calls += 1 }
    func insertLines(_ count: Int, at line: Int, regionEnd: Int) { calls += 1 }
    func deleteLines(_ count: Int, at line: Int, regionEnd: Int) { calls += 1 }
    func flush() {}
}

/// Rows of five columns, made on demand.
private final class BenchRows: TableDataSource {
    var ids: [Int]
    private var next: Int
    let columns = [TableColumn("#", numeric: true), TableColumn("name", maxWidth: 20), TableColumn("city"),
                   TableColumn("score", numeric: true), TableColumn("note", maxWidth: 40)]

    init(count: Int) {
        ids = Array(0..<count)
        next = count
    }

    var count: Int { ids.count }
    var numberOfRows: Int { ids.count }

    func cells(ofRow row: Int) -> [String] {
        let id = ids[row]
        return [String(id), "name \(id % 977)", ["Paris", "東京", "Zürich"][id % 3], String(id * 7 % 1000), "note for row \(id)"]
    }

    func insert(at index: Int) {
        ids.insert(next, at: index)
        next += 1
    }

    func delete(at index: Int) { ids.remove(at: index) }
}
