// `synctable serve` under load: an edit of the file fanned out to 1,000 streams, and queries
// per second with wrk beside the same server's static read.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

func runServeBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let (binary, folder) = releaseBinaryAndFolder(options, "serve") else { return }
    runStreamFanOutBenchmark(report, options, binary: binary, folder: folder)
    runQueryThroughputBenchmark(report, options, binary: binary, folder: folder)
}

// MARK: - Streams

/// Each of `clients` streams of `/n` waits for the event of each edit of the file (a rename by
/// this process, as an editor saves); latency from just before the rename to the event's arrival.
private func runStreamFanOutBenchmark(_ report: Report, _ options: BenchOptions, binary: String, folder: String) {
    let file = folder + "/streams.json"
    let clients = options.quick ? 20 : 1000
    let edits = options.quick ? 3 : 20
    saveByRename(file, #"{"n": 0, "other": "x"}"#)
    guard let server = ServedFile(binary: binary, file: file) else { return }
    func measure(_ count: Int, edits: Int, firstValue: Int) -> [Double]? {
        guard let streams = StreamClients(port: server.port, path: "/n.json", count: count) else { return nil }
        var latencies = [Double]()
        for edit in 0..<edits {
            let value = firstValue + edit
            let start = now()
            saveByRename(file, #"{"n": \#(value), "other": "x"}"#)
            guard let arrivals = streams.waitForAll(containing: #""data":\#(value)}"#, seconds: 30) else {
                printError("serve bench: not every stream received edit \(value)")
                return nil
            }
            latencies += arrivals.map { ($0 - start) * 1000 }
        }
        return latencies
    }
    guard let fanOut = measure(clients, edits: edits, firstValue: 1),
          let single = measure(1, edits: edits, firstValue: 1000) else { return }
    let p50 = percentile(fanOut, 0.5), p99 = percentile(fanOut, 0.99)
    report.add(Figure(
        name: "edit of the file → event at each of \(clients) streams, p50", unit: "ms",
        synctable: Stats([p50]), peers: [(name: "1 stream, p50", stats: Stats([percentile(single, 0.5)]), note: nil)],
        target: "≤ 10 ms", met: p50 <= 10, ratio: nil,
        note: "\(edits) edits by rename; from before the rename to the event's arrival, over all streams"))
    report.add(Figure(
        name: "edit of the file → event at each of \(clients) streams, p99", unit: "ms",
        synctable: Stats([p99]), peers: [(name: "1 stream, p99", stats: Stats([percentile(single, 0.99)]), note: nil)],
        target: "≤ 50 ms", met: p99 <= 50, ratio: nil, note: "the same samples"))
    server.stop()
}

/// `count` open streams, read together with `poll(2)`; each wait polls only the streams still
/// waiting, so the client's own cost shrinks as events arrive.
final class StreamClients {
    private var fds = [Int32]()
    private var received: [[UInt8]]

    init?(port: Int, path: String, count: Int) {
        received = Array(repeating: [], count: count)
        for _ in 0..<count {
            guard let fd = connectLoopback(port) else {
                printError("serve bench: cannot open stream \(fds.count + 1): \(String(cString: strerror(errno)))")
                return nil
            }
            fds.append(fd)
            let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }
        // Every stream has its first event before the edits begin.
        guard waitForAll(containing: "event: put", seconds: 60) != nil else {
            printError("serve bench: the streams did not all start")
            return nil
        }
    }

    deinit { fds.forEach { close($0) } }

    /// Waits until every stream has received `text` since the last call; the time each did.
    func waitForAll(containing text: String, seconds: Double) -> [Double]? {
        let needle = Array(text.utf8)
        var arrivals = [Double?](repeating: nil, count: fds.count)
        var waiting = Array(fds.indices)
        let deadline = now() + seconds
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !waiting.isEmpty {
            guard now() < deadline else { return nil }
            var polls = waiting.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
            let t = now()
            for (slot, p) in polls.enumerated() where p.revents != 0 {
                let i = waiting[slot]
                let n = recv(fds[i], &chunk, chunk.count, Int32(MSG_DONTWAIT))
                guard n > 0 else { continue }
                received[i] += chunk[0..<n]
                if received[i].firstRange(of: needle) != nil {
                    arrivals[i] = t
                    received[i].removeAll(keepingCapacity: true)
                }
            }
            waiting.removeAll { arrivals[$0] != nil }
        }
        return arrivals.map { $0! }
    }
}

/// A loopback connection to `port`; with `receiveBuffer`, that small a receive buffer (a client
/// that reads slowly).
func connectLoopback(_ port: Int, receiveBuffer: Int32? = nil) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard rc == 0 else {
        close(fd)
        return nil
    }
    return fd
}

// MARK: - Queries per second

/// wrk on loopback: a limited query (limitToLast 50 by child) of a 10,000-child collection,
/// beside the same server's read of a static 1 KB value (the server's ceiling).
private func runQueryThroughputBenchmark(_ report: Report, _ options: BenchOptions, binary: String, folder: String) {
    let candidates: [String] = ["/usr/bin/wrk", "/usr/local/bin/wrk"]
    guard let wrk = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        report.add(Figure(name: "GET limitToLast 50 by child, 10,000 children", unit: "req/s", synctable: nil,
                          peers: [(name: "static 1 KB value", stats: nil, note: "wrk not installed")],
                          target: "≥ 5,000 req/s", met: nil, ratio: nil, note: "apt-get install wrk"))
        return
    }
    let file = folder + "/collection.json"
    var bytes = generateCollection(children: 10_000)
    // A static 1 KB value beside the collection: `{"static": "…", "items": {…}}`.
    bytes.insert(contentsOf: Array((#"  "static": ""# + String(repeating: "s", count: 1024) + "\",\n").utf8), at: 2)
    FileManager.default.createFile(atPath: file, contents: Data(bytes))
    guard let server = ServedFile(binary: binary, file: file) else { return }
    let seconds = options.quick ? 1 : 5
    let runs = options.quick ? 1 : 3
    func rate(_ target: String) -> Stats? {
        var samples = [Double]()
        for _ in 0..<runs {
            let output = runProgram([wrk, "-t2", "-c32", "-d\(seconds)s", "http://127.0.0.1:\(server.port)\(target)"])
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
                  let value = Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: CharacterSet.whitespaces)),
                  !output.contains("Non-2xx")
            else {
                printError("serve bench: wrk failed: \(output)")
                return nil
            }
            samples.append(value)
        }
        return Stats(samples)
    }
    let query = rate(#"/items.json?orderBy=%22score%22&limitToLast=50"#)
    let ceiling = rate("/static.json")
    report.add(Figure(
        name: "GET limitToLast 50 by child, 10,000 children", unit: "req/s", synctable: query,
        peers: [(name: "static 1 KB value", stats: ceiling, note: nil)],
        target: "≥ 5,000 req/s", met: query.map { $0.median >= 5000 }, ratio: nil,
        note: "wrk -t2 -c32 on loopback, \(seconds) s × \(runs), server and wrk on the same cores"))
    server.stop()
}

/// Runs a program to its end; its standard output and error.
private func runProgram(_ arguments: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do { try process.run() } catch { return "\(error)" }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

// MARK: - The server

/// `synctable serve FILE --port 0` as a child process.
final class ServedFile {
    let process = Process()
    let port: Int

    /// Serves `file` on `port` (0: a free one), with `serve`'s other `arguments`.
    init?(binary: String, file: String, port: Int = 0, arguments: [String] = []) {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", file, "--port", String(port)] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch {
            printError("serve bench: cannot start \(binary): \(error)")
            return nil
        }
        // "listening on http://127.0.0.1:PORT"
        var line = [UInt8]()
        let handle = pipe.fileHandleForReading
        while let byte = try? handle.read(upToCount: 1), let b = byte.first, b != 0x0A { line.append(b) }
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            printError("serve bench: the server did not start: \(text)")
            process.terminate()
            return nil
        }
        self.port = port
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// Ends the server at once (SIGKILL: its clients get no goodbye).
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// Replaces `path` with `text` by rename, as an editor saves.
func saveByRename(_ path: String, _ text: String) {
    let temporary = path + ".tmp"
    FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8))
    rename(temporary, path)
}
