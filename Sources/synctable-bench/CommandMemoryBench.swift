// Peak memory of whole `synctable` commands (`list`, `set`) on large files, as multiples of
// the file's size: a child process each, its peak resident set read with wait4(2).
#if canImport(Glibc)
import Glibc
#endif
import Foundation

func runCommandMemoryBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let (binary, folder) = releaseBinaryAndFolder(options, "command-memory") else { return }
    let elements = options.quick ? 70_000 : 7_000_000
    let stringBytes = options.quick ? 2_000_000 : 200_000_000
    let array = folder + "/array-\(elements).json", string = folder + "/string-\(stringBytes).json"
    if access(array, F_OK) != 0 {
        var rng = SystemRandomNumberGenerator()
        let text = "[" + (0..<elements).map { _ in String(UInt32.random(in: 0...999_999, using: &rng)) }.joined(separator: ",") + "]"
        _ = FileManager.default.createFile(atPath: array, contents: Data(text.utf8))
    }
    if access(string, F_OK) != 0 {
        _ = FileManager.default.createFile(atPath: string, contents: Data((#"{"s":""# + String(repeating: "x", count: stringBytes) + #""}"#).utf8))
    }
    for (file, what) in [(array, "array of \(elements / 1_000_000 > 0 ? "\(elements / 1_000_000)M" : "\(elements)") elements"),
                         (string, "single string")] {
        let size = fileSize(file)
        let mb = "\(size / 1_000_000) MB"
        let list = peakOfCommand([binary, "list", file, "--format", "json"])
        report.add(memoryFigure("peak memory, list of a \(mb) \(what)", list, size))
        let copy = folder + "/written.json"
        _ = try? FileManager.default.removeItem(atPath: copy)
        try? FileManager.default.copyItem(atPath: file, toPath: copy)
        let set = peakOfCommand([binary, "set", copy, file == array ? "/5" : "/t", "1"])
        report.add(memoryFigure("peak memory, set in a \(mb) \(what)", set, size))
        _ = try? FileManager.default.removeItem(atPath: copy)
    }
    // A log read whole (a query of its oldest lines needs every record, unlike its newest).
    let lines = options.quick ? 10_000 : 1_000_000
    let log = folder + "/log-\(lines).jsonl"
    if access(log, F_OK) != 0 {
        let text = (0..<lines).map { #"{"ts":\#(1_700_000_000_000 + $0),"level":"info","n":\#($0),"msg":"request \#(String(repeating: "x", count: 40))"}"# }
            .joined(separator: "\n") + "\n"
        _ = FileManager.default.createFile(atPath: log, contents: Data(text.utf8))
    }
    let size = fileSize(log)
    let list = peakOfCommand([binary, "list", log, "--limit-to-first", "5", "--format", "json"])
    report.add(memoryFigure("peak memory, list of a \(size / 1_000_000) MB log of \(lines) lines (every line read)", list, size))
}

private func memoryFigure(_ name: String, _ peak: (bytes: Int, seconds: Double)?, _ size: Int) -> Figure {
    guard let peak, size > 0 else {
        return Figure(name: name, unit: "× file size", synctable: nil, target: "≤ 3× file size", met: nil, note: "the command failed")
    }
    let ratio = Double(peak.bytes) / Double(size)
    return Figure(name: name, unit: "× file size", synctable: Stats([ratio]), target: "≤ 3× file size", met: ratio <= 3,
                  note: "peak \(Report.fmt(Double(peak.bytes) / 1e6)) MB in \(Report.fmt(peak.seconds)) s (whole process)")
}

private func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : 0
}

/// Runs `argv` with its output to /dev/null; its peak resident bytes and wall time, or nil
/// when it fails. Measured by a fresh process of this benchmark (`--peak-of`): Linux keeps a
/// process's peak across `exec`, so a command spawned straight from this large process would
/// report this process's peak when it is the larger.
func peakOfCommand(_ argv: [String]) -> (bytes: Int, seconds: Double)? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    p.arguments = ["--peak-of"] + argv
    let pipe = Pipe()
    p.standardOutput = pipe
    guard (try? p.run()) != nil else { return nil }
    let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    let fields = out.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    guard p.terminationStatus == 0, fields.count == 2, let bytes = Int(fields[0]), let seconds = Double(fields[1]) else { return nil }
    return (bytes, seconds)
}

/// `--peak-of PROGRAM ARG…`: runs the program with its output to /dev/null and prints its peak
/// resident bytes and wall seconds; exit status 1 when it fails.
func peakOfMode(_ argv: [String]) -> Never {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let cArgs = argv.map { strdup($0) } + [nil]
    var pid = pid_t()
    let start = now()
    guard !argv.isEmpty, posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ) == 0 else { exit(1) }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    guard status == 0 else { exit(1) }
    print(Int(usage.ru_maxrss) * 1024, now() - start)
    exit(0)
}
