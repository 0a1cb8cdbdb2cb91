// Charts in the viewer (issue 51): how soon a chart of a million values is on screen after its
// key, what a one-row change costs on screen (time and bytes drawn, beside a full redraw), and a
// time series over 10,000 kept revisions.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Foundation
import JSONTree
import StoreInterface
import SyncedArray
import TableUI
import ViewerCore

/// A viewer of a players file's `/players` (score, meta/views, team) on a memory canvas.
private final class ChartedViewer {
    let store: FileStore
    let viewer: Viewer
    let canvas = MemoryCanvas(rows: 40, columns: 160)

    init?(file: String) {
        guard let store = try? FileStore(path: file), (try? store.waitForRevision(1, timeoutMilliseconds: 300_000)) != nil else { return nil }
        self.store = store
        var options = ViewerOptions(file: file, location: Path(keys: ["players"]), columns: [Path(keys: ["score"]), Path(keys: ["meta", "views"]),
                                    Path(keys: ["team"])], animations: false)
        options.history = HistoryLimits(revisions: 10)
        viewer = Viewer(options: options, store: store, canvas: canvas)
        let first = PlayersFile.key(0)
        _ = try? store.run(timeoutMilliseconds: 300_000) { [self] in
            viewer.render()
            return canvas.lines.contains { $0.contains(first) }
        }
        viewer.handle(.right)  // the cursor on score
        viewer.render()
    }

    /// Seconds from `key` to the chart drawn — wall, this thread's CPU, and its wait for a core
    /// — for `runs` openings (each closed with q).
    func timeOpening(runs: Int, before: [Key] = [], key: Key, title: String) -> [Spent] {
        (0..<runs).compactMap { _ in
            for k in before { viewer.handle(k) }
            let start = Spent.sample()
            viewer.handle(key)
            viewer.render()
            let seconds = Spent.sample() - start
            let shown = canvas.lines.contains { $0.contains(title) }
            viewer.handle(.character("q"))
            viewer.render()
            return shown ? seconds : nil
        }
    }

    /// Writes child `i`'s score in place and waits until the viewer has the revision; returns
    /// the milliseconds from the write to the frame drawn, from the revision's publication (the
    /// store's read done) to the frame, the loop thread's work from the publication on (the
    /// change delivered to every observer, then the frame: wall, CPU and wait for a core), and
    /// the bytes drawn in the chart's lines.
    func edit(_ file: inout PlayersFile, _ path: String, child i: Int, score: Int) -> Edit? {
        canvas.clearOperations()
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        file.setScore(i, score)
        let offset = file.scoreOffsets[i]
        let t = now()
        _ = file.bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + offset, 6, off_t(offset)) }
        close(descriptor)
        let next = (store.currentRevision?.number ?? 0) + 1
        let waiting = Spent.sample()
        guard let revision = try? store.waitForRevision(next, timeoutMilliseconds: 60_000) else { return nil }
        let delivered = Spent.sample()
        // The selection's change comes with the revision (or, while its first window is being
        // evaluated, from the store's worker): until the plot changes on screen, or 2 s.
        var bytes = 0
        while true {
            viewer.tick()
            viewer.render()
            bytes = chartBytes()
            if bytes > 0 || now() - t > 2 { break }
            store.waitAndProcessChanges(timeoutMilliseconds: 5)
        }
        let frame = Spent.sample()
        let published = Double(revision.publishedAt) / 1e9
        return Edit(ms: (frame.wall - t) * 1e3, viewerMs: (frame.wall - published) * 1e3, bytes: bytes,
                    deliver: Spent(wall: delivered.wall - published, cpu: delivered.cpu - waiting.cpu, queued: delivered.queued - waiting.queued),
                    frame: frame - delivered)
    }

    /// The bytes drawn in the chart's lines (above the status bar) since the operations were
    /// cleared, plus 8 a draw for the cursor move.
    func chartBytes() -> Int {
        canvas.operations.reduce(0) { n, op in
            if case .draw(let line, _, let text) = op, line < canvas.size.rows - 2 { return n + text.utf8.count + 8 }
            return n
        }
    }
}

/// Where a thread's time went: wall, its CPU, and its wait for a core (seconds).
private struct Spent {
    var wall: Double
    var cpu: Double
    var queued: Double

    static func sample() -> Spent { Spent(wall: now(), cpu: threadCPU(), queued: threadRunDelay() ?? 0) }
    static func - (a: Spent, b: Spent) -> Spent { Spent(wall: a.wall - b.wall, cpu: a.cpu - b.cpu, queued: a.queued - b.queued) }
}

