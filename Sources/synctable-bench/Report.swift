// The benchmark report: one row per figure, SyncTable's value beside each peer's,
// measured in the same run, with the target. Printed as a table and written as JSON.
#if canImport(Glibc)
import Glibc
#endif

/// Medians with their spread, from repeated runs.
struct Stats: Sendable {
    var median: Double
    var min: Double
    var max: Double

    init(_ samples: [Double]) {
        let s = samples.sorted()
        median = s.isEmpty ? .nan : (s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2)
        min = s.first ?? .nan
        max = s.last ?? .nan
    }
}

/// One row of the report.
struct Figure: Sendable {
    var name: String
    var unit: String
    var synctable: Stats?
    /// Each peer's figure, or a note such as "not installed".
    var peers: [(name: String, stats: Stats?, note: String?)] = []
    /// Target, in words ("≥ 300 MB/s", "≤ 50 ms").
    var target: String
    /// Whether the target is met, when it can be judged.
    var met: Bool?
    /// SyncTable's advantage over the first measured peer (higher is better for SyncTable).
    var ratio: Double?
    var note: String = ""
}

/// Monotonic seconds.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Runs `body` `runs` times (after one warm-up) and returns the seconds each took.
func timeRuns(_ runs: Int, warmup: Int = 1, _ body: () throws -> Void) rethrows -> Stats {
    for _ in 0..<warmup { try body() }
    var samples = [Double]()
    for _ in 0..<runs {
        let t = now()
        try body()
        samples.append(now() - t)
    }
    return Stats(samples)
}

/// Seconds per run of `body`, run back to back for at least `minimum` seconds: one sample
/// of something too quick to time alone (a timer read, or a preemption, would be much
/// of one run).
func timePerRun(atLeast minimum: Double, _ body: () throws -> Void) rethrows -> Double {
    var runs = 0
    let t = now()
    var elapsed = 0.0
    repeat {
        try body()
        runs += 1
        elapsed = now() - t
    } while elapsed < minimum
    return elapsed / Double(runs)
}

/// Peak resident memory of this process so far, in bytes (VmHWM).
func peakResidentBytes() -> Int {
    guard let f = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
        let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if s.hasPrefix("VmHWM:") {
            let digits = s.filter { $0.isNumber }
            return (Int(digits) ?? 0) * 1024
        }
    }
    return 0
}

final class Report {
    private(set) var figures: [Figure] = []

    func add(_ figure: Figure) {
        figures.append(figure)
        print(Report.line(figure))
        fflush(nil)
    }

    static func format(_ s: Stats?, _ unit: String) -> String {
        guard let s else { return "-" }
        return "\(fmt(s.median)) \(unit) [\(fmt(s.min))–\(fmt(s.max))]"
    }

    static func fmt(_ v: Double) -> String {
        if v.isNaN { return "nan" }
        let a = abs(v)
        let digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3
        var s = String(Int((v * pow(10, Double(digits))).rounded()))
        if digits > 0 {
            let neg = s.hasPrefix("-")
            if neg { s.removeFirst() }
            while s.count <= digits { s = "0" + s }
            s.insert(".", at: s.index(s.endIndex, offsetBy: -digits))
            if neg { s = "-" + s }
        }
        return s
    }

    static func line(_ f: Figure) -> String {
        var parts = ["\(f.name): synctable \(format(f.synctable, f.unit))"]
        for p in f.peers {
            parts.append("\(p.name) " + (p.stats.map { format($0, f.unit) } ?? (p.note ?? "-")))
        }
        if let r = f.ratio { parts.append("ratio \(fmt(r))×") }
        parts.append("target \(f.target)" + (f.met.map { $0 ? " (met)" : " (MISSED)" } ?? ""))
        if !f.note.isEmpty { parts.append(f.note) }
        return parts.joined(separator: " | ")
    }

    /// The rows as JSON, for tracking over time.
    func json() -> String {
        func str(_ s: String) -> String {
            var out = "\""
            for c in s.unicodeScalars {
                switch c {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default: out.unicodeScalars.append(c)
                }
            }
            return out + "\""
        }
        func num(_ v: Double) -> String { v.isFinite ? "\(v)" : "null" }
        func stats(_ s: Stats?) -> String {
            guard let s else { return "null" }
            return "{\"median\":\(num(s.median)),\"min\":\(num(s.min)),\"max\":\(num(s.max))}"
        }
        let rows = figures.map { f in
            let peers = f.peers.map { "{\"name\":\(str($0.name)),\"value\":\(stats($0.stats)),\"note\":\($0.note.map(str) ?? "null")}" }
            return "{\"figure\":\(str(f.name)),\"unit\":\(str(f.unit)),\"synctable\":\(stats(f.synctable)),"
                + "\"peers\":[\(peers.joined(separator: ","))],\"ratio\":\(f.ratio.map(num) ?? "null"),"
                + "\"target\":\(str(f.target)),\"met\":\(f.met.map { $0 ? "true" : "false" } ?? "null"),\"note\":\(str(f.note))}"
        }
        return "[\n  " + rows.joined(separator: ",\n  ") + "\n]\n"
    }
}
