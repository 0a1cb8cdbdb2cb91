// A window ordered by a computed column (`.score / .level`), beside the same window ordered by a
// stored member: what evaluating an expression per child costs.
import JSONTree
import LiveQuery
import ViewerCore
import SeededRandom

func runComputedBenchmarks(_ report: Report, _ options: BenchOptions) {
    let big = options.quick ? 10_000 : 1_000_000
    let runs = options.quick ? 3 : 9
    var rng = SplitMix64(seed: 38)
    let label = big >= 1_000_000 ? "\(big / 1_000_000)M" : "\(big / 1000)k"

    // {"items":{"k0":{"score":734,"level":3},…}}, each score's offset kept for the edits.
    var text = [UInt8](#"{"items":{"#.utf8)
    var scoreAt = [Int](), scores = [Int]()
    for i in 0..<big {
        text.append(contentsOf: "\(i > 0 ? "," : "")\n\"k\(i)\":{\"score\":".utf8)
        scoreAt.append(text.count)
        scores.append(rng.next(1_000_000))
        text.append(contentsOf: "\(scores[i]),\"level\":\(1 + rng.next(50))}".utf8)
    }
    text.append(contentsOf: "\n}}\n".utf8)
    let doc = try! JSONDocument(parsing: text)
    let items = try! Path("/items")
    let ratio = try! ComputedColumn(definition: "ratio = .score / .level")
    let computed = try! Query().orderByComputed(ratio.childValue)
    let stored = try! Query().orderByChild("score")

    let ours = timeRuns(options.quick ? 2 : 3) { _ = Window(query: computed, path: items, document: doc) }
    let peer = timeRuns(options.quick ? 2 : 3) { _ = Window(query: stored, path: items, document: doc) }
    report.add(Figure(
        name: "first window, \(label) children, ordered by .score / .level", unit: "ms", synctable: scaled(ours, 1000),
        peers: [(name: "orderByChild(\"score\")", stats: scaled(peer, 1000), note: nil)],
        target: "≤ 4× orderByChild", met: options.quick ? nil : ours.median <= 4 * peer.median, ratio: peer.median / ours.median,
        note: "one expression evaluation per child, on the tape"))

    // One child's score changed: the next revision of a leaderboard by ratio (window + events + batch).
    let top = Window(query: try! computed.limitToLast(50), path: items, document: doc)
    var samples = [Double]()
    var eventCount = 0
    for _ in 0..<runs {
        let i = rng.next(big)
        // Half the edits climb into the window: a score over 100M is a ratio above any other.
        let score = rng.next(2) == 0 ? 100_000_000 + rng.next(1_000) : rng.next(1_000_000)
        var edited = Array(text[..<scoreAt[i]])
        edited.append(contentsOf: String(score).utf8)
        edited.append(contentsOf: text[(scoreAt[i] + String(scores[i]).utf8.count)...])
        let next = try! JSONDocument(parsing: edited)
        let t = now()
        let change = top.advanced(to: next)
        samples.append(now() - t)
        eventCount += change.events.count + change.batch.moves.count
    }
    let s = scaled(Stats(samples), 1000)
    report.add(Figure(
        name: "next revision, \(label) children, 1 changed, ordered by .score / .level limitToLast(50): window + events + batch",
        unit: "ms", synctable: s, target: "≤ 50 ms", met: options.quick ? nil : s.median <= 50,
        note: "\(eventCount) events+moves over \(runs) runs; half the edits climb into the window"))
}
