// Synced array: the work per revision is bounded by the window, not by the number of children.
import FileStore
import Foundation
import JSONTree
import LiveQuery
import SyncedArray
import SeededRandom

/// Records when each batch arrives.
private final class BatchClock: SyncedArrayBatchDelegate {
    var arrivals: [Double] = []
    func syncedArray(_ array: SyncedArray, didApply batch: BatchDiff) { arrivals.append(now()) }
}

/// One size of the collection, with a store and two 50-row arrays on it: the top 50 scores as
/// a limited query (the store's own batch is used), and as one page of 50 (batch by key).
private struct Measured {
    var limitedMicros: [Double] = []
    var pagedMicros: [Double] = []
    var latencyMillis: [Double] = []
    /// The loop thread's time in `replaceQuery` / `loadMore`, and the time until the batch.
    var replaceCallMillis: [Double] = []
    var replaceMillis: [Double] = []
    var loadMoreCallMillis: [Double] = []
    var loadMoreMillis: [Double] = []
    /// One parse of the file, for scale.
    var parseMillis = 0.0
}

private func measure(children: Int, revisions: Int, _ options: BenchOptions) -> Measured? {
    let source = children == 1_000_000 || options.quick && children > 1_000 ? largeCollectionPath(options) : nil
    guard var bytes = source.flatMap(readWholeFile) ?? Optional(generateCollection(children: children)) else { return nil }
    try? FileManager.default.createDirectory(atPath: options.root + "/.build/bench", withIntermediateDirectories: true)
    let file = options.root + "/.build/bench/syncedarray-\(children).json"
    guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else {
        printError("synced array benchmark: cannot write \(file)")
        return nil
    }
    defer { try? FileManager.default.removeItem(atPath: file) }
    var result = Measured()
    result.parseMillis = timeRuns(1, warmup: 0) { _ = try? JSONDocument(parsing: bytes) }.median * 1e3
    do {
        let store = try FileStore(path: file)
        try store.waitForRevision(1, timeoutMilliseconds: 120_000)
        let items = Path(keys: ["items"]), score = Path(keys: ["score"])
        let limited = SyncedArray(try store.reference(items).orderByChild(score).limitToLast(50))
        let paged = SyncedArray(try store.reference(items).orderByChild(score), paging: Paging(pageSize: 50, from: .end))
        let clock = BatchClock(), pagedClock = BatchClock()
        limited.batchDelegate = clock
        paged.batchDelegate = pagedClock
        limited.startSync()
        paged.startSync()
        // Over many children the first windows come from the store's worker.
        try store.run(timeoutMilliseconds: 120_000) { !clock.arrivals.isEmpty && !pagedClock.arrivals.isEmpty }
        var r = SplitMix64(seed: 7)
        for revision in 0..<revisions {
            // A child anywhere in the file gets the top score: it enters both windows.
            setScore(&bytes, near: Int(r.next() % UInt64(bytes.count)), to: 1_000_000 + revision)
            _ = FileManager.default.createFile(atPath: file + ".tmp", contents: Data(bytes))
            let (limitedBefore, pagedBefore) = (limited.statistics.applyNanoseconds, paged.statistics.applyNanoseconds)
            let arrived = clock.arrivals.count
            let start = now()
            rename(file + ".tmp", file)
            try store.run(timeoutMilliseconds: 120_000) { clock.arrivals.count > arrived }
            result.latencyMillis.append((clock.arrivals[arrived] - start) * 1e3)
            result.limitedMicros.append(Double(limited.statistics.applyNanoseconds - limitedBefore) / 1e3)
            result.pagedMicros.append(Double(paged.statistics.applyNanoseconds - pagedBefore) / 1e3)
        }
        // Query replacement and a page more: the store evaluates the new query over every child
        // (on its worker when there are many), and the array applies it as one batch.
        func timed(_ clock: BatchClock, _ call: () -> Void) throws -> (call: Double, batch: Double) {
            let arrived = clock.arrivals.count
            let t = now()
            call()
            let returned = now()
            try store.run(timeoutMilliseconds: 120_000) { clock.arrivals.count > arrived }
            return ((returned - t) * 1e3, (clock.arrivals[arrived] - t) * 1e3)
        }
        let byViews = try Query().orderByChild(Path(keys: ["metrics", "views"])).limitToLast(50)
        let byScore = try Query().orderByChild(score).limitToLast(50)
        for _ in 0..<max(1, revisions / 2) {
            let replaced = try timed(clock) { limited.replaceQuery(byViews) }
            result.replaceCallMillis.append(replaced.call)
            result.replaceMillis.append(replaced.batch)
            _ = try timed(clock) { limited.replaceQuery(byScore) }
            let more = try timed(pagedClock) { paged.loadMore() }
            result.loadMoreCallMillis.append(more.call)
            result.loadMoreMillis.append(more.batch)
            _ = try timed(pagedClock) { paged.replaceQuery(paged.query, paging: Paging(pageSize: 50, from: .end)) }
        }
        limited.stopSync()
        paged.stopSync()
    } catch {
        printError("synced array benchmark: \(error)")
        return nil
    }
    return result
}

