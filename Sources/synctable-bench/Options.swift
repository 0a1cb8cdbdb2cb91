import Foundation

/// Command-line options of the benchmark runner.
struct BenchOptions: Sendable {
    /// The repository root (for Fixtures/ and .build/bench/).
    var root = "."
    /// Only groups whose name contains one of these (all when empty).
    var only: [String] = []
    /// Fewer runs and smaller inputs, for the unit test of the harness.
    var quick = false
    /// How many edits the large-file followers follow (1,000 unless given).
    var followEdits: Int?
    /// Whether the 1 GB large-file group runs (minutes: a 1 GB file written per edit).
    var gigabyte = false

    static func parse(_ args: [String]) -> BenchOptions {
        var o = BenchOptions()
        var i = 1
        while i < args.count {
            switch args[i] {
            case "--root" where i + 1 < args.count: o.root = args[i + 1]; i += 1
            case "--only" where i + 1 < args.count: o.only.append(args[i + 1]); i += 1
            case "--quick": o.quick = true
            case "--gigabyte": o.gigabyte = true
            case "--follow-edits" where i + 1 < args.count: o.followEdits = Int(args[i + 1]); i += 1
            default:
                printError("synctable-bench: unknown option '\(args[i])' (use --root DIR, --only GROUP, --quick, --follow-edits N, --gigabyte)")
                exit(2)
            }
            i += 1
        }
        return o
    }

    func selects(_ group: String) -> Bool { only.isEmpty || only.contains { group.contains($0) } }
}

/// A named set of figures.
struct BenchmarkGroup: Sendable {
    let name: String
    let run: @Sendable (Report, BenchOptions) -> Void
}

/// Every group, in report order. Each layer adds its own.
let benchmarkGroups: [BenchmarkGroup] = [
    BenchmarkGroup(name: "parse", run: runParseBenchmarks),
    BenchmarkGroup(name: "memory", run: runParseMemoryBenchmark),
    BenchmarkGroup(name: "command-memory", run: runCommandMemoryBenchmarks),
    BenchmarkGroup(name: "query", run: runQueryBenchmarks),
    BenchmarkGroup(name: "computed", run: runComputedBenchmarks),
    BenchmarkGroup(name: "first-screen", run: runFirstScreenBenchmarks),
    BenchmarkGroup(name: "edit-to-screen", run: runEditToScreenBenchmarks),
    BenchmarkGroup(name: "store", run: runStoreBenchmarks),
    BenchmarkGroup(name: "jsonl", run: runLinesBenchmarks),
    BenchmarkGroup(name: "events", run: runEventsBenchmarks),
    BenchmarkGroup(name: "write", run: runWriteBenchmarks),
    BenchmarkGroup(name: "syncedarray", run: runSyncedArrayBenchmarks),
    BenchmarkGroup(name: "table", run: runTableBenchmarks),
    BenchmarkGroup(name: "serve", run: runServeBenchmarks),
    BenchmarkGroup(name: "websocket", run: runWebSocketBenchmarks),
    BenchmarkGroup(name: "rules", run: runRulesBenchmarks),
    BenchmarkGroup(name: "serve-limits", run: runServeLimitsBenchmarks),
    BenchmarkGroup(name: "serve-patch", run: runLargePatchBenchmarks),
    BenchmarkGroup(name: "remote", run: runRemoteBenchmarks),
    BenchmarkGroup(name: "search", run: runSearchBenchmarks),
    BenchmarkGroup(name: "large-file first-screen", run: runLargeFirstScreenBenchmarks),
    BenchmarkGroup(name: "large-file write", run: runLargeWriteBenchmarks),
    BenchmarkGroup(name: "large-file edits", run: runLargeEditBenchmarks),
    BenchmarkGroup(name: "large-file follow", run: runLargeFollowBenchmarks),
    BenchmarkGroup(name: "large-file writer", run: runLargeWriterBenchmarks),
    BenchmarkGroup(name: "large-file 1 GB", run: runGigabyteBenchmarks),
    BenchmarkGroup(name: "large-file views", run: runViewsBenchmarks),
    BenchmarkGroup(name: "history", run: runHistoryBenchmarks),
    BenchmarkGroup(name: "history across a sort", run: runHistoryAcrossSortBenchmark),
    BenchmarkGroup(name: "charts", run: runChartBenchmarks),
    BenchmarkGroup(name: "large-file where", run: runLargeWhereBenchmarks),
    BenchmarkGroup(name: "sources", run: runSourcesBenchmarks),
]

func printError(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

func summaryTable(_ report: Report) -> String {
    var out = "\n== Summary\n"
    for f in report.figures { out += Report.line(f) + "\n" }
    let missed = report.figures.filter { $0.met == false }.map(\.name)
    out += missed.isEmpty ? "All targets met.\n" : "Targets missed: \(missed.joined(separator: ", "))\n"
    return out
}

func writeReportJSON(_ report: Report, root: String) {
    let dir = root + "/.build/bench"
    mkdir(root + "/.build", 0o755)
    mkdir(dir, 0o755)
    guard let f = fopen(dir + "/report.json", "w") else { return }
    fputs(report.json(), f)
    fclose(f)
    print("Report written to \(dir)/report.json")
}
