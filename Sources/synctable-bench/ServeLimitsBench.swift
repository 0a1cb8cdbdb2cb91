// `synctable serve` against clients that would exhaust it: reads with distinct `ns` and streams
// that never read, of an 11 MB file (the server's memory); one PATCH of 10k to 160k paths (its
// time, beside `synctable update` with the same paths, and a 1-byte PUT's while it runs).
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SeededRandom

func runServeLimitsBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let (binary, folder) = releaseBinaryAndFolder(options, "serve-limits") else { return }
    runHostileClientMemoryBenchmark(report, options, binary: binary, folder: folder)
    runHostileWebSocketBenchmarks(report, options, binary: binary, folder: folder)
}

/// The `serve-patch` group: one large PATCH at 4 sizes, and a PUT sent while one runs.
func runLargePatchBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let (binary, folder) = releaseBinaryAndFolder(options, "serve-limits") else { return }
    runLargePatchBenchmark(report, options, binary: binary, folder: folder)
}

// MARK: - Memory

/// The server's peak resident memory while 300 reads with distinct `ns` (each once a new
/// cache entry) and, on a fresh server, 150 streams that never read (each once a copy of
/// the file) hit an 11 MB file; beside the same server after one plain read.
private func runHostileClientMemoryBenchmark(_ report: Report, _ options: BenchOptions, binary: String, folder: String) {
    let file = folder + "/eleven.json"
    let bytes = generateCollection(children: 74_000)
    _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
    let fileMB = Double(bytes.count) / 1e6
    // The server with the file loaded is the start; hostile clients may add what four copies
    // of the file and 64 MB would.
    let allowance = 4 * fileMB + 64
    let reads = options.quick ? 30 : 300
    let streams = options.quick ? 15 : 150

    guard let server = ServedFile(binary: binary, file: file) else { return }
    _ = readWhole(port: server.port, target: "/.json")
    let baseline = residentMB(server.process.processIdentifier, "VmHWM")
    let bound = baseline + allowance
    for n in 0..<reads {
        guard readWhole(port: server.port, target: "/.json?ns=x\(n)") > bytes.count / 2 else {
            printError("serve-limits bench: read \(n) failed")
            server.stop()
            return
        }
    }
    let afterReads = residentMB(server.process.processIdentifier, "VmHWM")
    server.stop()
    report.add(Figure(
        name: "server peak RSS, \(reads) GETs with distinct ns of a \(Report.fmt(fileMB)) MB file", unit: "MB",
        synctable: Stats([afterReads]), peers: [(name: "after one read", stats: Stats([baseline]), note: nil)],
        target: "≤ \(Report.fmt(bound)) MB (after one read + 4 × file + 64)", met: afterReads <= bound, ratio: nil,
        note: "one read at a time, each body read whole"))

    guard let fresh = ServedFile(binary: binary, file: file) else { return }
    _ = readWhole(port: fresh.port, target: "/.json")
    let freshBaseline = residentMB(fresh.process.processIdentifier, "VmHWM")
    let freshBound = freshBaseline + allowance
    var sockets = [Int32]()
    for _ in 0..<streams {
        guard let fd = connectLoopback(fresh.port, receiveBuffer: 4096) else { break }
        let request = "GET /.json HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        sockets.append(fd)
    }
    // Every stream has started its first put (and is stuck in it) well within this.
    usleep(3_000_000)
    let afterStreams = residentMB(fresh.process.processIdentifier, "VmHWM")
    sockets.forEach { close($0) }
    fresh.stop()
    report.add(Figure(
        name: "server peak RSS, \(sockets.count) streams of a \(Report.fmt(fileMB)) MB file that never read", unit: "MB",
        synctable: Stats([afterStreams]), peers: [(name: "after one read", stats: Stats([freshBaseline]), note: nil)],
        target: "≤ \(Report.fmt(freshBound)) MB (after one read + 4 × file + 64)", met: afterStreams <= freshBound, ratio: nil,
        note: "4 KB receive buffers; measured 3 s after the requests"))
}

