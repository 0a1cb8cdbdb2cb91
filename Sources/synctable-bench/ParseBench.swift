// Parse throughput: SyncTable's parser against Foundation's JSONSerialization.
import Foundation
import JSONTree

func runParseBenchmarks(_ report: Report, _ options: BenchOptions) {
    for name in ["twitter", "citm_catalog", "canada"] {
        let path = options.root + "/Fixtures/bench/\(name).json"
        guard let data = FileManager.default.contents(atPath: path) else {
            printError("missing \(path)")
            continue
        }
        let bytes = [UInt8](data)
        let rounds = options.quick ? 3 : 15
        let mb = Double(bytes.count) / 1e6
        // Each sample is 20 ms of back-to-back parses, ours and Foundation's alternating,
        // so load from other processes falls on both alike.
        var oursSamples = [Double](), theirSamples = [Double]()
        _ = try! JSONDocument(parsing: bytes)
        _ = try! JSONSerialization.jsonObject(with: data)
        for _ in 0..<rounds {
            oursSamples.append(timePerRun(atLeast: 0.02) { _ = try! JSONDocument(parsing: bytes) })
            theirSamples.append(timePerRun(atLeast: 0.02) { _ = try! JSONSerialization.jsonObject(with: data) })
        }
        let ours = Stats(oursSamples), foundation = Stats(theirSamples)
        let oursMBs = throughput(ours, mb)
        let theirsMBs = throughput(foundation, mb)
        let simdjson = simdjsonSeconds(path, runs: rounds, options).map { throughput($0, mb) }
        let ratio = oursMBs.median / theirsMBs.median
        report.add(Figure(
            name: "parse \(name).json", unit: "MB/s", synctable: oursMBs,
            peers: [(name: "Foundation", stats: theirsMBs, note: nil),
                    (name: "simdjson", stats: simdjson, note: simdjson == nil ? "not installed" : nil)],
            target: name == "canada" ? "≥ 20× Foundation" : "≥ 300 MB/s and ≥ 20× Foundation",
            met: (name == "canada" || oursMBs.median >= 300) && ratio >= 20, ratio: ratio))
    }
}

/// MB/s from seconds per run (the slowest run gives the minimum throughput).
func throughput(_ seconds: Stats, _ mb: Double) -> Stats {
    Stats([mb / seconds.max, mb / seconds.median, mb / seconds.min])
}

/// Seconds per parse from the simdjson harness the Makefile builds when Debian's
/// libsimdjson-dev is installed; nil when it is not there.
func simdjsonSeconds(_ path: String, runs: Int, _ options: BenchOptions) -> Stats? {
    let harness = options.root + "/.build/bench/simdjson-parse"
    guard FileManager.default.isExecutableFile(atPath: harness) else { return nil }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: harness)
    p.arguments = [path, String(runs)]
    let pipe = Pipe()
    p.standardOutput = pipe
    guard (try? p.run()) != nil else { return nil }
    let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    let samples = out.split(separator: "\n").compactMap { Double($0) }
    return samples.isEmpty ? nil : Stats(samples)
}

/// The generated 1,000,000-child collection (about 180 MB), written once under .build/bench.
func largeCollectionPath(_ options: BenchOptions) -> String {
    let children = options.quick ? 2_000 : 1_000_000
    let path = options.root + "/.build/bench/collection-\(children).json"
    if let attrs = try? FileManager.default.attributesOfItem(atPath: path), (attrs[.size] as? Int ?? 0) > 0 {
        return path
    }
    try? FileManager.default.createDirectory(atPath: options.root + "/.build/bench", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: path, contents: Data(generateCollection(children: children)))
    return path
}

/// Peak memory of parsing the large collection, measured in a fresh process of this
/// benchmark (`--parse-memory FILE`) so nothing else in this run counts.
func runParseMemoryBenchmark(_ report: Report, _ options: BenchOptions) {
    let path = largeCollectionPath(options)
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    var samples = [Double]()
    for _ in 0..<(options.quick ? 1 : 3) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        p.arguments = ["--parse-memory", path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try? p.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        if let peak = Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) { samples.append(peak) }
    }
    let ratio = Stats(samples.map { $0 / Double(size) })
    report.add(Figure(
        name: "peak memory, parsed \(size / 1_000_000) MB file", unit: "× file size", synctable: ratio,
        target: "≤ 3× file size", met: ratio.median <= 3,
        note: "peak \(Report.fmt(Stats(samples).median / 1e6)) MB (process total: bytes read + tape + runtime)"))
}

/// `--parse-memory FILE`: read and parse FILE, print this process's peak resident bytes.
func parseMemoryMode(_ path: String) -> Never {
    guard let bytes = readWholeFile(path) else { exit(2) }
    let doc = try! JSONDocument(parsing: bytes)
    withExtendedLifetime(doc) { print(peakResidentBytes()) }
    exit(0)
}

/// Reads a file straight into one byte array (as the store does: no second copy).
func readWholeFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0 else { return nil }
    let size = Int(st.st_size)
    var done = 0
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
        while done < size {
            let n = read(fd, buf.baseAddress! + done, size - done)
            if n <= 0 { break }
            done += n
        }
        count = done
    }
    return done == size ? bytes : nil
}
