// JSON Lines logs: an append reaching `synctable events` beside `tail -f | jq`, the newest 100
// lines of a large log beside `tail -n 100 | jq` and `jq | tail -n 100`, and memory while following.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

func runLinesBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let binary = synctableBinaryBesideBench() else {
        printError("jsonl: no synctable binary beside \(CommandLine.arguments[0]); build it first")
        return
    }
    let folder = options.root + "/.build/bench/jsonl"
    _ = shellStatus("rm -rf '\(folder)' && mkdir -p '\(folder)'")
    // 1 MB and 1 GB (5,000 and 5,000,000 lines of 200 bytes); --quick: 1 MB and 20 MB.
    let sizes = options.quick ? [5_000, 100_000] : [5_000, 5_000_000]
    for lines in sizes {
        let path = folder + "/log-\(lines).jsonl"
        writeLog(path, lines: lines)
        let mb = Double(lines * logLineLength) / 1e6
        let label = mb >= 1000 ? "\(Report.fmt(mb / 1000)) GB" : "\(Report.fmt(mb)) MB"
        // The newest lines first, while the log holds exactly `lines` lines.
        measureNewestLines(report, options, binary: binary, path: path, lines: lines, label: label)
        measureAppendToEvent(report, options, binary: binary, path: path, lines: lines, label: label)
    }
    _ = shellStatus("rm -rf '\(folder)'")
}

/// Every generated line is this long (newline included), so sizes are exact.
private let logLineLength = 200

/// Line `i` of the benchmark log: a timestamp, a level, a message, padded to `logLineLength`.
private func logLine(_ i: Int, level: String? = nil) -> [UInt8] {
    let levels = ["info", "info", "info", "debug", "warn", "error"]
    var text = "{\"ts\":\(1_700_000_000_000 + i),\"level\":\"\(level ?? levels[i % levels.count])\",\"n\":\(i),\"msg\":\"request "
    let pad = logLineLength - text.utf8.count - 3
    text += String(repeating: "x", count: max(0, pad)) + "\"}\n"
    return Array(text.utf8)
}

private func writeLog(_ path: String, lines: Int) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    defer { close(fd) }
    var chunk = [UInt8]()
    chunk.reserveCapacity(1 << 22)
    for i in 0..<lines {
        chunk += logLine(i)
        if chunk.count >= 1 << 22 || i == lines - 1 {
            _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            chunk.removeAll(keepingCapacity: true)
        }
    }
}