/// One edit's times: write → frame, publication → frame (ms); the publication's delivery to the
/// observers and the frame after it; the chart's bytes.
private struct Edit {
    var ms: Double
    var viewerMs: Double
    var bytes: Int
    var deliver: Spent
    var frame: Spent
}

/// Children whose points sit alone in the scatter (their views far above the rest), so that a
/// changed score always moves a visible dot: among a million points most dots hold several, and
/// a point leaving one of them changes nothing on screen.
private let loneChildren = 1...8

func runChartBenchmarks(_ report: Report, _ options: BenchOptions) {
    let count = options.quick ? 20_000 : 1_000_000
    let label = count == 1_000_000 ? "1,000,000" : String(count)
    let folder = options.root + "/.build/bench/charts"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/players-\(count).json"
    var file = PlayersFile(children: count) { loneChildren.contains($0) ? 20_000_000 + $0 * 300_000 : nil }
    guard FileManager.default.createFile(atPath: path, contents: Data(file.bytes)), let charted = ChartedViewer(file: path) else {
        printError("charts: the players file could not be written or read")
        return
    }
    defer { try? FileManager.default.removeItem(atPath: path) }
    let histogram = charted.timeOpening(runs: 5, key: .character("#"), title: "score histogram")
    report.add(openingFigure("histogram of \(label) values, after #", histogram, target: 0.2,
                             note: "# handled and the chart drawn (memory canvas, 160×40)"))
    let answer: [Key] = [.character(".")] + "meta/views".map { Key.character($0) }
    let scatter = charted.timeOpening(runs: 5, before: answer, key: .enter, title: "meta/views against score")
    report.add(openingFigure("scatter of \(label) points, after the column is picked", scatter, target: 0.3,
                             note: "Enter at the prompt of . handled and the chart drawn"))

    // Live: 200 one-row edits with the scatter on screen, then with the table, as the peer.
    for k in answer + [.enter] { charted.viewer.handle(k) }
    charted.viewer.render()
    let edits = options.quick ? 40 : 200
    var chartEdits: [Edit] = []
    for e in 0..<edits {
        let child = loneChildren.lowerBound + e % loneChildren.count
        if let r = charted.edit(&file, path, child: child, score: 100_000 + (e * 7919) % 800_000) { chartEdits.append(r) }
    }
    charted.canvas.clearOperations()
    charted.viewer.handle(.character("\u{0C}"))  // a full redraw of the chart, for the bytes beside
    charted.viewer.render()
    let full = charted.chartBytes()
    charted.viewer.handle(.character("q"))
    charted.viewer.render()
    var tableEdits: [Edit] = []
    for e in 0..<edits {
        // Rows on screen (by key, the first 30): each edit changes a line of the table.
        if let r = charted.edit(&file, path, child: 1 + e % 30, score: 100_000 + (e * 104_729) % 800_000) { tableEdits.append(r) }
    }
    addLiveFigures(report, label: label, chartEdits, tableEdits, expected: edits)
    let bytes = Stats(chartEdits.map { Double($0.bytes) })
    report.add(Figure(name: "scatter: bytes drawn for one moved point", unit: "bytes", synctable: bytes,
                      peers: [("a full redraw of the chart", Stats([Double(full)]), nil)],
                      target: "≤ 200 bytes", met: bytes.median > 0 && bytes.median <= 200,
                      note: "memory canvas: the text drawn in the chart's lines, plus 8 bytes a draw for the cursor move (0: the plot did not change within 2 s)"))
    charted.viewer.stop()
    runSeriesBenchmark(report, options)
}

/// A chart's opening: wall time against the target, with the thread's CPU and its wait for a
/// core beside it (on a loaded machine the wall is mostly that wait).
private func openingFigure(_ name: String, _ runs: [Spent], target seconds: Double, note: String) -> Figure {
    let ms = { (f: (Spent) -> Double) in Stats(runs.map { f($0) * 1e3 }) }
    return Figure(name: name, unit: "ms", synctable: ms { $0.wall },
                  peers: [("its thread's CPU time", ms { $0.cpu }, nil), ("its wait for a core", ms { $0.queued }, nil)],
                  target: "≤ \(Int(seconds * 1e3)) ms", met: runs.count == 5 && Stats(runs.map(\.wall)).median <= seconds,
                  note: "\(note); wall − CPU − wait for a core is any other wait (none expected: no sleep or poll on this path); load average \(loadAverage())")
}