/// A field of /proc/PID/status (`VmHWM`, `VmRSS`) in MB.
func residentMB(_ pid: Int32, _ field: String) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return .nan }
    return Double(line.filter { $0.isNumber }).map { $0 * 1024 / 1e6 } ?? .nan
}

/// `GET target` with `Connection: close`, read to the end; the bytes received.
private func readWhole(port: Int, target: String) -> Int {
    guard let fd = connectLoopback(port) else { return 0 }
    defer { close(fd) }
    let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    var total = 0
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = recv(fd, &chunk, chunk.count, 0)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return total }
        total += n
    }
}

// MARK: - One large PATCH

/// `PATCH /items.json` setting one member of each of n children (10k to 160k), beside
/// `synctable update` of the same file with the same object (a process that also reads and
/// parses the file); the cost per path at 160k beside at 80k (linear: the same); the same
/// PATCH at 40k and 160k paths under rules that check each path; and the longest a 1-byte PUT
/// waits while a PATCH of 160k paths is written.
private func runLargePatchBenchmark(_ report: Report, _ options: BenchOptions, binary: String, folder: String) {
    let sizes = options.quick ? [5_000, 20_000] : [10_000, 40_000, 80_000, 160_000]
    let rulesSizes = options.quick ? sizes : [40_000, 160_000]
    let runs = options.quick ? 1 : 3
    let rulesFile = folder + "/patch.rules.json"
    _ = FileManager.default.createFile(atPath: rulesFile, contents: Data(#"""
        {"rules": {".read": true, "items": {"$id": {".write": true, "score": {".validate": "newData.isNumber()"}}}}}
        """#.utf8))
    var perPath = [(n: Int, patch: Double, update: Double)]()
    var underRules = [(n: Int, patch: Double)]()
    for children in sizes {
        let original = generateCollection(children: children)
        var keys = [String]()
        var random = SplitMix64(seed: 42)
        for i in 0..<children {
            keys.append(benchKey(i, &random))
            _ = benchChild(i, &random)
        }
        func body(_ round: Int) -> [UInt8] {
            Array(("{" + keys.enumerated().map { #""\#($1)/score": \#($0 + round)"# }.joined(separator: ",") + "}").utf8)
        }
        let patchFile = folder + "/patch.json"
        _ = FileManager.default.createFile(atPath: patchFile, contents: Data(original))
        guard let server = ServedFile(binary: binary, file: patchFile) else { return }
        var round = 0
        var failed = false
        let patch = timeRuns(runs) {
            round += 1
            if !requestOnce(port: server.port, "PATCH", "/items.json", body: body(round)) { failed = true }
        }
        let held = children == sizes.last ? longestPutDuringPatch(port: server.port, body: body(round + 1)) : nil
        server.stop()
        var checked: Stats?
        if rulesSizes.contains(children) {
            _ = FileManager.default.createFile(atPath: patchFile, contents: Data(original))
            guard let ruled = ServedFile(binary: binary, file: patchFile, arguments: ["--rules", rulesFile]) else { return }
            let stats = timeRuns(runs) {
                round += 1
                if !requestOnce(port: ruled.port, "PATCH", "/items.json", body: body(round)) { failed = true }
            }
            ruled.stop()
            underRules.append((children, stats.median / Double(children)))
            checked = stats
        }
        let updateFile = folder + "/update.json"
        _ = FileManager.default.createFile(atPath: updateFile, contents: Data(original))
        let update = timeRuns(runs) {
            round += 1
            if !runUpdate(binary, file: updateFile, input: body(round)) { failed = true }
        }
        if failed { printError("serve-patch bench: a PATCH or an update failed") }
        perPath.append((children, patch.median / Double(children), update.median / Double(children)))
        report.add(Figure(
            name: "PATCH of \(children / 1000)k paths (\(Report.fmt(Double(body(0).count) / 1e6)) MB)", unit: "s",
            synctable: patch, peers: [(name: "synctable update, same paths", stats: update, note: nil)],
            target: "≤ 2 × update", met: failed ? false : patch.median <= 2 * update.median, ratio: update.median / patch.median,
            note: "the server has the file loaded; update also reads and parses it"))
        if let checked {
            report.add(Figure(
                name: "PATCH of \(children / 1000)k paths under rules (a .write and a .validate per path)", unit: "s",
                synctable: checked, peers: [(name: "the PATCH without rules", stats: patch, note: nil)],
                target: "linear (the row per path below)", met: nil, ratio: nil, note: "an unauthenticated user's request"))
        }
        if let held {
            report.add(Figure(
                name: "1-byte PUT sent while a PATCH of \(children / 1000)k paths runs, longest wait", unit: "s",
                synctable: held.put.map { Stats([$0]) }, peers: [(name: "the PATCH", stats: Stats([held.patch]), note: nil)],
                target: "≤ the PATCH's own time", met: held.put.map { $0 <= held.patch },
                ratio: nil, note: "a PUT every 20 ms from the PATCH's sending to its answer; the longest wait"))
        }
    }
    guard perPath.count >= 2, underRules.count >= 2 else { return }
    let small = perPath[perPath.count - 2], large = perPath[perPath.count - 1]
    let rows = [
        (name: "PATCH", small: small.n, a: small.patch, large: large.n, b: large.patch),
        (name: "synctable update", small: small.n, a: small.update, large: large.n, b: large.update),
        (name: "PATCH under rules", small: underRules[0].n, a: underRules[0].patch, large: underRules[1].n, b: underRules[1].patch),
    ]
    for row in rows {
        report.add(Figure(
            name: "\(row.name): time per path at \(row.large / 1000)k ÷ at \(row.small / 1000)k paths", unit: "×",
            synctable: Stats([row.b / row.a]), target: "≤ 1.5 (linear: 1)", met: row.b / row.a <= 1.5, ratio: nil,
            note: "medians of the rows above"))
    }
}

/// The longest a 1-byte PUT waits for its answer while a PATCH with `body` is in flight (a PUT
/// every 20 ms from when the PATCH is sent until its answer arrives), and the PATCH's own
/// time; nil for the PUT when none could be sent.
private func longestPutDuringPatch(port: Int, body: [UInt8]) -> (put: Double?, patch: Double) {
    let patch = PatchTime()
    let started = now()
    Thread {
        _ = requestOnce(port: port, "PATCH", "/items.json", body: body)
        patch.finish(now() - started)
    }.start()
    var longest: Double?
    while patch.seconds == nil {
        let t = now()
        guard requestOnce(port: port, "PUT", "/probe.json", body: Array("1".utf8)) else { break }
        longest = max(longest ?? 0, now() - t)
        usleep(20_000)
    }
    while patch.seconds == nil { usleep(1000) }
    return (longest, patch.seconds!)
}

/// How long a PATCH sent on another thread took; nil while it runs.
private final class PatchTime: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double?
    var seconds: Double? { lock.withLock { value } }
    func finish(_ seconds: Double) { lock.withLock { value = seconds } }
}

/// Sends a request (answer silent) and reads its whole answer; whether it was a success.
func requestOnce(port: Int, _ method: String, _ target: String, body: [UInt8]) -> Bool {
    guard let fd = connectLoopback(port) else { return false }
    defer { close(fd) }
    let head = Array("\(method) \(target)?print=silent HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
    let request = head + body
    var sent = 0
    while sent < request.count {
        let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return false }
        sent += n
    }
    var answer = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = recv(fd, &chunk, chunk.count, 0)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        answer += chunk[0..<n]
    }
    return answer.starts(with: Array("HTTP/1.1 20".utf8))
}

/// `synctable update FILE /items -` with `input` on standard input; whether it succeeded.
private func runUpdate(_ binary: String, file: String, input: [UInt8]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["update", file, "/items", "-"]
    let pipe = Pipe()
    process.standardInput = pipe
    process.standardOutput = FileHandle.nullDevice
    do { try process.run() } catch { return false }
    pipe.fileHandleForWriting.write(Data(input))
    try? pipe.fileHandleForWriting.close()
    process.waitUntilExit()
    return process.terminationStatus == 0
}