private func appendLine(_ path: String, _ line: [UInt8]) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// Appends lines one at a time and times each until its `child_added` line from
/// `synctable events FILE --limit-to-last 10`, and until its line from `tail -f FILE | jq -c .`.
private func measureAppendToEvent(_ report: Report, _ options: BenchOptions, binary: String, path: String, lines: Int,
                                  label: String) {
    let appends = options.quick ? 10 : (lines > 1_000_000 ? 30 : 200)
    let startup = now()
    guard let events = LineReadingProcess([binary, "events", path, "--limit-to-last", "10"]),
        events.readLines(untilPrefix: #"{"event":"value""#, seconds: 600) != nil
    else {
        printError("jsonl: synctable events printed no first window for \(path)")
        return
    }
    let firstWindow = now() - startup
    var next = lines
    var synctable = [Double]()
    for _ in 0..<appends {
        let line = logLine(next, level: "bench")
        let start = now()
        appendLine(path, line)
        guard let seen = events.readLines(untilPrefix: #"{"event":"value""#, seconds: 60),
            seen.contains(where: { $0.contains(#""key":"\#(next)""#) })
        else {
            printError("jsonl: no event for line \(next)")
            break
        }
        synctable.append((now() - start) * 1000)
        next += 1
        usleep(2000)
    }
    let peak = peakResident(of: events.pid)
    events.stop()

    var peers: [(name: String, stats: Stats?, note: String?)] = []
    if let jq = which("jq"), let tail = which("tail") {
        var times = [Double]()
        let command = "\(tail) -n 0 -f '\(path)' | \(jq) --unbuffered -c ."
        if let follow = LineReadingProcess(["/bin/sh", "-c", command]) {
            usleep(300_000)  // tail opens the file and seeks to its end
            for _ in 0..<min(appends, 50) {
                let start = now()
                appendLine(path, logLine(next, level: "bench"))
                guard let line = follow.readLine(seconds: 10), line.contains("\"n\":\(next)") else { break }
                times.append((now() - start) * 1000)
                next += 1
                usleep(2000)
            }
            // The shell's children (tail, jq) first, by their ids, then the shell.
            for child in childProcesses(of: follow.pid) { kill(child, SIGTERM) }
            follow.stop()
        }
        peers.append(("tail -f | jq -c .", times.isEmpty ? nil : Stats(times), times.isEmpty ? "no output" : nil))
    } else {
        peers.append(("tail -f | jq -c .", nil, "jq not installed"))
    }
    let sorted = synctable.sorted()
    let p99 = percentile(sorted, 0.99)
    report.add(Figure(
        name: "jsonl append→event line p50, \(label) log", unit: "ms", synctable: sorted.isEmpty ? nil : Stats(sorted),
        peers: peers, target: "≤ 3 ms", met: options.quick || sorted.isEmpty ? nil : Stats(sorted).median <= 3,
        note: "\(sorted.count) appends of one line; first window \(Report.fmt(firstWindow)) s"))
    report.add(Figure(
        name: "jsonl append→event line p99, \(label) log", unit: "ms", synctable: sorted.isEmpty ? nil : Stats([p99]),
        target: "≤ 10 ms", met: options.quick || sorted.isEmpty ? nil : p99 <= 10, note: ""))
    // Against the file's size, memory means something for a large log only (the runtime alone
    // is ~30 MB).
    if let peak, lines >= 100_000 {
        let fileSize = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 1)
        report.add(Figure(
            name: "jsonl memory while following, \(label) log", unit: "× file", synctable: Stats([Double(peak) / fileSize]),
            target: "≤ 0.3 × file", met: options.quick ? nil : Double(peak) / fileSize <= 0.3,
            note: "peak resident \(Report.fmt(Double(peak) / 1e6)) MB of synctable events"))
    }
}

/// The newest 100 lines: `synctable list FILE --limit-to-last 100`, beside `tail -n 100 FILE | jq -c .`
/// and `jq -c . FILE | tail -n 100`.
private func measureNewestLines(_ report: Report, _ options: BenchOptions, binary: String, path: String, lines: Int,
                                label: String) {
    let runs = options.quick ? 1 : 3
    var times = [Double]()
    for _ in 0..<runs {
        let r = runCommand(binary, ["list", path, "--limit-to-last", "100", "--format", "jsonl"])
        guard r.status == 0, r.output.split(separator: 0x0A).count == 100 else {
            printError("jsonl: synctable list failed on \(path) (status \(r.status))")
            return
        }
        times.append(r.seconds)
    }
    var peers: [(name: String, stats: Stats?, note: String?)] = []
    if let jq = which("jq"), let tail = which("tail") {
        for (name, command) in [
            ("tail -n 100 | jq -c .", "\(tail) -n 100 '\(path)' | \(jq) -c ."),
            ("jq -c . | tail -n 100", "\(jq) -c . '\(path)' | \(tail) -n 100"),
        ] {
            var peer = [Double]()
            for _ in 0..<(name.hasPrefix("jq") ? 1 : runs) {
                let r = runCommand("/bin/sh", ["-c", command])
                if r.status == 0 { peer.append(r.seconds) }
            }
            peers.append((name, peer.isEmpty ? nil : Stats(peer), peer.isEmpty ? "failed" : nil))
        }
    }
    let stats = Stats(times)
    // The viewer, until the newest line's key is on its first screen (a log opens at its end).
    var screens = [Double]()
    let newest = Array(" \(lines - 1) ".utf8)
    for _ in 0..<runs {
        let start = now()
        guard let viewer = try? PtyProcess(binary, [path, "--no-cache"], rows: 40, columns: 160) else { break }
        if let seen = viewer.waitFor(newest, timeout: 60) { screens.append(seen - start) } else { break }
        viewer.stop()
    }
    if !screens.isEmpty {
        let screen = Stats(screens)
        report.add(Figure(
            name: "jsonl first screen (viewer, newest line), \(label) log", unit: "s", synctable: screen,
            peers: peers.prefix(1).map { $0 }, target: "≤ 0.5 s", met: options.quick ? nil : screen.median <= 0.5,
            note: "until the newest line's key is on the terminal"))
    }
    report.add(Figure(
        name: "jsonl newest 100 lines (list), \(label) log", unit: "s", synctable: stats, peers: peers,
        target: "≤ 0.5 s", met: options.quick ? nil : stats.median <= 0.5,
        ratio: peers.first?.stats.map { $0.median / stats.median }, note: "whole process, file in the page cache"))
}

/// Peak resident memory (VmHWM) of a running process, in bytes.
private func peakResident(of pid: pid_t) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return nil }
    return Int(line.filter(\.isNumber)).map { $0 * 1024 }
}

/// The ids of the processes `pid` started (Linux: /proc/PID/task/PID/children).
private func childProcesses(of pid: pid_t) -> [pid_t] {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8) else { return [] }
    return text.split(separator: " ").compactMap { pid_t($0) }
}
