// The live file store, end to end: a save to a 10,000-child file, seen as an event line by another
// process (`synctable events`); and the torture writer's thousands of mixed saves, replayed.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import JSONTree
import LiveQuery

func runStoreBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let binary = synctableBinaryBesideBench() else {
        printError("store: no synctable binary beside \(CommandLine.arguments[0]); build it first")
        return
    }
    let folder = options.root + "/.build/bench/store"
    _ = shellStatus("rm -rf '\(folder)' && mkdir -p '\(folder)'")
    measureRevisionCost(report, options)
    measureEditToEventLatency(report, options, binary: binary, folder: folder)
    measureTortureConvergence(report, options, binary: binary, folder: folder)
}

// MARK: - Edit to event

/// A document of `children` items whose scores sit at known byte offsets, 6 digits each, so an
/// edit rewrites 6 bytes of the buffer and the file keeps its length.
private struct ScoredDocument {
    var bytes: [UInt8]
    var scoreOffsets: [Int]

    init(children: Int) {
        var text = "{\"items\":{"
        var offsets = [Int]()
        for i in 0..<children {
            if i > 0 { text += "," }
            text += "\"k\(String(100000 + i).dropFirst())\":{\"name\":\"item number \(i)\",\"tags\":[\"alpha\",\"beta\"],\"score\":"
            offsets.append(text.utf8.count)
            text += "\(100000 + (i * 7919) % 900000)}"
        }
        text += "}}\n"
        bytes = Array(text.utf8)
        scoreOffsets = offsets
    }

    mutating func setScore(_ child: Int, _ score: Int) {
        let digits = Array(String(score).utf8)
        precondition(digits.count == 6)
        for (k, d) in digits.enumerated() { bytes[scoreOffsets[child] + k] = d }
    }
}

private func measureEditToEventLatency(_ report: Report, _ options: BenchOptions, binary: String, folder: String) {
    let children = options.quick ? 1000 : 10_000
    let edits = options.quick ? 20 : 500
    let path = folder + "/latency.json"
    var document = ScoredDocument(children: children)
    writeFileInPlace(path, document.bytes)
    guard let events = LineReadingProcess([binary, "events", path, "--path", "/items", "--order-by-child", "score"]) else {
        printError("store: cannot start \(binary)")
        return
    }
    defer { events.stop() }
    // The first window: `children` child_added lines, then value.
    guard events.readLines(untilPrefix: #"{"event":"value""#, seconds: 60) != nil else {
        printError("store: synctable events printed no first window")
        return
    }
    var rng = SystemRandomNumberGenerator()
    var inPlace = [Double](), renamed = [Double]()
    for edit in 0..<edits {
        let child = Int.random(in: 0..<children, using: &rng)
        document.setScore(child, Int.random(in: 100000...999999, using: &rng))
        let start: Double
        if edit % 2 == 0 {
            writeFileInPlace(path, document.bytes)
            start = now()
        } else {
            writeFileInPlace(path + ".tmp", document.bytes)
            rename(path + ".tmp", path)
            start = now()
        }
        guard let lines = events.readLines(untilPrefix: #"{"event":"value""#, seconds: 10) else {
            printError("store: no event for edit \(edit)")
            return
        }
        let latency = (now() - start) * 1000
        let key = "\"k\(String(100000 + child).dropFirst())\""
        if !lines.contains(where: { $0.contains(key) }) { printError("store: edit \(edit) of \(key) not in its events") }
        if edit % 2 == 0 { inPlace.append(latency) } else { renamed.append(latency) }
        usleep(UInt32.random(in: 2000...8000, using: &rng))
    }
    let all = (inPlace + renamed).sorted()
    let latencies = Stats(all)
    let p50 = latencies.median, p99 = percentile(all, 0.99), worst = all.last ?? .nan
    let mb = Double(document.bytes.count) / 1e6
    let note = "\(all.count) saves of a \(children)-child file (\(Report.fmt(mb)) MB), half in place, half by rename; "
        + "in place p50 \(Report.fmt(Stats(inPlace).median)) ms, rename p50 \(Report.fmt(Stats(renamed).median)) ms"
    report.add(Figure(
        name: "store save→event line p50", unit: "ms", synctable: latencies,
        target: "≤ 5 ms", met: options.quick ? nil : p50 <= 5, note: note))
    report.add(Figure(
        name: "store save→event line p99", unit: "ms", synctable: Stats([p99]),
        target: "≤ 20 ms", met: options.quick ? nil : p99 <= 20, note: "max \(Report.fmt(worst)) ms"))
}

