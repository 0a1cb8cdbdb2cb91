// The history (issue 39): what 1,000 kept revisions cost in memory, how fast the table on
// screen steps back and forward through them, and that keeping them does not slow the present.
#if canImport(Glibc)
import Glibc
#endif
import FileStore
import Foundation
import JSONTree
import SyncedArray
import TableUI
import ViewerCore
import SeededRandom

/// A viewer of `file`'s `/players` on a memory canvas, its rows on screen.
private final class ScreenedViewer {
    let store: FileStore
    let viewer: Viewer
    let canvas = MemoryCanvas(rows: 40, columns: 160)

    init?(file: String, history: HistoryLimits, pageSize: Int = 200) {
        guard let store = try? FileStore(path: file), (try? store.waitForRevision(1, timeoutMilliseconds: 300_000)) != nil else { return nil }
        self.store = store
        var options = ViewerOptions(file: file, location: Path(keys: ["players"]), pageSize: pageSize, animations: false)
        options.history = history
        viewer = Viewer(options: options, store: store, canvas: canvas)
        let first = PlayersFile.key(0)
        // Over many children the first window comes from the store's worker.
        _ = try? store.run(timeoutMilliseconds: 300_000) { [self] in
            viewer.render()
            return canvas.lines.contains { $0.contains(first) }
        }
    }

    /// Writes the scores into the file in place (6 bytes each, as an editor saving in place) and
    /// waits for the revision that has them all.
    func edit(_ file: inout PlayersFile, _ path: String, _ changes: [(child: Int, score: Int)]) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        for c in changes {
            file.setScore(c.child, c.score)
            let offset = file.scoreOffsets[c.child]
            _ = file.bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + offset, 6, off_t(offset)) }
        }
        close(descriptor)
        let next = (store.currentRevision?.number ?? 0) + 1
        // A burst of pwrites may be read as two revisions: wait for the one with every change.
        guard (try? store.waitForRevision(next, timeoutMilliseconds: 60_000)) != nil else { return false }
        while store.currentRevision!.document.bytes.count != file.bytes.count
            || !lastScoreWritten(file, changes.last!.child) {
            store.waitAndProcessChanges(timeoutMilliseconds: 50)
        }
        viewer.tick()
        viewer.render()
        return true
    }

    /// Whether the current revision has child `i`'s score as the file has it.
    private func lastScoreWritten(_ file: PlayersFile, _ i: Int) -> Bool {
        let offset = file.scoreOffsets[i]
        return store.currentRevision!.document.bytes.withUnsafeBufferPointer { b in
            (0..<6).allSatisfy { b[offset + $0] == file.bytes[offset + $0] }
        }
    }

    /// Milliseconds of each key, handled and drawn.
    func timeKeys(_ key: Key, count: Int) -> [Double] {
        (0..<count).map { _ in
            let t = now()
            viewer.handle(key)
            viewer.render()
            return (now() - t) * 1e3
        }
    }
}

/// A players file of `children` under .build/bench/history.
private func playersFile(_ children: Int, _ options: BenchOptions) -> (path: String, file: PlayersFile)? {
    let folder = options.root + "/.build/bench/history"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/players-\(children).json"
    let file = PlayersFile(children: children)
    guard FileManager.default.createFile(atPath: path, contents: Data(file.bytes)) else { return nil }
    return (path, file)
}

