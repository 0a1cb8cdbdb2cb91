// `synctable events` following a large file edited by another process (issues 44 and 54): how
// long an edit takes to reach its events line, in place and by rename, and the memory held
// meanwhile, tuned and plain side by side in the same run.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The query both followers use: the 20 best scores, which every edit enters.
let topScores = ["--path", "/players", "--order-by-child", "score", "--limit-to-last", "20"]

/// How an edit is saved.
enum SaveStyle: CaseIterable {
    /// `open(O_TRUNC)`, one `write`, `close`: the whole file rewritten where it is, as editors
    /// that keep the inode do.
    case inPlace
    /// A temporary file written, then renamed over the file.
    case renamed
}

/// Saves `file` with child `edit`'s pick given a score above every generated one, `style`;
/// with `lengthChange`, half the edits give a score one digit longer (the file grows a byte). Returns
/// the child, its score (this edit's own: no other edit of a run sets it), the monotonic time
/// right before the save's close or rename, and for a rename how long the writer's `rename` took.
func saveEdit(_ file: inout PlayersFile, _ edit: Int, to path: String, _ style: SaveStyle,
              lengthChange: Bool = false) -> (child: Int, score: Int, savedAt: Double, renameMs: Double?) {
    // With `lengthChange`, every score has seven digits (above every six-digit one) and grows
    // with the edit, so that each edit enters the top (a six-digit one stopped entering once
    // twenty seven-digit ones were there): edits 0 and 1 of every four give a new child seven
    // digits (the file grows a byte), edits 2 and 3 give edit 1's child a higher score of the
    // same length.
    let pick = lengthChange && edit % 4 >= 2 ? edit - edit % 4 + 1 : edit
    let child = Int(UInt64(pick + 1) &* 0x9E37_79B9 % UInt64(file.children))
    let score = lengthChange ? 1_000_000 + edit : 900_000 + edit % 100_000
    file.setScore(child, score)
    // Timed from before the call that ends the save (the close, the rename): the follower,
    // woken inside it, may run before this thread does, and a clock read after the call would
    // miss that time (a rename's edit once measured 0.026 ms).
    var savedAt = 0.0
    switch style {
    case .inPlace:
        writeFileInPlace(path, file.bytes, beforeClose: { savedAt = now() })
        return (child, score, savedAt, nil)
    case .renamed:
        // Synced before the rename, as a careful save is (and `synctable set`'s): unsynced,
        // ext4 writes the new file out inside the rename that replaces a file (6–70 ms here)
        // before anyone can see the edit, and that is the writer's time, not the follower's.
        writeFileInPlace(path + ".tmp", file.bytes, sync: true)
        savedAt = now()
        rename(path + ".tmp", path)
        return (child, score, savedAt, (now() - savedAt) * 1000)
    }
}

/// The style of edit `k` of a follower: in place and by rename in turn.
func style(ofEdit k: Int) -> SaveStyle { k % 2 == 0 ? .inPlace : .renamed }

/// What a follower measured: latencies by style, held memory (Pss) sampled every 5 ms over
/// the sampled edits, and the resident counts after them.
struct FollowFigures {
    var latencies: [SaveStyle: [Double]] = [.inPlace: [], .renamed: []]
    /// The writer's `rename` calls of the timed saves by rename, in ms, as this thread timed
    /// them (a wait for a core after the call counts too).
    var renames: [Double] = []
    /// Held memory once settled after the sampled edits, and the most sampled during them.
    var held: (last: Int, peak: Int)?
    var resident: [Resident] = []
    var hwmAfterReset: Resident?
    var missed = 0
    /// Events batches that did not carry the edit being timed (a save that made two revisions
    /// that changed the window): skipped, not taken as that edit's.
    var otherBatches = 0
    /// In-place saves whose events were already waiting when the bench's thread ran again after
    /// the last write: the follower did its work while this thread waited for a core, so their
    /// time is unknown.
    var untimed = 0
    /// The follower's CPU time (user + system) per timed edit, in ms: what an edit costs it
    /// whatever else the machine runs (its latency on a loaded machine is mostly waiting).
    var cpuPerEdit: Double?
    var all: [Double] { latencies[.inPlace]! + latencies[.renamed]! }

