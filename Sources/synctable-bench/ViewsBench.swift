// Derived views (issue 38) over the large file: a frequency table on screen beside jq and
// VisiData, the statistics of every column, and what one edit costs each view.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import JSONTree
import LiveQuery
import LiveViews
import SeededRandom

/// CPU seconds of this process (every thread) so far: beside wall time, what the work cost on a
/// machine other processes keep busy.
private func processCPU() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds of this thread so far.
func threadCPU() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Seconds this thread has waited for a core so far (the kernel's run-queue delay), or nil
/// where the kernel does not say: on a loaded machine, wall time minus CPU time minus this is
/// what a thread waited for anything else (a sleep, a poll, a lock, the disk).
func threadRunDelay() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    return fields.count >= 2 ? Double(fields[1]).map { $0 / 1e9 } : nil
}

/// The 1-minute load average, for the notes (the figures are wall times).
func loadAverage() -> String {
    var loads = [Double](repeating: 0, count: 3)
    return getloadavg(&loads, 3) > 0 ? Report.fmt(loads[0]) : "?"
}

func runViewsBenchmarks(_ report: Report, _ options: BenchOptions) {
    let folder = options.root + "/.build/bench/views"
    _ = shellStatus("rm -rf '\(folder)' && mkdir -p '\(folder)'")
    defer { _ = shellStatus("rm -rf '\(folder)'") }
    let file = PlayersFile(children: options.quick ? 20_000 : 1_000_000)
    let path = folder + "/players.json"
    writeFileInPlace(path, file.bytes)
    print("(\(file.children) children, \(Report.fmt(Double(file.bytes.count) / 1e6)) MB)")
    viewsInProcess(report, options, file: file)
    guard let binary = synctableBinaryBesideBench() else {
        printError("views: no synctable binary beside \(CommandLine.arguments[0]); build it first")
        return
    }
    frequencyOnScreen(report, options, binary: binary, folder: folder, path: path, children: file.children)
}

/// Shift-F on the team column of the viewer (the file's first screen already shown): time from
/// the key to the first bar on the terminal, beside jq's `group_by` and VisiData's Shift-F in
/// batch mode (each a whole run: reading the file, then counting).
private func frequencyOnScreen(_ report: Report, _ options: BenchOptions, binary: String, folder: String, path: String, children: Int) {
    let runs = options.quick ? 1 : 3
    var times = [Double](), launches = [Double]()
    for _ in 0..<runs {
        let start = now()
        guard let viewer = try? PtyProcess(binary, [path, "--path", "/players", "--columns", "team,score", "--no-cache"], rows: 40, columns: 160)
        else { break }
        defer { viewer.stop() }
        guard let first = viewer.waitFor(Array(PlayersFile.key(0).utf8), timeout: 120) else {
            printError("views: the viewer never showed its first screen")
            break
        }
        viewer.drain(for: 0.3)
        // Tab: the column cursor to team; F: its frequency table; the first bar ends the wait.
        viewer.send("\t")
        viewer.drain(for: 0.1)
        let asked = now()
        viewer.send("F")
        // The largest count's bar is whole blocks (Histogram.bar); the table shows none.
        guard let shown = viewer.waitFor(Array("█".utf8), timeout: 60) else {
            printError("views: the frequency sheet never showed a bar")
            break
        }
        times.append(shown - asked)
        launches.append(first - start)
    }
    // jq, on the same file: every child's team grouped and counted.
    var jqStats: Stats?, jqNote: String? = "jq not installed"
    if let jq = which("jq") {
        let filter = "[.players[]] | group_by(.team) | map({(.[0].team): length})"
        var jqTimes = [Double]()
        for _ in 0..<min(runs, 2) {
            let r = runCommand(jq, ["-c", filter, path])
            if r.status == 0 && String(decoding: r.output, as: UTF8.self).contains("violet") { jqTimes.append(r.seconds) }
        }
        jqStats = jqTimes.isEmpty ? nil : Stats(jqTimes)
        jqNote = "jq '\(filter)' (whole run)"
    }
    // One run: VisiData takes tens of seconds over a million records.
    let (vdStats, vdNote) = visidataFrequency(options, folder: folder, path: path, runs: 1)
    let t = times.isEmpty ? nil : Stats(times)
    report.add(Figure(
        name: "views: frequency table of a string column on screen (F)", unit: "s", synctable: t,
        peers: [(name: "jq group_by", stats: jqStats, note: jqNote), (name: "VisiData Shift-F (vd -b)", stats: vdStats, note: vdNote)],
        target: "≤ 0.5 s", met: t.map { $0.median <= 0.5 }, ratio: t.flatMap { t in jqStats.map { $0.median / t.median } },
        note: "load average \(loadAverage()); \(children) children; from F to the first bar on the terminal (the first screen came \(Report.fmt(Stats(launches).median)) s after launch; "
            + "F evaluates the query's whole range and counts it); the peers read and count the whole file each run"))
}

