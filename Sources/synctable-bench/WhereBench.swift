// `list --where` over the large file's 1,000,000 children, beside `jq … select(…)` (issue 38).

/// The issue's filter (its file's teams are letters; this file's teams are colours, so it keeps
/// none and times the filter alone), and the same shape keeping about a twelfth of the children,
/// which times the output too.
private let whereFilters = [
    (synctable: #".score > 500000 and .team == "c""#, jq: #".players[] | select(.score > 500000 and .team == "c")"#),
    (synctable: #".score > 500000 and .team == "teal""#, jq: #".players[] | select(.score > 500000 and .team == "teal")"#),
]

func runLargeWhereBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let (binary, folder, path, file) = largeFile(options) else { return }
    defer { _ = shellStatus("rm -rf '\(folder)'") }
    let runs = options.quick ? 1 : 5
    for filter in whereFilters {
        let list = runCommand(binary, ["list", path, "--path", "/players", "--where", filter.synctable, "--count"])
        guard list.status == 0 else {
            printError("large file: synctable list --where failed (status \(list.status))")
            return
        }
        let selected = String(decoding: list.output, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "?"
        func timed(_ command: String) -> Stats? {
            var times = [Double]()
            for _ in 0..<runs {
                let start = now()
                guard shellStatus(command + " > /dev/null") == 0 else { return nil }
                times.append(now() - start)
            }
            return Stats(times)
        }
        let quoted = { (s: String) in "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'" }
        let ours = timed("\(quoted(binary)) list \(quoted(path)) --path /players --where \(quoted(filter.synctable)) --format jsonl")
        let jq = which("jq").flatMap { timed("\(quoted($0)) -c \(quoted(filter.jq)) \(quoted(path))") }
        guard let ours else {
            printError("large file: synctable list --where failed")
            return
        }
        report.add(Figure(name: "large: list --where '\(filter.synctable)'", unit: "s", synctable: ours,
                          peers: [(name: "jq -c '\(filter.jq)'", stats: jq, note: jq == nil ? "jq not installed" : nil)],
                          target: "≤ 1 s", met: ours.median <= 1, ratio: jq.map { $0.median / ours.median },
                          note: "\(file.children) children, \(selected) selected, JSON Lines to /dev/null; whole command (read, parse, filter, write)"))
    }
}