/// Rewrites the first `"score": N` at or after `offset` (wrapping around) to `value`.
private func setScore(_ bytes: inout [UInt8], near offset: Int, to value: Int) {
    let needle = Array(#""score": "#.utf8)
    var i = offset
    for _ in 0..<2 {
        while i + needle.count < bytes.count {
            if bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle {
                var end = i + needle.count
                while bytes[end] >= UInt8(ascii: "0") && bytes[end] <= UInt8(ascii: "9") { end += 1 }
                bytes.replaceSubrange((i + needle.count)..<end, with: Array(String(value).utf8))
                return
            }
            i += 1
        }
        i = 0
    }
}

func runSyncedArrayBenchmarks(_ report: Report, _ options: BenchOptions) {
    let bigCount = options.quick ? 2_000 : 1_000_000
    let revisions = options.quick ? 3 : 7
    guard let small = measure(children: 1_000, revisions: revisions, options),
        let big = measure(children: bigCount, revisions: revisions, options)
    else { return }
    let label = bigCount == 1_000_000 ? "1,000,000" : String(bigCount)
    for (name, ours, theirs) in [
        ("limitToLast(50)", Stats(big.limitedMicros), Stats(small.limitedMicros)),
        ("one page of 50", Stats(big.pagedMicros), Stats(small.pagedMicros)),
    ] {
        report.add(Figure(
            name: "synced array work per revision, \(name) over \(label) children", unit: "µs", synctable: ours,
            peers: [(name: "same over 1,000 children", stats: theirs, note: nil)],
            target: "≤ 200 µs, as over 1,000 children (bounded by the window)",
            met: ours.median <= 200 && ours.median <= 3 * theirs.median + 50,
            note: "rows and batch from the store's change; excludes the store's parse and window update"))
    }
    report.add(Figure(
        name: "revision latency, 50-row window over \(label) children", unit: "ms", synctable: Stats(big.latencyMillis),
        peers: [(name: "1,000 children", stats: Stats(small.latencyMillis), note: nil)],
        target: "information (parse-bound)", met: nil,
        note: "rename of the new file → batch delivered: watch, read, parse, window update, array; "
            + "one parse alone takes \(Report.fmt(big.parseMillis)) ms"))
    report.add(Figure(
        name: "query replacement, \(label) children: the batch", unit: "ms", synctable: Stats(big.replaceMillis),
        target: "information (a full evaluation, on the store's worker)", met: nil,
        note: "orderByChild(score) → orderByChild(metrics/views), limitToLast(50): one batch; the loop thread "
            + "spends \(Report.fmt(Stats(big.replaceCallMillis).median)) ms in replaceQuery"))
    report.add(Figure(
        name: "loadMore (50 → 100 rows), \(label) children: the batch", unit: "ms", synctable: Stats(big.loadMoreMillis),
        target: "information (a full evaluation, on the store's worker)", met: nil,
        note: "the loop thread spends \(Report.fmt(Stats(big.loadMoreCallMillis).median)) ms in loadMore"))
}
