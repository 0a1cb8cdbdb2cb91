// Property: rates are the differences divided by the times between the revisions that carried
// them; a counter that went down is a reset; a run that changed nothing makes every rate 0.
import JSONTree
import StoreInterface
import Testing
import TestSupport
@testable import RateStore

/// A source whose revisions come with the times a test gives (as a command's runs' start times).
private final class TimedStore: ReadOnlyStore {
    let hub: RevisionHub
    let name = "timed"
    var loadingMessage: String { "…" }
    var pollDescriptors: [Int32] { [wake.fd] }
    private let wake: WakeSignal

    init() throws {
        wake = try WakeSignal()
        hub = RevisionHub(status: StoreStatus(revision: 0, problem: nil, watchMode: .polling), wake: wake)
    }

    func publish(_ value: JSON, at time: Double) {
        hub.publish(document: JSONDocument(value), identity: FileIdentity(device: 0, inode: 0, size: 0, modified: 0, changed: 0), time: time)
    }

    func run(_ number: Int, at time: Double) {
        hub.status.lastRun = CommandRun(number: number, startedAt: "", milliseconds: 0, failed: false, startTime: time)
    }

    func processPendingChanges() {}
}

@Suite("Rates of numeric columns")
struct RateStoreTests {
    @Test("rates equal the differences divided by the run times; a counter that went down is a reset")
    func ratesAreDifferencesOverTimes() throws {
        try forEachSeed(30) { seed, rng in
            let source = try TimedStore()
            let store = try RateStore(source: source, columns: [RateColumn(location: Path(keys: ["links"]), column: Path(keys: ["rx", "bytes"]))])
            var time = 1_700_000_000.0
            var previous: [String: Double]?
            var lastTime = 0.0
            var counters = (0..<rng.int(1...8)).map { _ in Double(rng.int(0...1000)) }
            for _ in 0..<rng.int(2...10) {
                time += Double(rng.int(1...4000)) / 1000
                var children = [(key: String, value: JSON)]()
                var now = [String: Double]()
                for i in counters.indices {
                    // Counters mostly grow, sometimes reset, sometimes are missing.
                    counters[i] = rng.chance(0.1) ? Double(rng.int(0...10)) : counters[i] + Double(rng.int(0...5000))
                    let missing = rng.chance(0.1)
                    if !missing { now["l\(i)"] = counters[i] }
                    let rx: JSON = missing ? ["packets": 1] : ["bytes": .number(JSONNumber(counters[i])), "packets": 1]
                    children.append(("l\(i)", ["name": .string("l\(i)"), "rx": rx]))
                }
                source.publish(["links": .object(JSONObject(children))], at: time)
                store.processPendingChanges()
                let links = try #require(store.currentRevision?.root.node(at: Path(keys: ["links"])))
                for (key, child) in links.members.map({ ($0.key.stringValue!, $0.value) }) {
                    let shown = child.node(at: Path(keys: ["$rate", "rx", "bytes"]))?.json
                    var expected: JSON?
                    if let old = previous?[key], let new = now[key] {
                        expected = new < old ? "reset" : .number(JSONNumber((new - old) / (time - lastTime)))
                    }
                    #expect(shown == expected, "seed \(seed), \(key): \(String(describing: shown)) for \(String(describing: expected))")
                }
                previous = now
                lastTime = time
            }
        }
    }

    @Test("a run whose output is the last one's makes every rate 0")
    func unchangedRunIsZero() throws {
        let source = try TimedStore()
        let store = try RateStore(source: source, columns: [RateColumn(column: Path(keys: ["n"]))])
        // As a command's store does: the run first, then the revision it made.
        source.run(1, at: 100)
        source.publish(["a": ["n": 10]], at: 100)
        store.processPendingChanges()
        source.run(2, at: 102)
        source.publish(["a": ["n": 30]], at: 102)
        store.processPendingChanges()
        #expect(store.currentRevision?.root.node(at: Path(keys: ["a", "$rate", "n"]))?.doubleValue == 10)
        source.run(3, at: 104)
        store.processPendingChanges()
        #expect(store.currentRevision?.root.node(at: Path(keys: ["a", "$rate", "n"]))?.doubleValue == 0)
        // The rest of the child is the source's, byte for byte.
        #expect(store.currentRevision?.root.node(at: Path(keys: ["a", "n"]))?.doubleValue == 30)
    }
}