    /// Ends the sampled edits: the peak sampled, then, once the last revision has settled, the
    /// resident counts and the held memory.
    mutating func stopSampling(_ sampler: HeldMemorySampler, _ pid: pid_t) {
        let sampled = sampler.stop()
        hwmAfterReset = settledResident(pid)
        let steady = HeldMemorySampler.held(pid) ?? sampled.last
        held = (steady, max(sampled.peak, steady))
    }
}

/// Follows `timed` edits (half in place, half by rename) timing each edit → events line with
/// nothing else sampling the process, then `sampled` more with its held memory sampled every
/// 5 ms (walking its page tables would add to the latencies) and its VmHWM reset before them;
/// then `rest` more, the resident size after the first and after each tenth of them. Nil when
/// the follower did not start.
func followEdits(binary: String, path: String, file: inout PlayersFile, edit: inout Int, timed: Int, sampled: Int, rest: Int = 0,
                 lengthChanges: Bool = false) -> FollowFigures? {
    guard let events = LineReadingProcess([binary, "events", path] + topScores) else { return nil }
    defer { events.stop() }
    guard events.readLines(untilPrefix: #"{"event":"value""#, seconds: 600) != nil else {
        printError("large file: synctable events printed no first window")
        return nil
    }
    var figures = FollowFigures()
    var sampler: HeldMemorySampler?
    defer { _ = sampler?.stop() }
    let cpuStart = processCPUSeconds(events.pid)
    // About eleven resident samples over the rest: the resident row compares the lowest of
    // three at each end.
    let residentEvery = max(1, rest / 10)
    for k in 0..<(timed + sampled + rest) {
        if k == timed { figures.cpuPerEdit = (processCPUSeconds(events.pid) - cpuStart) * 1000 / Double(timed) }
        if k == timed {
            resetPeakResident(events.pid)
            sampler = HeldMemorySampler(events.pid)
        }
        if k == timed + sampled, let s = sampler {
            figures.stopSampling(s, events.pid)
            sampler = nil
        }
        let saveStyle = style(ofEdit: k)
        let (child, score, savedAt, renameMs) = saveEdit(&file, edit, to: path, saveStyle, lengthChange: lengthChanges)
        edit += 1
        // An in-place save's clock is read after its last write, whose IN_MODIFY may have woken
        // the follower already; a rename's before the call (never short: the follower's time
        // while this thread waits for a core counts).
        let early = saveStyle == .inPlace && events.hasOutput()
        guard let others = readBatch(of: events, holding: child, score: score, seconds: 60) else {
            printError("large file: edit \(k) of \(PlayersFile.key(child)) not in its events")
            figures.missed += 1
            return figures
        }
        let latency = (now() - savedAt) * 1000
        figures.otherBatches += others
        if k < timed && early { figures.untimed += 1 }
        if k < timed && !early { figures.latencies[saveStyle]!.append(latency) }
        if k < timed, let renameMs { figures.renames.append(renameMs) }
        if k >= timed + sampled && ((k + 1 - timed - sampled) % residentEvery == 0 || k == timed + sampled),
           var rss = settledResident(events.pid) {
            rss.editedPages = file.editedPages.count
            figures.resident.append(rss)
        }
    }
    if let s = sampler {
        figures.stopSampling(s, events.pid)
        sampler = nil
    }
    return figures
}

/// Reads `events`' batches (its lines up to a value line) until one carries child `child` with
/// `score`, so that each edit is timed to its own batch, never to one left over from the edit
/// before. Returns how many batches came before it; nil when none carried it within `seconds`.
func readBatch(of events: LineReadingProcess, holding child: Int, score: Int, seconds: Double) -> Int? {
    let key = "\"key\":\"\(PlayersFile.key(child))\"", value = "\"score\":\(score),"
    let deadline = now() + seconds
    var others = 0
    while let lines = events.readLines(untilPrefix: #"{"event":"value""#, seconds: max(0, deadline - now())) {
        if lines.contains(where: { $0.contains(key) && $0.contains(value) }) { return others }
        others += 1
    }
    return nil
}

