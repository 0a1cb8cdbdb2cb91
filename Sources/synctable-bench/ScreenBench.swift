// What a user waits for: the first screen of a large file, and an edit reaching the
// screen; SyncTable's viewer in a pseudo-terminal against jq.
import Foundation
import SeededRandom

private func synctablePath(_ options: BenchOptions) -> String { options.root + "/.build/release/synctable" }

/// Time to first screen for the 1,000,000-child collection sorted by a child field,
/// limit 50: the viewer (until its first row is on the terminal), `synctable list`,
/// and jq producing the same 50 rows. Also the viewer's peak memory.
func runFirstScreenBenchmarks(_ report: Report, _ options: BenchOptions) {
    let file = largeCollectionPath(options)
    let size = Double((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
    let query = ["--path", "/items", "--order-by-child", "score", "--limit-to-first", "50"]
    let runs = options.quick ? 1 : 5

    // synctable list, which also tells which row comes first.
    var listTimes = [Double]()
    var listKeys = [String]()
    for _ in 0..<runs {
        let r = runCommand(synctablePath(options), ["list", file] + query + ["--format", "jsonl"])
        guard r.status == 0 else {
            report.add(Figure(name: "first screen, \(Int(size / 1e6)) MB file", unit: "s", synctable: nil,
                              target: "≤ 1 s", met: false, note: "synctable list failed (status \(r.status))"))
            return
        }
        listTimes.append(r.seconds)
        listKeys = jsonlKeys(r.output)
    }
    guard let firstKey = listKeys.first else { return }

    // The viewer, until the first row's key is on the terminal: from the file itself
    // (--no-cache), and as a user sees it from the second run on (the first-page cache).
    func viewerRuns(_ extra: [String]) -> (times: [Double], peaks: [Double]) {
        var times = [Double](), peaks = [Double]()
        for _ in 0..<runs {
            let start = now()
            guard let viewer = try? PtyProcess(synctablePath(options), [file] + query + extra, rows: 40, columns: 160) else { break }
            if let seen = viewer.waitFor(Array(firstKey.utf8), timeout: 30) { times.append(seen - start) }
            if extra.contains("--no-cache"), let peak = viewer.peakResidentBytes() { peaks.append(Double(peak)) }
            viewer.stop()
        }
        return (times, peaks)
    }
    let (viewerTimes, peaks) = viewerRuns(["--no-cache"])
    let (cachedTimes, _) = viewerRuns([])

    // jq: the same 50 rows (stable sort by score keeps file order, which is key order here, on ties).
    var jqTimes = [Double]()
    var jqNote: String? = "jq not installed"
    if let jq = which("jq") {
        jqNote = nil
        for _ in 0..<(options.quick ? 1 : 2) {
            let r = runCommand(jq, ["-c", ".items | to_entries | sort_by(.value.score) | .[:50] | .[] | {key: .key, value: .value}", file])
            jqTimes.append(r.seconds)
            if jsonlKeys(r.output) != listKeys { jqNote = "jq's rows differ from synctable's" }
        }
    }
    let viewer = Stats(viewerTimes), jqStats = jqTimes.isEmpty ? nil : Stats(jqTimes)
    let ratio = jqStats.map { $0.median / viewer.median }
    report.add(Figure(
        name: "first screen, \(Int(size / 1e6)) MB, 1M children, by child, limit 50", unit: "s",
        synctable: viewerTimes.isEmpty ? nil : viewer,
        peers: [(name: "synctable list", stats: Stats(listTimes), note: nil),
                (name: "jq", stats: jqStats, note: jqNote)],
        target: "≤ 1 s and ≥ 20× faster than jq",
        met: viewerTimes.isEmpty ? false : viewer.median <= 1 && (ratio ?? 0) >= 20, ratio: ratio,
        note: viewerTimes.isEmpty ? "the viewer never showed the first row"
            : "viewer without its cache; with the first-page cache (later runs) \(Report.format(cachedTimes.isEmpty ? nil : Stats(cachedTimes), "s"))"))
    if !peaks.isEmpty {
        let ratio = Stats(peaks.map { $0 / size })
        report.add(Figure(
            name: "viewer peak memory, \(Int(size / 1e6)) MB file", unit: "× file size", synctable: ratio,
            target: "≤ 3× file size", met: ratio.median <= 3,
            note: "peak \(Report.fmt(Stats(peaks).median / 1e6)) MB, at the first screen read from the file"))
    }
}

/// Keys of `{"key": K, ...}` JSON lines.
func jsonlKeys(_ output: [UInt8]) -> [String] {
    String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { line in
        guard let data = line.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["key"] as? String
    }
}

/// Edit-to-screen latency: 300 edits of a 10,000-child file by this process (in place
/// and by rename, alternating), timed from the close or rename to the changed row's
/// bytes arriving on the viewer's terminal; the peer re-runs jq every 0.1 s.
func runEditToScreenBenchmarks(_ report: Report, _ options: BenchOptions) {
    let edits = options.quick ? 20 : 300
    var session = EditSession(options)
    guard let viewer = try? PtyProcess(synctablePath(options), [session.file] + EditSession.viewed, rows: 40, columns: 160) else { return }
    let ours = session.measure(viewer, edits: edits)
    viewer.stop()

    let file = session.file
    var peer: [Double] = []
    if let jq = which("jq") {
        let loop = "while :; do \(jq) -r '.items | to_entries | .[:30] | .[] | \"\\(.key) \\(.value.name)\"' \(file); sleep 0.1; done"
        if let watcher = try? PtyProcess("/bin/sh", ["-c", loop]) {
            peer = session.measure(watcher, edits: edits)
            watcher.process.terminate()
            watcher.process.waitUntilExit()
        }
    }
    for (name, pick) in [("p50", 0.50), ("p99", 0.99), ("max", 1.0)] {
        let o = percentile(ours, pick) * 1000, p = peer.isEmpty ? nil : percentile(peer, pick) * 1000
        let target = name == "p50" ? 5.0 : name == "p99" ? 20.0 : .infinity
        report.add(Figure(
            name: "edit-to-screen \(name), 10,000 children", unit: "ms",
            synctable: ours.isEmpty ? nil : Stats([o]),
            peers: [(name: "jq every 0.1 s", stats: p.map { Stats([$0]) }, note: p == nil ? "jq not installed" : nil)],
            target: target.isFinite ? "≤ \(Int(target)) ms" : "-",
            met: ours.isEmpty ? false : (target.isFinite ? o <= target : nil),
            ratio: ours.isEmpty ? nil : p.map { $0 / o },
            note: "\(ours.count) of \(edits) edits seen" + (peer.isEmpty ? "" : "; jq saw \(peer.count)")))
    }
}

/// A 10,000-child file under .build/bench/latency that this process edits, and the viewer's query
/// of its first 30 rows by key.
struct EditSession {
    static let viewed = ["--path", "/items", "--order-by-key", "--limit-to-first", "30"]
    let file: String
    var doc = EditableCollection(children: 10_000)
    let visible: [String]

    init(_ options: BenchOptions) {
        let dir = options.root + "/.build/bench/latency"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        file = dir + "/collection.json"
        doc.save(to: file, style: .rename)
        visible = Array(doc.keys.prefix(20))
    }

    /// Seconds from each save to its row's new text on `program`'s terminal.
    mutating func measure(_ program: PtyProcess, edits: Int) -> [Double] {
        var latencies = [Double]()
        guard program.waitFor(Array(visible[0].utf8), timeout: 20) != nil else { return [] }
        program.drain(for: 0.3)
        for e in 0..<edits {
            let key = visible[e % visible.count]
            let token = doc.freshToken(for: key)
            let savedAt = doc.save(to: file, style: e % 2 == 0 ? .inPlace : .rename)
            guard let seen = program.waitFor(Array(token.utf8), timeout: 3) else { continue }
            latencies.append(seen - savedAt)
            program.drain(for: 0.04)
        }
        return latencies
    }
}

/// Edit-to-screen latencies of the viewer run with `extraArguments` (a fresh file each time).
func editToScreenLatencies(_ options: BenchOptions, extraArguments: [String], edits: Int) -> [Double] {
    var session = EditSession(options)
    guard let viewer = try? PtyProcess(synctablePath(options), [session.file] + EditSession.viewed + extraArguments,
                                       rows: 40, columns: 160) else { return [] }
    defer { viewer.stop() }
    return session.measure(viewer, edits: edits)
}

func percentile(_ samples: [Double], _ p: Double) -> Double {
    guard !samples.isEmpty else { return .nan }
    let s = samples.sorted()
    return s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))]
}