/// The live figures: publication → frame with the chart and with the table on screen, and the
/// loop thread's CPU split into the change's delivery (the file's path: the synced array, and
/// the chart's own move) and the frame (the chart's draw).
private func addLiveFigures(_ report: Report, label: String, _ chart: [Edit], _ table: [Edit], expected: Int) {
    let ms = { (edits: [Edit], f: (Edit) -> Double) in Stats(edits.map(f)) }
    let viewerMs = ms(chart) { $0.viewerMs }
    report.add(Figure(name: "scatter of \(label) points: one row's value changed → chart on screen", unit: "ms", synctable: viewerMs,
                      peers: [("the table on screen instead", ms(table) { $0.viewerMs }, nil),
                              ("the loop thread's wait for a core from the write on", ms(chart) { ($0.deliver.queued + $0.frame.queued) * 1e3 }, nil)],
                      target: "≤ 5 ms", met: chart.count == expected && viewerMs.median <= 5,
                      note: "from the revision's publication (the store's read of the file done) to the frame drawn, p50 over \(chart.count) edits; load average \(loadAverage())"))
    let chartCPU = ms(chart) { ($0.deliver.cpu + $0.frame.cpu) * 1e3 }
    let slowest = chart.indices.max { chart[$0].deliver.cpu + chart[$0].frame.cpu < chart[$1].deliver.cpu + chart[$1].frame.cpu } ?? 0
    report.add(Figure(name: "scatter of \(label) points: one row changed, the loop thread's CPU", unit: "ms", synctable: chartCPU,
                      peers: [("the table on screen instead", ms(table) { ($0.deliver.cpu + $0.frame.cpu) * 1e3 }, nil),
                              ("the chart's frame alone", ms(chart) { $0.frame.cpu * 1e3 }, nil),
                              ("the table's frame alone", ms(table) { $0.frame.cpu * 1e3 }, nil)],
                      target: "≤ 5 ms", met: chart.count == expected && chartCPU.median <= 5,
                      note: "the revision delivered to every observer (the table's synced array under the chart, the chart's own move) and the frame; the chart's share is its frame plus what its delivery adds to the table's; the chart's slowest: edit \(slowest + 1) of \(chart.count)"))
    report.add(Figure(name: "scatter of \(label) points: one row's value written → chart on screen", unit: "ms", synctable: ms(chart) { $0.ms },
                      peers: [("the table on screen instead", ms(table) { $0.ms }, nil)],
                      target: "none (the store's read of the whole file is its floor)", met: nil,
                      note: "pwrite of one score to the frame drawn; this bench runs the engine plain (synctable itself runs it tuned)"))
}

/// `@` on a row changed in each of 10,000 kept revisions.
private func runSeriesBenchmark(_ report: Report, _ options: BenchOptions) {
    let revisions = options.quick ? 1_000 : 10_000
    func document(_ r: Int) -> JSON {
        var members: [(key: String, value: JSON)] = []
        for i in 0..<100 { members.append(("p\(i)", ["score": .number(JSONNumber(i == 0 ? (r * 37) % 1000 : i))])) }
        return ["players": .object(JSONObject(members))]
    }
    guard let store = try? MemoryStore(document(0)) else { return }
    let canvas = MemoryCanvas(rows: 40, columns: 160)
    var options = ViewerOptions(file: "memory", location: Path(keys: ["players"]), animations: false)
    options.history = HistoryLimits(revisions: revisions)
    let viewer = Viewer(options: options, store: store, canvas: canvas)
    for r in 1...revisions {
        store.publish(document(r))
        store.waitAndProcessChanges(timeoutMilliseconds: 1_000)
    }
    viewer.tick()
    viewer.render()
    viewer.handle(.right)
    var samples: [Double] = [], cpu: [Double] = []
    for _ in 0..<5 {
        let (t, c) = (now(), threadCPU())
        viewer.handle(.character("@"))
        viewer.render()
        samples.append((now() - t) * 1e3)
        cpu.append((threadCPU() - c) * 1e3)
        viewer.handle(.character("q"))
        viewer.render()
    }
    let kept = viewer.history?.records.count ?? 0
    report.add(Figure(name: "time series over \(kept) kept revisions, after @", unit: "ms", synctable: Stats(samples),
                      peers: [("its thread's CPU time", Stats(cpu), nil)],
                      target: "≤ 50 ms", met: kept >= revisions - 1 && Stats(samples).median <= 50,
                      note: "the selected row changed in every revision; @ handled and the chart drawn; load average \(loadAverage())"))
    viewer.stop()
}