/// The edit → events rows of one engine. Tuned rows carry the issue's targets; plain rows are
/// judged against tuned's figure of the same run (`tuned`, by row name), within 2×.
func addLatencyRows(_ report: Report, _ figures: FollowFigures, prefix: String, engine: String, targets: (p50: Double, p99: Double?),
                    tuned: inout [String: Double]) {
    let all = figures.all
    let inPlace = figures.latencies[.inPlace]!, renamed = figures.latencies[.renamed]!
    let rows: [(String, [Double], Double, Double?)] = [
        ("edit → events line p50", all, Stats(all).median, targets.p50),
        ("edit → events line p99", all, percentile(all, 0.99), targets.p99),
        ("edit → events line, in place p50", inPlace, Stats(inPlace).median, targets.p50),
        ("edit → events line, temp+rename p50", renamed, Stats(renamed).median, targets.p50),
    ]
    for (row, samples, value, target) in rows {
        let name = "\(prefix): \(row)"
        let stats = row.hasSuffix("p99") ? Stats([value]) : Stats(samples)
        let note = "\(samples.count) edits; p99 \(Report.fmt(percentile(samples, 0.99))) ms, max \(Report.fmt(samples.max() ?? .nan)) ms"
            + (figures.cpuPerEdit.map { "; follower CPU \(Report.fmt($0)) ms an edit" } ?? "")
            + (figures.missed > 0 ? "; \(figures.missed) edits missing from their events" : "")
            + (figures.otherBatches > 0 ? "; \(figures.otherBatches) batches without the timed edit skipped" : "")
            + (figures.untimed > 0 ? "; \(figures.untimed) in-place edits untimed (answered before the bench's thread ran again)" : "")
            + (row.contains("rename") && !figures.renames.isEmpty
                ? "; the writer's rename took \(Report.fmt(Stats(figures.renames).median)) ms p50, \(Report.fmt(figures.renames.max()!)) ms max" : "")
        if engine.isEmpty {
            tuned[name] = value
            report.add(Figure(name: name, unit: "ms", synctable: stats, target: target.map { "≤ \(Report.fmt($0)) ms" } ?? "-",
                              met: target.map { value <= $0 && figures.missed == 0 }, note: note))
        } else {
            let peer = tuned[name]
            report.add(Figure(name: name + engine, unit: "ms", synctable: stats,
                              target: "≤ 2× tuned" + (peer.map { " (\(Report.fmt(2 * $0)) ms)" } ?? ""),
                              met: peer.map { value <= 2 * $0 && figures.missed == 0 },
                              ratio: peer.map { value / $0 }, note: "× tuned in the ratio column; " + note))
        }
    }
}

/// Memory held while following (issues 44 and 54): held memory (Pss) at the last sample
/// (steady) and the most sampled (peak), each ÷ the file. A page mapped twice counts once in
/// Pss; the resident counts (VmRSS, and VmHWM since it was reset before the sampled edits) count
/// it twice, and are in the note.
func addHeldMemoryRow(_ report: Report, _ name: String, _ figures: FollowFigures, size: Int, steadyTarget: Double, peakTarget: Double?) {
    guard let held = figures.held, held.last > 0 else {
        report.add(Figure(name: name, unit: "× file", synctable: nil, target: "-", met: false, note: "no sample"))
        return
    }
    let file = Double(size), steady = Double(held.last) / file, peak = Double(held.peak) / file
    func mb(_ bytes: Int) -> String { Report.fmt(Double(bytes) / 1e6) }
    let hwm = figures.hwmAfterReset.map { "; VmRSS \(mb($0.total)) MB, VmHWM \(mb($0.peak)) MB (\(Report.fmt(Double($0.peak) / file)) ×)" } ?? ""
    let target = "steady ≤ \(Report.fmt(steadyTarget))×" + (peakTarget.map { ", peak ≤ \(Report.fmt($0))×" } ?? "")
    report.add(Figure(name: name, unit: "× file", synctable: Stats([steady]), target: target,
                      met: steady <= steadyTarget && peakTarget.map { peak <= $0 } ?? true,
                      note: "held (Pss) \(mb(held.last)) MB, peak \(mb(held.peak)) MB (\(Report.fmt(peak)) ×)" + hwm))
}