/// The work one revision costs the store, in this process: parse (the store re-parses only the
/// child that changed; a full parse is shown beside it), then advance the window of
/// `--order-by-child score` over every child. The floor under the save→event latency.
private func measureRevisionCost(_ report: Report, _ options: BenchOptions) {
    let children = options.quick ? 1000 : 10_000
    var document = ScoredDocument(children: children)
    guard let query = try? Query().orderByChild(Path(keys: ["score"])), let first = try? JSONDocument(parsing: document.bytes) else { return }
    var window = Window(query: query, path: Path(keys: ["items"]), document: first)
    var previous = first
    var parse = [Double](), reparse = [Double](), advance = [Double]()
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<(options.quick ? 5 : 50) {
        document.setScore(Int.random(in: 0..<children, using: &rng), Int.random(in: 100000...999999, using: &rng))
        let t0 = now()
        guard let next = try? previous.reparsing(document.bytes) else { return }
        let t1 = now()
        let change = window.advanced(to: next)
        let t2 = now()
        _ = try? JSONDocument(parsing: document.bytes)
        let t3 = now()
        window = change.new
        previous = next
        reparse.append((t1 - t0) * 1000)
        advance.append((t2 - t1) * 1000)
        parse.append((t3 - t2) * 1000)
    }
    report.add(Figure(
        name: "store revision cost: re-parse", unit: "ms", synctable: Stats(reparse),
        peers: [(name: "full parse", stats: Stats(parse), note: nil)], target: "(part of ≤ 5 ms)", met: nil,
        ratio: Stats(parse).median / Stats(reparse).median,
        note: "\(children) children, \(Report.fmt(Double(document.bytes.count) / 1e6)) MB, one child's score changed"))
    report.add(Figure(
        name: "store revision cost: window advance", unit: "ms", synctable: Stats(advance), target: "(part of ≤ 5 ms)",
        met: nil, note: "orderByChild(score) over every child, one child changed"))
}

// MARK: - Torture