func runHistoryBenchmarks(_ report: Report, _ options: BenchOptions) {
    let revisions = options.quick ? 100 : 1_000
    let bigCount = options.quick ? 20_000 : 1_000_000
    let label = bigCount == 1_000_000 ? "1,000,000" : String(bigCount)

    // One-value edits of the large file: each revision sets one score of a row on screen (the
    // first page, by key); the selected first row is edited once, first, so `{` jumps back
    // across every revision kept.
    if let made = playersFile(bigCount, options) {
        let path = made.path
        var file = made.file
        defer { try? FileManager.default.removeItem(atPath: path) }
        if let screened = ScreenedViewer(file: path, history: HistoryLimits()) {
            var ok = true
            for r in 0..<revisions where ok {
                ok = screened.edit(&file, path, [(r == 0 ? 0 : 1 + r % 150, 900_000 + r)])
            }
            let history = screened.viewer.history
            let kept = history?.records.count ?? 0
            let bytes = Double(history?.byteCount ?? 0) / 1_048_576
            report.add(Figure(
                name: "history memory, \(kept) one-value revisions of \(label) children", unit: "MB",
                synctable: Stats([bytes]), target: "≤ 2 MB", met: ok && kept == revisions && bytes <= 2,
                note: "as the history counts its records (keys, indexes, changed fields' bytes, batches)"))
            let back = screened.timeKeys(.character("["), count: 50)
            let forward = screened.timeKeys(.character("]"), count: 50)
            screened.viewer.handle(.character("P"))
            screened.viewer.render()
            report.add(Figure(
                name: "history step back, \(label) children: to the table on screen", unit: "ms",
                synctable: Stats(back), target: "≤ 5 ms", met: Stats(back).median <= 5,
                note: "[ handled and the frame drawn (memory canvas, 160×40)"))
            report.add(Figure(
                name: "history step forward, \(label) children: to the table on screen", unit: "ms",
                synctable: Stats(forward), target: "≤ 5 ms", met: Stats(forward).median <= 5))
            var jumps = [Double]()
            for _ in 0..<5 {
                screened.viewer.handle(.character("g"))
                jumps += screened.timeKeys(.character("{"), count: 1)
                screened.viewer.handle(.character("P"))
                screened.viewer.render()
            }
            report.add(Figure(
                name: "history jump \(kept - 1) revisions back, \(label) children: to the table on screen", unit: "ms",
                synctable: Stats(jumps), target: "≤ 50 ms", met: Stats(jumps).median <= 50,
                note: "{ on the first row, changed only in the oldest revision kept"))
            screened.viewer.stop()
        }
    }

    // Churn: 10% of a 10,000-child file's scores change in every revision.
    if let made = playersFile(10_000, options) {
        let path = made.path
        var file = made.file
        defer { try? FileManager.default.removeItem(atPath: path) }
        if let screened = ScreenedViewer(file: path, history: HistoryLimits()) {
            var random = SplitMix64(seed: 39)
            var ok = true
            for r in 0..<revisions where ok {
                let changes = (0..<1_000).map { _ in (child: random.next(10_000), score: 900_000 + r) }
                ok = screened.edit(&file, path, changes)
            }
            let history = screened.viewer.history
            let kept = history?.records.count ?? 0
            let bytes = Double(history?.byteCount ?? 0) / 1_048_576
            report.add(Figure(
                name: "history memory, \(kept) revisions of 10% churn, 10,000 children", unit: "MB",
                synctable: Stats([bytes]), target: "within the 64 MiB budget", met: ok && bytes <= 64,
                note: "the rows shown (200 of a page) change by about 20 a revision"))
            let back = screened.timeKeys(.character("["), count: 100)
            let forward = screened.timeKeys(.character("]"), count: 100)
            report.add(Figure(
                name: "history step, 10% churn, 10,000 children: to the table on screen", unit: "ms",
                synctable: Stats(back + forward), target: "≤ 5 ms", met: Stats(back + forward).median <= 5,
                note: "100 steps back, 100 forward"))
            screened.viewer.stop()
        }
    }

    // The present with and without the history: the same edits, the same viewer binary.
    // Interleaved, half the edits a run, so a change in the machine's load falls on both alike.
    let edits = options.quick ? 20 : 300
    var without = [Double](), with = [Double]()
    for _ in 0..<2 {
        without += editToScreenLatencies(options, extraArguments: ["--history", "0"], edits: edits / 2)
        with += editToScreenLatencies(options, extraArguments: [], edits: edits / 2)
    }
    if !with.isEmpty && !without.isEmpty {
        let o = percentile(with, 0.5) * 1e3, p = percentile(without, 0.5) * 1e3
        report.add(Figure(
            name: "edit-to-screen p50 with history (1,000 kept), 10,000 children", unit: "ms", synctable: Stats([o]),
            peers: [(name: "the same without history (--history 0)", stats: Stats([p]), note: nil)],
            target: "within 10% of without", met: o <= p * 1.1, ratio: p / o,
            note: "\(with.count) and \(without.count) of \(edits) edits seen"))
    }
}

/// A sort change keeps the history: the rows were every child (one page holds them all), so
/// each step back past the change evaluates the new order on the rows as they were then.
func runHistoryAcrossSortBenchmark(_ report: Report, _ options: BenchOptions) {
    let children = 1_000, revisions = 100
    guard let made = playersFile(children, options) else { return }
    let path = made.path
    var file = made.file
    defer { try? FileManager.default.removeItem(atPath: path) }
    guard let screened = ScreenedViewer(file: path, history: HistoryLimits(), pageSize: children) else { return }
    var ok = true
    for r in 0..<revisions where ok { ok = screened.edit(&file, path, [(r * 7 % children, 900_000 + r)]) }
    // The column cursor to score (key, name, score), then `s`; the new order's rows arrive from the store.
    _ = screened.timeKeys(.tab, count: 2)
    _ = screened.timeKeys(.character("s"), count: 1)
    ok = ok && (try? screened.store.run(timeoutMilliseconds: 60_000) { [screened] in
        screened.viewer.render()
        return screened.canvas.lines.contains { $0.contains("by score") } && screened.viewer.history?.segments.count == 2
    }) != nil
    let reach = screened.viewer.history.map { $0.lastSequence - $0.reachSequence } ?? 0
    let back = screened.timeKeys(.character("["), count: revisions)
    report.add(Figure(
        name: "history step back across a sort change, 1,000 children: to the table on screen", unit: "ms",
        synctable: Stats(back), target: "≤ 5 ms", met: ok && reach == revisions && Stats(back).median <= 5,
        note: "\(reach) of \(revisions) revisions made before the sort shown under it, each step re-sorting the rows as they were"))
    screened.viewer.stop()
}