/// Samples a process's held memory (Pss of `/proc/PID/smaps_rollup`) every 5 ms on a thread
/// of its own until `stop`: a revision's read lasts tens of milliseconds.
final class HeldMemorySampler: @unchecked Sendable {
    // @unchecked: the fields are read and written under `lock`.
    private let lock = NSLock()
    private var stopped = false, last = 0, peak = 0
    private let done = DispatchSemaphore(value: 0)

    init(_ pid: pid_t) {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ stopped }) {
                if let pss = Self.held(pid) { lock.withLock { (last, peak) = (pss, max(peak, pss)) } }
                usleep(5_000)
            }
            done.signal()
        }
    }

    /// Stops sampling: the last sample and the most seen, in bytes.
    func stop() -> (last: Int, peak: Int) {
        lock.withLock { stopped = true }
        done.wait()
        return lock.withLock { (last, peak) }
    }

    static func held(_ pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") })
        else { return nil }
        return (Int(line.filter(\.isNumber)) ?? 0) * 1024
    }
}

/// Resets a process's VmHWM to its resident size now (`clear_refs` 5), so that it tells the
/// peak of what follows rather than of the first read.
func resetPeakResident(_ pid: pid_t) {
    guard let f = fopen("/proc/\(pid)/clear_refs", "w") else { return }
    fputs("5", f)
    fclose(f)
}

/// Resident size of process `pid` once the revision it just showed has settled (the previous
/// revision released).
func settledResident(_ pid: pid_t) -> Resident? {
    usleep(200_000)
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    var resident = Resident()
    for line in status.split(separator: "\n") {
        let kb = (Int(line.filter(\.isNumber)) ?? 0) * 1024
        if line.hasPrefix("VmRSS:") { resident.total = kb }
        if line.hasPrefix("RssAnon:") { resident.anonymous = kb }
        if line.hasPrefix("RssFile:") { resident.file = kb }
        if line.hasPrefix("VmHWM:") { resident.peak = kb }
    }
    return resident.total > 0 ? resident : nil
}

/// `synctable events` following a child inserted into the players object, saved by rename,
/// 10 times (2 when quick), each new key right after its neighbour's (in key order): each
/// insert moves every byte and tape entry after it, where the edits above move none or a byte.
/// Timed from before the rename to the events line that carries the new child (its score
/// enters the window's top). Tuned unjudged; plain within 2 × of tuned, as every large-file row.
func largeInserts(_ report: Report, _ options: BenchOptions, binary: String, path: String, file: inout PlayersFile,
                  inserted: inout Int, engine: String, prefix: String = "large") {
    guard let events = LineReadingProcess([binary, "events", path] + topScores) else { return }
    defer { events.stop() }
    guard events.readLines(untilPrefix: #"{"event":"value""#, seconds: 600) != nil else {
        printError("large file: synctable events printed no first window")
        return
    }
    var latencies = [Double]()
    for _ in 0..<(options.quick ? 2 : 10) {
        // Before a child in the middle half, its key just after its neighbour's: keys stay in order.
        let before = file.children / 4 + Int(UInt64(inserted + 1) &* 0x9E37_79B9 % UInt64(file.children / 2))
        let key = PlayersFile.key(before - 1) + "a"
        file.insertChild(before: before, key: key, score: 2_000_000 + inserted)
        inserted += 1
        writeFileInPlace(path + ".tmp", file.bytes, sync: true)
        let savedAt = now()
        rename(path + ".tmp", path)
        var seen = false
        while !seen, let lines = events.readLines(untilPrefix: #"{"event":"value""#, seconds: 60) {
            seen = lines.contains { $0.contains("\"key\":\"\(key)\"") }
        }
        guard seen else {
            printError("large file: inserted child \(key) not in its events")
            return
        }
        latencies.append((now() - savedAt) * 1000)
    }
    let name = "\(prefix): insert a child → events line p50", stats = Stats(latencies)
    let judged = engine.isEmpty ? nil : EngineTarget(report, name, engine: engine, median: stats.median, tunedTarget: 0, unit: "ms")
    report.add(Figure(name: name + engine, unit: "ms", synctable: stats, target: judged?.text ?? "-", met: judged?.met,
                      note: (judged?.note ?? "") + "\(latencies.count) children inserted among \(file.children) by rename; "
                          + "the first compares every key (docs/engine/gigabyte.md, \"Step 6\")"))
}