/// VisiData 3.4's frequency table in batch mode: the players as JSON Lines (VisiData reads a
/// keyed object as one row), a command log that opens the team column's frequency sheet, and
/// the sheet saved as TSV. Installed by scripts/ensure-visidata.sh into .build/visidata-venv.
private func visidataFrequency(_ options: BenchOptions, folder: String, path: String, runs: Int) -> (Stats?, String) {
    guard shellStatus("'\(options.root)/scripts/ensure-visidata.sh'") == 0 else { return (nil, "VisiData not installed (scripts/ensure-visidata.sh)") }
    let vd = options.root + "/.build/visidata-venv/bin/vd"
    let records = folder + "/players.jsonl", log = folder + "/frequency.vdj", out = folder + "/frequency.tsv"
    guard shellStatus("jq -c '.players[]' '\(path)' > '\(records)'") == 0 else { return (nil, "jq could not write the JSON Lines copy") }
    let command = #"{"sheet": "players", "col": "team", "row": "", "longname": "freq-col", "input": "", "keystrokes": "Shift+F", "comment": "frequency table of the team column"}"#
    writeFileInPlace(log, Array((command + "\n").utf8))
    var times = [Double]()
    for _ in 0..<runs {
        unlink(out)
        let r = runCommand(vd, ["-b", "-p", log, "-o", out, records])
        let saved = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        if r.status == 0 && saved.contains("violet") { times.append(r.seconds) } else {
            printError("views: vd -b did not write the frequency table (status \(r.status))")
        }
    }
    return (times.isEmpty ? nil : Stats(times), "vd -b -p frequency.vdj on the same records as JSON Lines (whole run)")
}

