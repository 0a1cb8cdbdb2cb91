// Issue 50's figures: a command watched (CPU per run against a bare parse, run end → screen
// against a file rewritten and followed), a keyed stream folded (against jq's reduce), and a
// journal (its size on disk, and replay stepping back through it).
#if canImport(Glibc)
import Glibc
#endif
import CommandStore
import FileStore
import Foundation
import JSONTree
import Journal
import StoreInterface
import TableUI
import ViewerCore
import SeededRandom

func runSourcesBenchmarks(_ report: Report, _ options: BenchOptions) {
    let folder = options.root + "/.build/bench/sources"
    _ = try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    watchFigures(report, options, folder: folder)
    journalFigures(report, options, folder: folder)
    // The keyed stream is the synctable binary's (a whole command, its peak memory read by wait4).
    if let (binary, _) = releaseBinaryAndFolder(options, "sources") { keyedFigures(report, options, binary: binary, folder: folder) }
}

/// A table of `rows` rows, one a line (`{"r00042":{"name":"host-42","status":"up","n":123456},…}`),
/// of which `churn()` changes 1% of the `n`s.
private struct ChurnTable {
    var values: [Int]
    var random = SplitMix64(seed: 50)

    init(rows: Int) { values = (0..<rows).map { 100_000 + ($0 * 7_919) % 800_000 } }

    static func key(_ i: Int) -> String { "r" + String(100_000 + i).dropFirst() }

    var bytes: [UInt8] {
        var out = [UInt8]("{\n".utf8)
        for (i, n) in values.enumerated() {
            out += #"  "\#(ChurnTable.key(i))": {"name": "host-\#(i)", "status": "up", "n": \#(n)}"#.utf8
            out += (i + 1 < values.count ? ",\n" : "\n").utf8
        }
        out += "}\n".utf8
        return out
    }

    mutating func churn() {
        for _ in 0..<max(1, values.count / 100) { values[random.next(values.count)] = 100_000 + random.next(800_000) }
    }
}

