// Issue 44: a viewer is passive. Another program's write to the file it follows (open, write,
// close) takes as long with `synctable events` attached as without, also while the viewer's
// first read of a 150 MB file runs and right after it (where a read lease once made it wait
// 40–310 ms for a copy).
#if canImport(Glibc)
import Glibc
#endif
import Foundation

func runLargeWriterBenchmarks(_ report: Report, _ options: BenchOptions) {
    guard let (binary, folder, path, file) = largeFile(options) else { return }
    defer { _ = shellStatus("rm -rf '\(folder)'") }
    let attachments = options.quick ? 1 : 5
    var scores = 0
    /// One writer's `open` + `pwrite` of one score + `close`, in milliseconds.
    func write() -> Double {
        scores += 1
        let digits = Array(String(900_000 + scores % 100_000).utf8)
        let start = now()
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = pwrite(fd, digits, digits.count, off_t(file.scoreOffset(scores % file.children)))
            close(fd)
        }
        return (now() - start) * 1000
    }
    var alone = [Double]()
    for _ in 0..<(3 * attachments) {
        alone.append(write())
        usleep(50_000)
    }
    for engine in ["tuned", "plain"] {
        setenv(engineVariable, engine, 1)
        defer { unsetenv(engineVariable) }
        var during = [Double](), after = [Double]()
        for _ in 0..<attachments {
            guard let events = LineReadingProcess([binary, "events", path, "--path", "/players", "--order-by-child", "score",
                                                   "--limit-to-last", "20"]) else { return }
            // While its first read runs (the parse of 150 MB takes longer than this).
            usleep(50_000)
            during.append(write())
            guard events.readLines(untilPrefix: #"{"event":"value""#, seconds: 120) != nil else {
                printError("large file: synctable events printed no first window")
                events.stop()
                return
            }
            // Right after its first window, and after the next one.
            after.append(write())
            _ = events.readLines(untilPrefix: #"{"event":"value""#, seconds: 30)
            after.append(write())
            events.stop()
        }
        let without = Stats(alone), with = Stats(during + after)
        report.add(Figure(
            name: "large: a writer's open+write+close with a viewer attached (\(engine))", unit: "ms", synctable: with,
            peers: [(name: "no viewer", stats: without, note: nil)],
            target: "as without, within noise (median ≤ +1 ms)", met: with.median <= without.median + 1,
            note: "during the viewer's first read: median \(Report.fmt(Stats(during).median)) ms, max "
                + "\(Report.fmt(Stats(during).max)) ms; after it: median \(Report.fmt(Stats(after).median)) ms, max "
                + "\(Report.fmt(Stats(after).max)) ms"))
    }
}

/// The environment variable by which `synctable` runs with the plain engine (`plain`) instead
/// of the tuned one it opts into.
let engineVariable = "SYNCTABLE_ENGINE"
