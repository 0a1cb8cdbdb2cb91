// Query speed: a window moved to the next revision, batch diffs against the standard library's.
import JSONTree
import LiveQuery
import SeededRandom

func runQueryBenchmarks(_ report: Report, _ options: BenchOptions) {
    let big = options.quick ? 10_000 : 1_000_000
    let runs = options.quick ? 3 : 9
    var rng = SplitMix64(seed: 7)

    // A collection of `big` children keyed by push ids: {"items":{"-N…":{"name":"item 1","score":734},…}}.
    let ids = PushIDGenerator(clock: { 1_700_000_000_000 }, random: { UInt64.random(in: .min ... .max) })
    let keys = (0..<big).map { _ in ids.next() }
    var scores = (0..<big).map { _ in rng.next(1_000_000) }
    let base = collectionText(keys, scores)
    let doc = try! JSONDocument(parsing: base.bytes)
    let itemsPath = try! Path("/items")
    let label = big >= 1_000_000 ? "\(big / 1_000_000)M" : "\(big / 1000)k"

    let unlimited = try! Query().orderByChild("score")
    let top = try! Query().orderByChild("score").limitToFirst(50)
    let initial = timeRuns(options.quick ? 2 : 3) { _ = Window(query: unlimited, path: itemsPath, document: doc) }
    report.add(Figure(
        name: "first window, \(label) children, orderByChild", unit: "ms", synctable: scaled(initial, 1000),
        target: "for reference", met: nil))

    // One child's sort field changed: the next revision's window, events and batch.
    for (name, query) in [("orderByChild", unlimited), ("orderByChild limitToFirst(50)", top)] {
        let window = Window(query: query, path: itemsPath, document: doc)
        var samples = [Double]()
        var eventCount = 0
        for _ in 0..<runs {
            let i = rng.next(big)
            var edited = scores
            edited[i] = rng.next(1_000_000)
            // Half the time, move the changed child into the first 50 (a leaderboard climber).
            if rng.next(2) == 0 { edited[i] = rng.next(100) }
            let next = try! JSONDocument(parsing: base.replacingScore(at: i, with: edited[i], old: scores[i]))
            let t = now()
            let change = window.advanced(to: next)
            eventCount += change.events.count + change.batch.moves.count
            samples.append(now() - t)
        }
        let s = scaled(Stats(samples), 1000)
        report.add(Figure(
            name: "next revision, \(label) children, 1 changed, \(name): window + events + batch", unit: "ms",
            synctable: s, target: "≤ 50 ms", met: options.quick ? nil : s.median <= 50,
            note: "\(eventCount) events+moves over \(runs) runs"))
    }
    scores.removeAll()

    // 10k rows: 10% deleted, 10% inserted, 1% moved — BatchDiff against Collection.difference(from:).
    let n = options.quick ? 1_000 : 10_000
    let oldKeys = (0..<n).map { _ in ids.next() }
    var newKeys = oldKeys.filter { _ in rng.next(10) != 0 }
    for _ in 0..<(n / 10) { newKeys.insert(ids.next(), at: rng.next(newKeys.count + 1)) }
    for _ in 0..<(n / 100) {
        let m = newKeys.remove(at: rng.next(newKeys.count))
        newKeys.insert(m, at: rng.next(newKeys.count + 1))
    }
    var batch = BatchDiff(from: [], to: [])
    let ours = timeRuns(options.quick ? 3 : 25) { batch = BatchDiff(from: oldKeys, to: newKeys) }
    var sink = 0
    let theirs = timeRuns(options.quick ? 2 : 5) { sink &+= newKeys.difference(from: oldKeys).count }
    let ratio = theirs.median / ours.median
    report.add(Figure(
        name: "batch diff, \(n) rows (10% deleted, 10% inserted, 1% moved)", unit: "ms", synctable: scaled(ours, 1000),
        peers: [(name: "difference(from:)", stats: scaled(theirs, 1000), note: nil)],
        target: "≥ 100× difference(from:)", met: options.quick ? nil : ratio >= 100, ratio: ratio,
        note: "\(batch.deletes.count) deletes, \(batch.inserts.count) inserts, \(batch.moves.count) moves; difference has \(sink / max(1, options.quick ? 3 : 6)) changes"))

    // Every row moved: a full shuffle.
    let shuffled = keys.shuffled(using: &rng)
    let shuffle = timeRuns(options.quick ? 2 : 3) { batch = BatchDiff(from: keys, to: shuffled) }
    report.add(Figure(
        name: "batch diff, \(label) rows fully shuffled", unit: "ms", synctable: scaled(shuffle, 1000),
        target: "≤ 1 s", met: options.quick ? nil : shuffle.median <= 1,
        note: "\(batch.moves.count) moves"))
}

func scaled(_ s: Stats, _ f: Double) -> Stats { Stats([s.min * f, s.median * f, s.max * f]) }

/// The text of a benchmark collection, with where each child's score is written.
private struct CollectionText {
    var bytes: [UInt8]
    /// Byte offset of each child's score digits.
    var scoreOffsets: [Int]

    /// The same text with child `i`'s score replaced (the rest of the file byte-identical).
    func replacingScore(at i: Int, with score: Int, old: Int) -> [UInt8] {
        let at = scoreOffsets[i]
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 8)
        out.append(contentsOf: bytes[..<at])
        out.append(contentsOf: String(score).utf8)
        out.append(contentsOf: bytes[(at + String(old).utf8.count)...])
        return out
    }
}

private func collectionText(_ keys: [String], _ scores: [Int]) -> CollectionText {
    var out = [UInt8]()
    out.reserveCapacity(keys.count * 64)
    var offsets = [Int]()
    offsets.reserveCapacity(keys.count)
    out.append(contentsOf: #"{"meta":{"name":"bench"},"items":{"#.utf8)
    for (i, key) in keys.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: "\n\"\(key)\":{\"name\":\"item \(i)\",\"score\":".utf8)
        offsets.append(out.count)
        out.append(contentsOf: "\(scores[i])}".utf8)
    }
    out.append(contentsOf: "\n}}\n".utf8)
    return CollectionText(bytes: out, scoreOffsets: offsets)
}
