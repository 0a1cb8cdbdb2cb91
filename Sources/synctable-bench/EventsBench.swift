// `synctable events`: the first window of 10k, 100k and 1M children, printed as JSON lines,
// beside `jq -c` printing the same children one a line from the same file.
#if canImport(Glibc)
import Glibc
#endif

func runEventsBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let binary = synctableBinaryBesideBench() else {
        printError("events: no synctable binary beside \(CommandLine.arguments[0]); build it first")
        return
    }
    let folder = options.root + "/.build/bench/events"
    _ = shellStatus("rm -rf '\(folder)' && mkdir -p '\(folder)'")
    let jq = which("jq")
    for children in options.quick ? [10_000] : [10_000, 100_000, 1_000_000] {
        let path = folder + "/items-\(children).json"
        writeFileInPlace(path, generateCollection(children: children))
        let runs = children >= 1_000_000 ? 3 : 5
        // Every event printed and flushed (to /dev/null): child_added per child, then value.
        let events = "'\(binary)' events '\(path)' --path /items --exit-after-revisions 1 > /dev/null"
        guard shellStatus(events) == 0 else {
            printError("events: \(events) failed")
            continue
        }
        let ours = timeRuns(runs, warmup: 0) { _ = shellStatus(events) }
        var peers: [(name: String, stats: Stats?, note: String?)] = []
        var ratio: Double?
        if let jq {
            let command = "'\(jq)' -c '.items | to_entries[]' '\(path)' > /dev/null"
            let theirs = timeRuns(runs, warmup: 0) { _ = shellStatus(command) }
            peers.append((name: "jq -c '.items | to_entries[]'", stats: theirs, note: nil))
            ratio = theirs.median / ours.median
        } else {
            peers.append((name: "jq -c", stats: nil, note: "jq not installed"))
        }
        let label = children >= 1_000_000 ? "\(children / 1_000_000)M" : "\(children / 1000)k"
        report.add(Figure(
            name: "events, first window of \(label) children (one line each)", unit: "s", synctable: ours, peers: peers,
            target: "linear in the children", met: nil, ratio: ratio,
            note: "whole command: read, parse, window, child_added lines with index and value; jq prints {key, value} a line"))
        unlink(path)
    }
    _ = shellStatus("rm -rf '\(folder)'")
}