/// CPU seconds of this process (every thread) or of the calling thread.
private func cpuSeconds(thread: Bool = false) -> Double {
    var usage = rusage()
    // RUSAGE_THREAD (1) is Linux's; Glibc's Swift overlay leaves it out.
    getrusage(thread ? __rusage_who_t(1) : __rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// The calling thread's CPU time in milliseconds, to the nanosecond (getrusage counts in ticks).
private func threadCPUMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

/// Replaces the file at `path` by renaming a new one over it, as `mv f.tmp f.json` does.
private func replaceFile(_ path: String, _ bytes: [UInt8]) {
    let temporary = path + ".tmp"
    _ = FileManager.default.createFile(atPath: temporary, contents: Data(bytes))
    rename(temporary, path)
}

private func watchFigures(_ report: Report, _ options: BenchOptions, folder: String) {
    let runs = options.quick ? 10 : 100
    let path = folder + "/watched.json"
    var table = ChurnTable(rows: 10_000)
    let output = table.bytes
    replaceFile(path, output)
    let parse = timeRuns(options.quick ? 3 : 15) { _ = try? JSONDocument(parsing: output) }
    guard let store = try? CommandStore(command: ["/bin/cat", path], options: CommandStore.Options(everyMilliseconds: 20)) else { return }
    let canvas = MemoryCanvas(rows: 40, columns: 160)
    let viewer = Viewer(options: ViewerOptions(file: "cat", pageSize: 200, animations: false), store: store, canvas: canvas)
    var latencies = [Double](), writing = 0.0
    let cpuBefore = cpuSeconds()
    for run in 1...runs {
        while (store.currentRevision?.number ?? 0) < run { store.waitAndProcessChanges(timeoutMilliseconds: 1_000) }
        viewer.tick()
        viewer.render()
        if let last = store.status.lastRun {
            latencies.append((wallClockSeconds() - last.startTime - Double(last.milliseconds) / 1e3) * 1e3)
        }
        // The next output, written by this thread: its CPU is not the watch's.
        let t = cpuSeconds(thread: true)
        table.churn()
        replaceFile(path, table.bytes)
        writing += cpuSeconds(thread: true) - t
    }
    let perRun = (cpuSeconds() - cpuBefore - writing) / Double(runs) * 1e3
    viewer.stop()
    store.stop()
    let parseMs = parse.median * 1e3
    report.add(Figure(
        name: "watch CPU per run, 10,000 rows, 1% changing", unit: "ms", synctable: Stats([perRun]),
        peers: [(name: "bare parse of the same output", stats: Stats([parseMs]), note: nil)],
        target: "≤ 1.5× a bare parse", met: perRun <= 1.5 * parseMs, ratio: parseMs / perRun,
        note: "\(runs) runs of cat, this process's CPU (reading, parsing, comparing, the table on a memory canvas) less the writer's"))
    let fileLatencies = fileFollowLatencies(runs: runs, folder: folder)
    let p50 = percentile(latencies, 0.5), fileP50 = fileLatencies.isEmpty ? Double.nan : percentile(fileLatencies, 0.5)
    report.add(Figure(
        name: "watch run end → screen p50, 10,000 rows, 1% changing", unit: "ms", synctable: Stats([p50]),
        peers: [(name: "the file viewer following a rewritten file (mv f.tmp f.json)", stats: fileLatencies.isEmpty ? nil : Stats([fileP50]), note: nil)],
        target: "≤ 10 ms", met: p50 <= 10, ratio: fileLatencies.isEmpty ? nil : fileP50 / p50,
        note: "run end is the run's start plus its duration, to the millisecond; viddy and watch not measured"))
}

/// Rename → screen latencies of the file viewer following a file rewritten with the same churn.
private func fileFollowLatencies(runs: Int, folder: String) -> [Double] {
    let path = folder + "/followed.json"
    var table = ChurnTable(rows: 10_000)
    replaceFile(path, table.bytes)
    guard let store = try? FileStore(path: path), (try? store.waitForRevision(1, timeoutMilliseconds: 60_000)) != nil else { return [] }
    let canvas = MemoryCanvas(rows: 40, columns: 160)
    let viewer = Viewer(options: ViewerOptions(file: path, pageSize: 200, animations: false), store: store, canvas: canvas)
    viewer.render()
    var latencies = [Double]()
    for _ in 0..<runs {
        table.churn()
        let bytes = table.bytes
        let next = (store.currentRevision?.number ?? 0) + 1
        let t = now()
        replaceFile(path, bytes)
        guard (try? store.waitForRevision(next, timeoutMilliseconds: 10_000)) != nil else { break }
        viewer.tick()
        viewer.render()
        latencies.append((now() - t) * 1e3)
    }
    viewer.stop()
    return latencies
}

private func keyedFigures(_ report: Report, _ options: BenchOptions, binary: String, folder: String) {
    let records = options.quick ? 20_000 : 1_000_000, keys = options.quick ? 200 : 10_000
    let log = folder + "/keyed-\(records).jsonl"
    if access(log, F_OK) != 0 {
        var random = SplitMix64(seed: 51)
        var text = [UInt8]()
        for i in 0..<records {
            text += #"{"k":"k\#(random.next(keys))","type":"MODIFIED","seq":\#(i),"v":\#(random.next(1_000_000))}"#.utf8
            text.append(UInt8(ascii: "\n"))
        }
        _ = FileManager.default.createFile(atPath: log, contents: Data(text))
    }
    let tiny = folder + "/keyed-tiny.jsonl"
    _ = FileManager.default.createFile(atPath: tiny, contents: Data(#"{"k":"a"}"#.utf8 + [10]))
    var ours = [Double](), peaks = [Int]()
    for _ in 0..<(options.quick ? 1 : 3) {
        guard let run = peakOfCommand([binary, "list", log, "--key", ".k", "--count"]) else { break }
        ours.append(Double(records) / run.seconds)
        peaks.append(run.bytes)
    }
    var theirs = [Double]()
    let jq = "/usr/bin/jq"
    for _ in 0..<(options.quick ? 1 : 3) where access(jq, X_OK) == 0 {
        guard let run = peakOfCommand([jq, "-c", "-n", "reduce inputs as $r ({}; .[$r.k] = $r)", log]) else { break }
        theirs.append(Double(records) / run.seconds)
    }
    let ourStats = ours.isEmpty ? nil : Stats(ours)
    report.add(Figure(
        name: "keyed stream, \(records) records over \(keys) keys folded", unit: "records/s", synctable: ourStats,
        peers: [(name: "jq reduce", stats: theirs.isEmpty ? nil : Stats(theirs), note: access(jq, X_OK) == 0 ? nil : "not installed")],
        target: "≥ 500,000 records/s", met: ourStats.map { $0.median >= 500_000 },
        ratio: ourStats.flatMap { o in theirs.isEmpty ? nil : o.median / Stats(theirs).median },
        note: "synctable list LOG --key .k --count: the whole log read, parsed and folded"))
    // The table's JSON, as jq prints it, against what the fold held beyond a tiny log's run.
    let table = runCommand(jq, ["-c", "-n", "reduce inputs as $r ({}; .[$r.k] = $r)", log]).output.count
    if let base = peakOfCommand([binary, "list", tiny, "--key", ".k", "--count"]), let peak = peaks.min(), table > 0 {
        let multiple = Double(peak - base.bytes) / Double(table)
        report.add(Figure(
            name: "keyed stream memory, \(records) records over \(keys) keys", unit: "× the table's JSON", synctable: Stats([multiple]),
            target: "≤ 2× the final table's JSON", met: multiple <= 2,
            note: "peak resident of list less a one-record run's (\(base.bytes / 1_048_576) MB), over \(table / 1024) KB of table: the log read 64 KB at a time, each line folded as it is parsed, each key's latest record held as its bytes"))
    }
}

private func journalFigures(_ report: Report, _ options: BenchOptions, folder: String) {
    let revisions = options.quick ? 100 : 1_000
    let path = folder + "/table.journal"
    unlink(path)
    unlink(path + ".1")
    var table = ChurnTable(rows: 10_000)
    guard let writer = try? JournalWriter(path: path) else { return }
    var appends = [Double]()
    for n in 0...revisions {
        if n > 0 { table.churn() }
        guard let document = try? JSONDocument(parsing: table.bytes) else { return }
        let t = now()
        guard (try? writer.append(document, time: 1_764_900_000 + Double(n) * 60, writer: "other process")) != nil else { return }
        appends.append((now() - t) * 1e3)
    }
    let megabytes = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1_000_000
    report.add(Figure(
        name: "journal on disk, \(revisions) revisions of 10,000 rows, 1% churn", unit: "MB", synctable: Stats([megabytes]),
        target: "≤ 3 MB", met: megabytes <= 3,
        note: "rows {\"name\",\"status\",\"n\"}, 100 n changed a revision; appending one: \(Report.format(Stats(appends), "ms"))"))
    let start = now()
    guard let store = try? JournalStore(path: path) else { return }
    let canvas = MemoryCanvas(rows: 40, columns: 160)
    let viewer = Viewer(options: ViewerOptions(file: path, pageSize: 200, animations: false), store: store, canvas: canvas)
    store.processPendingChanges()
    viewer.tick()
    viewer.render()
    let open = (now() - start) * 1e3
    report.add(Figure(
        name: "replay open, \(revisions) revisions of 10,000 rows: last revision on screen", unit: "ms", synctable: Stats([open]),
        target: "about a second", met: open <= 1_000,
        note: "the last revision alone published; the time machine reads the earlier ones from the journal as it steps"))
    // Every step back makes one earlier revision's record from the journal (none is made at open).
    // Wall time and this thread's CPU time: on a loaded machine a step's wall time includes the
    // time the thread waited for a core.
    var steps = [Double](), cpu = [Double]()
    for _ in 0..<revisions {
        let t = now(), c = threadCPUMilliseconds()
        viewer.handle(.character("["))
        viewer.render()
        steps.append((now() - t) * 1e3)
        cpu.append(threadCPUMilliseconds() - c)
    }
    let reached = viewer.history?.records.count ?? 0
    let stepStats = Stats(steps)
    report.add(Figure(
        name: "replay step back \(revisions) times from the last revision, each to the table on screen", unit: "ms", synctable: stepStats,
        target: "≤ 5 ms each", met: reached == revisions && stepStats.max <= 5,
        note: "[ handled and the frame drawn (memory canvas, 160×40); \(reached) of \(revisions) earlier revisions reached; "
            + "p95 \(Report.fmt(percentile(steps, 0.95))) ms; the thread's CPU per step \(Report.format(Stats(cpu), "ms")), "
            + "p95 \(Report.fmt(percentile(cpu, 0.95))) ms; load average \(loadAverage())"))
    viewer.stop()
}