/// A 10,000-child collection kept as lines, so an edit rewrites one child's name.
struct EditableCollection {
    var keys: [String] = []
    private var names: [String: String] = [:]
    private var rest: [String: String] = [:]

    init(children: Int) {
        var r = SplitMix64(seed: 7)
        for i in 0..<children {
            let key = benchKey(i, &r)
            keys.append(key)
            names[key] = "user\(i)"
            let child = benchChild(i, &r)
            rest[key] = String(child[child.range(of: ", \"score\"")!.lowerBound...])
        }
    }

    /// A new 8-letter name for `key` that differs from its current name at every
    /// position, so the terminal must receive all of it.
    mutating func freshToken(for key: String) -> String {
        let old = Array(names[key]!.utf8)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var token = [UInt8]()
        for k in 0..<8 {
            var c = letters.randomElement()!
            while k < old.count && c == old[k] { c = letters.randomElement()! }
            token.append(c)
        }
        let s = String(decoding: token, as: UTF8.self)
        names[key] = s
        return s
    }

    enum Style { case inPlace, rename }

    /// Writes the collection; returns the monotonic time right after the close or rename.
    @discardableResult
    func save(to path: String, style: Style) -> Double {
        var out = "{\n  \"items\": {\n"
        for (i, key) in keys.enumerated() {
            out += "    \"\(key)\": {\"name\": \"\(names[key]!)\"\(rest[key]!)" + (i + 1 < keys.count ? ",\n" : "\n")
        }
        out += "  }\n}\n"
        let bytes = Array(out.utf8)
        let target = style == .inPlace ? path : path + ".tmp"
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        bytes.withUnsafeBytes { p in
            var done = 0
            while done < p.count { done += max(0, write(fd, p.baseAddress! + done, p.count - done)) }
        }
        close(fd)
        if style == .rename { rename(target, path) }
        return now()
    }
}
