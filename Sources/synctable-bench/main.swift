// `make bench`: every benchmark of SyncTable, one report.
#if canImport(Glibc)
import Glibc
#endif

if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--parse-memory" {
    parseMemoryMode(CommandLine.arguments[2])
}
if CommandLine.arguments.count > 2 && CommandLine.arguments[1] == "--peak-of" {
    peakOfMode(Array(CommandLine.arguments.dropFirst(2)))
}
let options = BenchOptions.parse(CommandLine.arguments)
let report = Report()
print("SyncTable benchmarks (release build; medians of several runs, [min–max])")
for group in benchmarkGroups where options.selects(group.name) {
    print("\n== \(group.name)")
    group.run(report, options)
}
print(summaryTable(report))
writeReportJSON(report, root: options.root)