/// In-process over the parsed file: the statistics of every column from scratch, then 200 edits
/// of one child's team — for each, the selection's window advanced to the edited revision and
/// each view updated (what the viewer does when the revision is published).
private func viewsInProcess(_ report: Report, _ options: BenchOptions, file: PlayersFile) {
    guard var document = try? JSONDocument(parsing: file.bytes) else {
        printError("views: the file does not parse")
        return
    }
    let players = Path(keys: ["players"])
    let columns = [Path(keys: ["name"]), Path(keys: ["score"]), Path(keys: ["team"]), Path(keys: ["meta", "views"])]
    var statisticsTimes = [Double](), evaluationTimes = [Double](), frequencyTimes = [Double](), statisticsCPU = [Double]()
    var window = Window(query: Query(), path: players, document: document)
    let frequency = FrequencyView(column: Path(keys: ["team"]))
    let statistics = StatisticsView(columns: columns)
    for run in 0..<(options.quick ? 1 : 3) {
        let start = now()
        window = Window(query: Query(), path: players, document: document)
        let evaluated = now(), cpu = processCPU()
        let stats = StatisticsView(columns: columns)
        stats.apply(WindowChange.initial(window))
        let counted = now()
        statisticsCPU.append(processCPU() - cpu)
        let teams = FrequencyView(column: Path(keys: ["team"]))
        teams.apply(WindowChange.initial(window))
        frequencyTimes.append(now() - counted)
        evaluationTimes.append(evaluated - start)
        statisticsTimes.append(counted - evaluated)
        if run == 0 && stats[2].strings != file.children { printError("views: the statistics counted \(stats[2].strings) teams") }
    }
    let s = Stats(statisticsTimes), evaluation = Stats(evaluationTimes)
    let total = Stats(zip(statisticsTimes, evaluationTimes).map { $0 + $1 })
    report.add(Figure(name: "views: statistics of every column (4) over the children", unit: "s", synctable: total,
                      target: "≤ 1 s", met: total.median <= 1,
                      note: "\(file.children) children, from the parsed revision: the query's window \(Report.fmt(evaluation.median * 1000)) ms, "
                          + "then the statistics \(Report.fmt(s.median * 1000)) ms (kinds, distinct, ordered numbers, sums; "
                          + "CPU \(Report.fmt(Stats(statisticsCPU).median * 1000)) ms on two threads; load average \(loadAverage())); "
                          + "the team frequency from the same window \(Report.fmt(Stats(frequencyTimes).median * 1000)) ms"))

    frequency.apply(WindowChange.initial(window))
    statistics.apply(WindowChange.initial(window))
    let teams = ["red", "green", "blue", "amber", "violet", "teal"]
    var r = SplitMix64(seed: 38)
    var frequencyLatency = [Double](), statisticsLatency = [Double](), advanceLatency = [Double]()
    var frequencyOwn = [Double](), statisticsOwn = [Double](), frequencyCPU = [Double](), statisticsEditCPU = [Double]()
    let edits = options.quick ? 40 : 200
    for _ in 0..<edits {
        let child = Int(r.next() % UInt64(file.children))
        let team = teams[Int(r.next() % UInt64(teams.count))]
        guard let edited = try? document.applying(JSONWrite.set(players.child(PlayersFile.key(child)).child("team"), .string(team))) else {
            printError("views: an edit failed")
            return
        }
        document = edited
        let start = now(), startCPU = threadCPU()
        let change = window.advanced(to: document)
        let advanced = now(), advancedCPU = threadCPU()
        frequency.apply(change)
        let counted = now(), countedCPU = threadCPU()
        statistics.apply(change)
        let done = now(), doneCPU = threadCPU()
        frequencyCPU.append((countedCPU - startCPU) * 1000)
        statisticsEditCPU.append((advancedCPU - startCPU + doneCPU - countedCPU) * 1000)
        window = change.new
        frequencyLatency.append((counted - start) * 1000)
        statisticsLatency.append((advanced - start + done - counted) * 1000)
        advanceLatency.append((advanced - start) * 1000)
        frequencyOwn.append((counted - advanced) * 1000)
        statisticsOwn.append((done - counted) * 1000)
    }
    let scratch = FrequencyView.rows(of: window, column: Path(keys: ["team"]))
    let exact = scratch == frequency.rows
    for (name, latencies, own, cpu) in [("frequency", frequencyLatency, frequencyOwn, frequencyCPU),
                                        ("statistics", statisticsLatency, statisticsOwn, statisticsEditCPU)] {
        let stats = Stats(latencies)
        report.add(Figure(name: "views: one child's team changes → \(name) updated p50", unit: "ms", synctable: stats,
                          target: "≤ 5 ms", met: stats.median <= 5 && exact,
                          note: "\(edits) edits over \(file.children) children: the selection's window advanced to the edited revision, "
                              + "then the view's batch; p99 \(Report.fmt(percentile(latencies, 0.99))) ms; of which the window's advance "
                              + "p50 \(Report.fmt(Stats(advanceLatency).median)) ms (shared by every view of the query) and the view's own "
                              + "update p50 \(Report.fmt(Stats(own).median * 1000)) µs; CPU p50 \(Report.fmt(Stats(cpu).median)) ms "
                              + "(load average \(loadAverage()))"
                              + (exact ? "; equal to a recount at the end" : "; NOT equal to a recount at the end")))
    }
}