/// The torture writer's mixed saves, watched by `synctable events`: the events, replayed, must end
/// as the query over the final file, soon after the last save.
private func measureTortureConvergence(_ report: Report, _ options: BenchOptions, binary: String, folder: String) {
    let edits = options.quick ? 200 : 5000
    let path = folder + "/torture.json", log = folder + "/torture.log", done = folder + "/torture.done"
    writeFileInPlace(path, Array(#"{"seq":0,"items":{}}"#.utf8))
    guard let query = try? Query().orderByChild(Path(keys: ["score"])).limitToLast(20),
        let events = LineReadingProcess([binary, "events", path, "--path", "/items", "--order-by-child", "score", "--limit-to-last", "20"])
    else { return }
    defer { events.stop() }
    var rows = ReplayedEventRows()
    guard let first = events.readLines(untilPrefix: #"{"event":"value""#, seconds: 30) else { return }
    first.forEach { rows.apply($0) }
    let writer = options.root + "/Fixtures/filestore/torture_writer.py"
    guard shellStatus("python3 '\(writer)' '\(path)' '\(log)' '\(done)' 7 \(edits) 200 >/dev/null 2>&1 &") == 0 else { return }
    // Replay everything until the writer is done and the rows equal the final query.
    var finalRows: [(String, String)]?
    var lastWrite: Double = .nan
    var matchedAt: Double?
    let deadline = now() + 600
    while matchedAt == nil && now() < deadline {
        if let line = events.readLine(seconds: 0.05) {
            rows.apply(line)
            if line.hasPrefix(#"{"event":"value""#), let expected = finalRows, rows.equals(expected) { matchedAt = now() }
        }
        if finalRows == nil, let text = try? String(contentsOfFile: done, encoding: .utf8) {
            lastWrite = Double(text.split(separator: " ").first.flatMap { UInt64($0) } ?? 0) / 1e9
            guard let doc = try? JSONDocument(parsing: Array(FileManager.default.contents(atPath: path) ?? Data())) else { return }
            let window = Window(query: query, path: Path(keys: ["items"]), document: doc)
            finalRows = window.map { ($0.key, compactJSON($0.value)) }
            if rows.equals(finalRows!) { matchedAt = now() }
        }
    }
    guard let matchedAt else {
        printError("store: torture: the events never replayed to the final state")
        report.add(Figure(name: "store torture: final state after last save", unit: "ms", synctable: nil,
                          target: "≤ 200 ms", met: false, note: "never converged"))
        return
    }
    let lag = max(0, (matchedAt - lastWrite) * 1000)
    report.add(Figure(
        name: "store torture: final state after last save", unit: "ms", synctable: Stats([lag]),
        target: "≤ 200 ms", met: options.quick ? nil : lag <= 200,
        note: "\(edits) mixed saves (in place, chunked, rename, vim-style, re-create, broken), events replayed in another process"))
}

/// A listener's rows rebuilt from `synctable events` lines.
private struct ReplayedEventRows {
    var rows: [(key: String, value: String)] = []

    mutating func apply(_ line: String) {
        guard let doc = try? JSONDocument(parsing: line), let event = doc.root.child("event")?.stringValue,
            let key = doc.root.child("key")?.stringValue
        else { return }
        let value = doc.root.child("value").map(compactJSON) ?? "null"
        let prev = doc.root.child("prevKey")?.stringValue
        func place() -> Int { prev.flatMap { p in rows.firstIndex { $0.key == p }.map { $0 + 1 } } ?? 0 }
        switch event {
        case "child_removed": rows.removeAll { $0.key == key }
        case "child_added": rows.insert((key, value), at: place())
        case "child_moved":
            if let i = rows.firstIndex(where: { $0.key == key }) {
                let row = rows.remove(at: i)
                rows.insert(row, at: place())
            }
        case "child_changed":
            if let i = rows.firstIndex(where: { $0.key == key }) { rows[i].value = value }
        default: break
        }
    }

    func equals(_ expected: [(String, String)]) -> Bool {
        rows.count == expected.count && zip(rows, expected).allSatisfy { $0.key == $1.0 && $0.value == $1.1 }
    }
}

private func compactJSON(_ node: JSONNode) -> String { String(decoding: node.json.serialized(.compact), as: UTF8.self) }

// MARK: - Processes and files

/// A child process whose standard output is read line by line (and, when asked for, whose
/// standard input is written line by line).
final class LineReadingProcess {
    let pid: pid_t
    private let fd: Int32
    private let input: Int32?
    private var buffer = [UInt8]()

    init?(_ argv: [String], writable: Bool = false) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        var inputs: [Int32] = [-1, -1]
        if writable {
            guard pipe(&inputs) == 0 else {
                close(fds[0])
                close(fds[1])
                return nil
            }
            // A process started later must not hold the input open past `stop`.
            inputs.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        if writable { posix_spawn_file_actions_adddup2(&actions, inputs[0], 0) }
        var pid = pid_t()
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ)
        close(fds[1])
        if writable { close(inputs[0]) }
        guard rc == 0 else {
            close(fds[0])
            if writable { close(inputs[1]) }
            return nil
        }
        self.pid = pid
        fd = fds[0]
        input = writable ? inputs[1] : nil
    }

    /// Writes `line` and a newline to the process's standard input (made `writable`).
    func send(_ line: String) {
        guard let input else { return }
        let bytes = Array((line + "\n").utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(input, $0.baseAddress! + done, $0.count - done) }
            if n <= 0 { return }
            done += n
        }
    }

    /// The next line, or nil after `seconds` (or at end of output).
    func readLine(seconds: Double) -> String? {
        let deadline = now() + seconds
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let left = deadline - now()
            guard left > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Lines up to and including the first that starts with `prefix`; nil on timeout.
    /// Whether output is waiting to be read right now (a line read already, or bytes in the pipe).
    func hasOutput() -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return !buffer.isEmpty || poll(&p, 1, 0) > 0
    }

    func readLines(untilPrefix prefix: String, seconds: Double) -> [String]? {
        var lines = [String]()
        let deadline = now() + seconds
        while let line = readLine(seconds: max(0, deadline - now())) {
            lines.append(line)
            if line.hasPrefix(prefix) { return lines }
        }
        return nil
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(fd)
        input.map { _ = close($0) }
    }
}

/// The release `synctable` (`make bench` builds it) and a scratch folder `.build/bench/NAME`;
/// nil, said on standard error, without the binary.
func releaseBinaryAndFolder(_ options: BenchOptions, _ name: String) -> (binary: String, folder: String)? {
    let binary = options.root + "/.build/release/synctable"
    guard access(binary, X_OK) == 0 else {
        printError("missing \(binary) (make bench builds it)")
        return nil
    }
    let folder = options.root + "/.build/bench/" + name
    _ = try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return (binary, folder)
}

func synctableBinaryBesideBench() -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let candidate = String(exe[..<(exe.lastIndex(of: "/") ?? exe.endIndex)]) + "/synctable"
    return access(candidate, X_OK) == 0 ? candidate : nil
}

/// Writes `bytes` over the file at `path` (truncated, same inode); with `sync`, `fsync`s it;
/// `beforeClose` is called once every byte is written, just before the close.
func writeFileInPlace(_ path: String, _ bytes: [UInt8], sync: Bool = false, beforeClose: () -> Void = {}) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        if n <= 0 { break }
        done += n
    }
    if sync { fsync(fd) }
    beforeClose()
    close(fd)
}

/// Runs `command` with /bin/sh and returns its wait status (-1 when it could not start).
func shellStatus(_ command: String) -> Int32 {
    var pid = pid_t()
    let words: [String] = ["/bin/sh", "-c", command]
    let argv = words.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return status
}
